//===- CpuTargetFacts.h - What CPU codegen reads of a target ---*- C++ -*-===//
//
// The one place the CPU passes read `#tfm.target` (its #tfm.cpu_target
// config, which compiler/backends/llvm-cpu/CpuTarget.h describes): the
// facts that tfm-cpu-select-kernel-config chooses the kernels by. Every
// other CPU pass reads the choices (the kernel configurations), not the
// target.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_PASSES_CODEGEN_CPU_CPUTARGETFACTS_H
#define TFMC_PASSES_CODEGEN_CPU_CPUTARGETFACTS_H

#include "dialect/TfmOps.h"

#include <cstdint>

namespace mlir::tfm::cpu {

struct CpuTargetFacts {
  /// The 32-bit lanes of one VNNI byte dot product (`vpdpbusd`): 16 with
  /// AVX-512 VNNI, 8 with AVX-VNNI, 0 without VNNI.
  int64_t byteQuadDotLanes = 0;
  /// AVX2 (`vpmaddubsw`, and 256-bit integer vectors).
  bool avx2 = false;
  /// AVX512_BF16 (`vdpbf16ps`).
  bool avx512bf16 = false;
  /// Accumulator vectors of a projection micro-kernel: at most half the
  /// vector registers (the rest hold weights and broadcast inputs), each
  /// 16-lane f32 row taking 512 / vector_bits of them: AVX-512 (32 of 512
  /// bits) 8 rows, AVX2 (16 of 256) 4; 8 without a target.
  int64_t accumulators = 8;
  /// An AMD Zen core (`znver*`), where non-temporal prefetches of streamed
  /// weights were measured to pay.
  bool amdZen = false;
};

/// The facts of `target` (may be null, or another backend's: the
/// defaults).
CpuTargetFacts getCpuTargetFacts(TargetAttr target);

} // namespace mlir::tfm::cpu

#endif // TFMC_PASSES_CODEGEN_CPU_CPUTARGETFACTS_H
