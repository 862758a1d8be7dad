#!/usr/bin/env python3
"""GPU kernels run on the CPU: a GEMV, a GEMV over bf16 weights, GEMVs over
Q8_0, Q4_0 and unpacked k-quant blocks, GEMMs over Q4_0 and Q4_K blocks,
an RMS norm, an f32 GEMM, a GEMM over f16 weights on tensor-core tiles and
a mixture of experts.

  emit KERNEL OUT.mlir
      Writes a module whose @compute computes KERNEL over seeded random
      inputs (constants) with linalg on tensors, as convert-tfm-to-linalg
      writes it (the mixture of experts as tfm ops, for
      convert-tfm-to-linalg=moe=gathers; GGUF blocks read through
      tfm_gpu.dequantize, as tfm-gpu-select-weight-types writes it), and
      prints the result with
      printMemrefF32. Run through
      tfm-gpu-mapped-pipeline, the kernel is the GPU schedule's tiled,
      block/warp/thread-mapped IR with its warp-wide vectors; with
      scf-forall-to-for it runs on one CPU thread.
  wrap < MAPPED.mlir > RUNNABLE.mlir
      The mapped module with a @main that gives @compute the scratch
      buffer the pipeline planned for it (an entry's argument), and without
      the tfm attributes mlir-runner cannot parse.
  check KERNEL PRINTED
      Compares what @main printed with the same computation in float64
      (plain Python): every element within 1e-5 of the largest, relative.

The shapes are chosen so that the schedule's edges are exercised: a reduced
dimension that is not a multiple of a warp's chunk (masked last slice), more
output rows than a block's warps, a GEMM whose tiles do not cover a square.
"""
import math
import random
import re
import struct
import sys

KERNELS = {
    # name: (rows, features, outputs)
    "gemv": (1, 200, 96),
    # bf16 weights: 8 a lane, two whole warp-wide slices and a masked one.
    "gemvbf16": (1, 520, 96),
    "norm": (3, 160, 0),
    "gemm": (32, 72, 48),
    # f16 weights on tensor-core tiles (activations rounded to f16).
    "gemm16": (32, 64, 32),
    # tokens, features, hidden units of an expert (see MOE_EXPERTS, TOP_K).
    "moe": (3, 40, 72),
    # The router and experts in bf16: 8 a lane along 264 features (a whole
    # warp-wide slice of 256 and a masked one).
    "moebf16": (3, 264, 72),
    # GGUF blocks, dequantized in registers: Q8_0 16 values a lane (a
    # whole warp-wide slice of 512 and a masked one of 96), Q4_0 a block
    # a lane (one masked slice of 608); the prefill GEMM reads the Q4_0
    # matrix written out in f32 by a kernel of its own.
    "gemvq8": (1, 608, 40),
    "gemvq4": (1, 608, 40),
    "gemmq4": (32, 96, 48),
    # The k-quants unpacked: Q6_K-like int8 in blocks of 16 (16 a lane) and
    # Q4_K's nibbles with minimums (a block a lane), 768 features (a whole
    # slice and a masked one of Q4_K's); the GEMM over Q4_K's.
    "gemvkq": (1, 768, 40),
    "gemvkq4": (1, 768, 40),
    "gemmkq4": (32, 96, 48),
    # An embedding gathering 3 rows of a 48-row Q4_0 table element by
    # element from their blocks (no table written out).
    "embedq4": (3, 96, 48),
}
# The token ids of the embeddings.
EMBED_TOKENS = [5, 0, 47]
# The GGUF block format of each kernel's weights, where it has one.
BLOCK_TYPES = {"gemvq8": "q8_0", "gemvq4": "q4_0", "gemmq4": "q4_0",
               "gemvkq": "kquant", "gemvkq4": "kquant4",
               "gemmkq4": "kquant4", "embedq4": "q4_0"}
MOE_EXPERTS = 4
MOE_TOP_K = 2


def moe_inputs(kernel):
    tokens, features, hidden = KERNELS[kernel]
    rng = random.Random(11)

    def matrix(rows, cols):
        return [[rng.uniform(-1, 1) for _ in range(cols)] for _ in range(rows)]
    return {"x": matrix(tokens, features),
            "router": matrix(MOE_EXPERTS, features),
            "gate": matrix(MOE_EXPERTS * hidden, features),
            "up": matrix(MOE_EXPERTS * hidden, features),
            "down": matrix(MOE_EXPERTS * features, hidden)}


def inputs(kernel):
    rows, features, outputs = KERNELS[kernel]
    rng = random.Random(7)
    x = [[rng.uniform(-1, 1) for _ in range(features)] for _ in range(rows)]
    w = ([[rng.uniform(-1, 1) for _ in range(features)]
          for _ in range(outputs)] if outputs else
         [[rng.uniform(0.5, 1.5) for _ in range(features)]])
    return x, w


def quantize(row, fmt):
    """ggml's quantize_row_q8_0_ref / quantize_row_q4_0_ref of one row:
    [(f16 scale, [32 ints]), ...], Q4_0's ints its nibbles 0..15."""
    blocks = []
    for start in range(0, len(row), 32):
        block = row[start:start + 32]
        if fmt == "q8_0":
            d = max(abs(v) for v in block) / 127
            inv = 1 / d if d else 0.0
            blocks.append((f16(d), [round(v * inv) for v in block]))
        else:
            extreme = max(block, key=abs)
            d = extreme / -8
            inv = 1 / d if d else 0.0
            blocks.append((f16(d), [min(15, int(v * inv + 8.5))
                                    for v in block]))
    return blocks


def kquantize(row, fmt):
    """Blocks as the package writer unpacks the k-quants: [(f32 scale,
    f32 minimum or 0, [ints]), ...], kquant's blocks of 16 signed ints
    (-32..31, Q6_K's q - 32), kquant4's of 32 nibbles (0..15, Q4_K's), not
    fitted to `row`: seeded from it, for the kernel's arithmetic only."""
    rng = random.Random(len(row) * 31 + int(abs(row[0]) * 1e6))
    size, low, high = (16, -32, 31) if fmt == "kquant" else (32, 0, 15)
    blocks = []
    for _ in range(len(row) // size):
        scale = f32(rng.uniform(0.001, 0.05))
        minimum = f32(rng.uniform(0, 0.2)) if fmt == "kquant4" else 0.0
        blocks.append((scale, minimum,
                       [rng.randint(low, high) for _ in range(size)]))
    return blocks


def dequantized(blocks, fmt):
    """scale * q - minimum, Q4_0's q its nibble minus 8."""
    offset = 8 if fmt == "q4_0" else 0
    return [d * (q - offset) - m for d, m, qs in blocks for q in qs]


def blocks_of(row, fmt):
    if fmt in ("kquant", "kquant4"):
        return kquantize(row, fmt)
    return [(d, 0.0, qs) for d, qs in quantize(row, fmt)]


def block_arrays(w, fmt):
    """The #tfm_gpu.blocks declarations of matrix `w`: quants
    [rows, blocks, Q, 1] (nibbles: byte i holds value i low, i + 16 high),
    scales and minimums [rows, blocks, 1]."""
    quants, scales, mins = [], [], []
    for row in w:
        blocks = blocks_of(row, fmt)
        if fmt in ("q4_0", "kquant4"):
            quants.append([[[qs[i] | (qs[i + 16] << 4)] for i in range(16)]
                           for _, _, qs in blocks])
        else:
            quants.append([[[q & 0xFF] for q in qs] for _, _, qs in blocks])
        scales.append([[d] for d, _, _ in blocks])
        mins.append([[m] for _, m, _ in blocks])
    return quants, scales, mins


def rounded(values, to):
    if isinstance(values, list):
        return [rounded(v, to) for v in values]
    return to(values)


def nested_literal(values, element):
    """A dense literal of nested lists: floats exact in f32, i8 bytes
    (0..255) as their signed values."""
    if isinstance(values, list):
        return "[" + ", ".join(nested_literal(v, element)
                               for v in values) + "]"
    if element == "i8":
        return str(values - 256 if values > 127 else values)
    return "%.9e" % values


PROJECTION = """\
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<{rows}x{outputs}xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<{rows}x{outputs}xf32>) -> tensor<{rows}x{outputs}xf32>
  %r = linalg.generic {{indexing_maps = [affine_map<(n, m, k) -> (m, k)>, affine_map<(n, m, k) -> (n, k)>, affine_map<(n, m, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]}} ins(%x, %w : tensor<{rows}x{features}xf32>, tensor<{outputs}x{features}xf32>) outs(%f : tensor<{rows}x{outputs}xf32>) {{
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }} -> tensor<{rows}x{outputs}xf32>
"""

PROJECTION16 = """\
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<{rows}x{outputs}xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<{rows}x{outputs}xf32>) -> tensor<{rows}x{outputs}xf32>
  %r = linalg.generic {{indexing_maps = [affine_map<(n, m, k) -> (m, k)>, affine_map<(n, m, k) -> (n, k)>, affine_map<(n, m, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]}} ins(%x, %w : tensor<{rows}x{features}xf32>, tensor<{outputs}x{features}x{wtype}>) outs(%f : tensor<{rows}x{outputs}xf32>) {{
  ^bb0(%a: f32, %b: {wtype}, %acc: f32):
    %bw = arith.extf %b : {wtype} to f32
    %p = arith.mulf %a, %bw : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }} -> tensor<{rows}x{outputs}xf32>
"""

NORM = """\
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<{rows}xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<{rows}xf32>) -> tensor<{rows}xf32>
  %ss = linalg.generic {{indexing_maps = [affine_map<(m, k) -> (m, k)>, affine_map<(m, k) -> (m)>], iterator_types = ["parallel", "reduction"]}} ins(%x : tensor<{rows}x{features}xf32>) outs(%f : tensor<{rows}xf32>) {{
  ^bb0(%a: f32, %acc: f32):
    %p = arith.mulf %a, %a : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }} -> tensor<{rows}xf32>
  %e2 = tensor.empty() : tensor<{rows}x{features}xf32>
  %g = tensor.collapse_shape %w [[0, 1]] : tensor<1x{features}xf32> into tensor<{features}xf32>
  %r = linalg.generic {{indexing_maps = [affine_map<(m, k) -> (m, k)>, affine_map<(m, k) -> (m)>, affine_map<(m, k) -> (k)>, affine_map<(m, k) -> (m, k)>], iterator_types = ["parallel", "parallel"]}} ins(%x, %ss, %g : tensor<{rows}x{features}xf32>, tensor<{rows}xf32>, tensor<{features}xf32>) outs(%e2 : tensor<{rows}x{features}xf32>) {{
  ^bb0(%a: f32, %sum: f32, %gain: f32, %out: f32):
    %n = arith.constant {features}.0 : f32
    %eps = arith.constant 1.0e-5 : f32
    %mean = arith.divf %sum, %n : f32
    %v = arith.addf %mean, %eps : f32
    %rs = math.rsqrt %v : f32
    %y = arith.mulf %a, %rs : f32
    %z = arith.mulf %y, %gain : f32
    linalg.yield %z : f32
  }} -> tensor<{rows}x{features}xf32>
"""


MOE = """\
  %weights, %experts = tfm.moe_route %x, %router {{top_k = {top_k} : i64, routing = #tfm.routing<top_k_softmax>}} : tensor<{tokens}x{features}xf32>, tensor<{experts}x{features}x{wtype}> -> tensor<{tokens}x{top_k}xf32>, tensor<{tokens}x{top_k}xi32>
  %r = tfm.moe_experts %x, %weights, %experts, %gate, %up, %down : tensor<{tokens}x{features}xf32>, tensor<{tokens}x{top_k}xf32>, tensor<{tokens}x{top_k}xi32>, tensor<{rows}x{features}x{wtype}>, tensor<{rows}x{features}x{wtype}>, tensor<{downrows}x{hidden}x{wtype}>
"""


def write_module(path, matrices, body, out):
    """Writes a module whose @compute binds each of `matrices` (name ->
    (rows, element type), rounded to that type) to %name, runs `body`,
    which defines %r, an `out` tensor, and prints %r. The matrices are
    64-byte aligned buffers, as the weights and the intermediates are, so
    the kernels load them 16 bytes a lane."""
    lines = ["func.func private @printMemrefF32(memref<*xf32>) "
             "attributes {llvm.emit_c_interface}"]
    binds = []
    for name, (matrix, element) in matrices.items():
        if element in ROUND:
            matrix = rounded(matrix, ROUND[element])
        shape, inner = [], matrix
        while isinstance(inner, list):
            shape.append(len(inner))
            inner = inner[0]
        t = "x".join(str(n) for n in shape) + "x" + element
        lines.append("memref.global \"private\" constant @%s : memref<%s> = "
                     "dense<%s> {alignment = 64 : i64}"
                     % (name, t, nested_literal(matrix, element)))
        binds += ["  %%%sm = memref.get_global @%s : memref<%s>"
                  % (name, name, t),
                  "  %%%s = bufferization.to_tensor %%%sm restrict : "
                  "memref<%s> to tensor<%s>" % (name, name, t, t)]
    lines += ["func.func @compute() {"] + binds + [
        body.rstrip("\n"),
        "  %%m = bufferization.to_buffer %%r : %s to %s"
        % (out, out.replace("tensor", "memref")),
        "  %%u = memref.cast %%m : %s to memref<*xf32>"
        % out.replace("tensor", "memref"),
        "  call @printMemrefF32(%u) : (memref<*xf32>) -> ()",
        "  return",
        "}",
    ]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def emit_moe(kernel, path):
    tokens, features, hidden = KERNELS[kernel]
    wtype = WEIGHT_TYPES.get(kernel, "f32")
    matrices = {name: (matrix, "f32" if name == "x" else wtype)
                for name, matrix in moe_inputs(kernel).items()}
    body = MOE.format(tokens=tokens, features=features, hidden=hidden,
                      experts=MOE_EXPERTS, top_k=MOE_TOP_K, wtype=wtype,
                      rows=MOE_EXPERTS * hidden,
                      downrows=MOE_EXPERTS * features)
    write_module(path, matrices, body,
                 "tensor<%dx%dxf32>" % (tokens, features))


def moe_reference(kernel):
    """The experts' sum of each token, its top_k experts chosen by logit
    (ties to the lower index) and weighed by a softmax over the chosen."""
    tokens, features, hidden = KERNELS[kernel]
    wtype = WEIGHT_TYPES.get(kernel, "f32")
    m = {name: [[f32(v) if name == "x" or wtype == "f32" else
                 ROUND[wtype](v) for v in row] for row in matrix]
         for name, matrix in moe_inputs(kernel).items()}
    out = []
    for x in m["x"]:
        logits = [sum(a * b for a, b in zip(x, r)) for r in m["router"]]
        chosen = sorted(range(MOE_EXPERTS), key=lambda e: (-logits[e], e))
        chosen = chosen[:MOE_TOP_K]
        top = max(logits)
        numerators = [math.exp(logits[e] - top) for e in chosen]
        total = sum(numerators)
        row = [0.0] * features
        for e, numerator in zip(chosen, numerators):
            gate = [sum(a * b for a, b in zip(x, m["gate"][e * hidden + h]))
                    for h in range(hidden)]
            up = [sum(a * b for a, b in zip(x, m["up"][e * hidden + h]))
                  for h in range(hidden)]
            inner = [g / (1 + math.exp(-g)) * u for g, u in zip(gate, up)]
            for f in range(features):
                down = sum(a * b for a, b in
                           zip(inner, m["down"][e * features + f]))
                row[f] += numerator / total * down
        out.append(row)
    return out


DEQUANTIZE = """\
  %w = tfm_gpu.dequantize {fmt} %wq, %ws{mins} : tensor<{outputs}x{blocks}x{q}x1xi8>, tensor<{outputs}x{blocks}x1x{stype}>{mintype} -> tensor<{outputs}x{features}xf32>
"""


EMBEDDING = """\
  %ids = arith.constant dense<[{tokens}]> : tensor<{rows}xi32>
  %r = tfm.embedding %ids, %w : tensor<{rows}xi32>, tensor<{outputs}x{features}xf32> -> tensor<{rows}x{features}xf32>
"""


def emit(kernel, path):
    if kernel.startswith("moe"):
        return emit_moe(kernel, path)
    rows, features, outputs = KERNELS[kernel]
    x, w = inputs(kernel)
    if kernel in BLOCK_TYPES:
        fmt = BLOCK_TYPES[kernel]
        quants, scales, mins = block_arrays(w, fmt)
        kquant = fmt in ("kquant", "kquant4")
        stype = "f32" if kquant else "f16"
        with_mins = fmt == "kquant4"
        body = DEQUANTIZE.format(
            fmt=fmt, outputs=outputs, blocks=len(quants[0]),
            q=len(quants[0][0]), features=features, stype=stype,
            mins=", %wm" if with_mins else "",
            mintype=(", tensor<%dx%dx1xf32>" % (outputs, len(quants[0]))
                     if with_mins else ""))
        if kernel.startswith("embed"):
            body += EMBEDDING.format(rows=rows, features=features,
                                     outputs=outputs,
                                     tokens=", ".join(map(str, EMBED_TOKENS)))
            out = "tensor<%dx%dxf32>" % (rows, features)
        else:
            body += PROJECTION.format(rows=rows, features=features,
                                      outputs=outputs)
            out = "tensor<%dx%dxf32>" % (rows, outputs)
        matrices = {"x": (x, "f32"), "wq": (quants, "i8"),
                    "ws": (scales, stype)}
        if with_mins:
            matrices["wm"] = (mins, "f32")
        write_module(path, matrices, body, out)
        return
    wtype = WEIGHT_TYPES.get(kernel, "f32")
    body = (NORM if kernel == "norm" else
            PROJECTION16 if wtype != "f32" else PROJECTION).format(
        rows=rows, features=features, outputs=outputs, wtype=wtype)
    out_cols = features if kernel == "norm" else outputs
    write_module(path, {"x": (x, "f32"), "w": (w, wtype)}, body,
                 "tensor<%dx%dxf32>" % (rows, out_cols))


def f16(value):
    # Rounded to the nearest half, as the kernel reads (and rounds) it.
    return struct.unpack("e", struct.pack("e", value))[0]


def bf16(value):
    # The f32 rounded to its top 16 bits, to nearest even.
    bits = struct.unpack("<I", struct.pack("<f", value))[0]
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return struct.unpack("<f", struct.pack("<I", bits))[0]


# The element type of each kernel's weights, where not f32.
WEIGHT_TYPES = {"gemm16": "f16", "gemvbf16": "bf16", "moebf16": "bf16"}
ROUND = {"f16": f16, "bf16": bf16}


def f32(value):
    # The constants as the kernel reads them.
    return float("%.9e" % value)


def reference(kernel):
    if kernel.startswith("moe"):
        return moe_reference(kernel)
    x, w = inputs(kernel)
    x = [[f32(v) for v in row] for row in x]
    w = [[f32(v) for v in row] for row in w]
    if kernel == "norm":
        out = []
        for row in x:
            rs = 1.0 / math.sqrt(sum(v * v for v in row) / len(row) + 1e-5)
            out.append([v * rs * g for v, g in zip(row, w[0])])
        return out
    if kernel == "gemm16":
        # Tensor cores take the activations in the weights' type.
        x = [[f16(v) for v in row] for row in x]
    if kernel in WEIGHT_TYPES:
        w = [[ROUND[WEIGHT_TYPES[kernel]](v) for v in row] for row in w]
    if kernel in BLOCK_TYPES:
        fmt = BLOCK_TYPES[kernel]
        w = [dequantized(blocks_of(row, fmt), fmt) for row in w]
    if kernel.startswith("embed"):
        return [w[token] for token in EMBED_TOKENS]
    return [[sum(a * b for a, b in zip(row, weights)) for weights in w]
            for row in x]


def check(kernel, path):
    with open(path) as f:
        text = f.read()
    data = text[text.index("data =") + len("data ="):]
    numbers = [float(v) for v in
               re.findall(r"[-+]?(?:\d+\.?\d*(?:e[-+]?\d+)?|nan|inf)", data)]
    ref = [v for row in reference(kernel) for v in row]
    if len(numbers) != len(ref):
        print("FAIL: printed %d values, expected %d" % (len(numbers), len(ref)))
        return 1
    scale = max(abs(v) for v in ref)
    error = max(abs(a - b) for a, b in zip(numbers, ref)) / scale
    if not error <= 1e-5:
        print("FAIL: relative error %.3g > 1e-5" % error)
        return 1
    print("PASS: %s, %d outputs" % (kernel, len(ref)))
    return 0


def wrap():
    text = sys.stdin.read()
    text = re.sub(r"tfm\.weights = #tfm\.weights_layout<[^>]*>", "", text)
    scratch = re.search(r"func\.func @compute\(%arg0: memref<(\d+)xi8>", text)
    main = ["  func.func @main() {"]
    if scratch:
        main += ["    %%s = memref.alloc() {alignment = 64 : i64} : "
                 "memref<%sxi8>" % scratch.group(1),
                 "    call @compute(%%s) : (memref<%sxi8>) -> ()"
                 % scratch.group(1)]
    else:
        main.append("    call @compute() : () -> ()")
    main += ["    return", "  }"]
    end = text.rstrip().rfind("}")
    sys.stdout.write(text[:end] + "\n".join(main) + "\n}\n")
    return 0


def main(argv):
    if len(argv) == 2 and argv[1] == "wrap":
        return wrap()
    if len(argv) != 4 or argv[1] not in ("emit", "check") or \
            argv[2] not in KERNELS:
        print(__doc__.splitlines()[2].strip(), file=sys.stderr)
        return 2
    if argv[1] == "emit":
        emit(argv[2], argv[3])
        return 0
    return check(argv[2], argv[3])


if __name__ == "__main__":
    sys.exit(main(sys.argv))
