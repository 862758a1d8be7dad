//===- tfmc.cpp - The tfmc command line -------------------------------------===//
//
//   tfmc compile MODEL [--tokenizer FILE] -o OUT [--compile-to=STAGE] ...
//
// MODEL is a llama2.c checkpoint (.bin), a GGUF file, a Hugging Face model
// directory or `preset:NAME`. MLIR's pass-manager flags
// (--mlir-print-ir-after-all, --mlir-timing, ...) apply to every stage.
//
//===----------------------------------------------------------------------===//
#include "compiler/driver/Driver.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/Timing.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/WithColor.h"

#include <cstring>
#include <vector>

namespace cl = llvm::cl;

static cl::OptionCategory compileCategory("tfmc compile options");

static cl::opt<std::string> modelPath(cl::Positional, cl::Required,
                                      cl::desc("<model>"),
                                      cl::cat(compileCategory));
static cl::opt<std::string>
    tokenizerPath("tokenizer",
                  cl::desc("Tokenizer file (llama2.c tokenizer.bin, "
                           "tokenizer.json or GPT-2 vocab.json)"),
                  cl::value_desc("file"), cl::cat(compileCategory));
static cl::opt<std::string> outputPath("o", cl::desc("Output file"),
                                       cl::value_desc("file"),
                                       cl::cat(compileCategory));
static cl::opt<std::string> compileTo(
    "compile-to",
    cl::desc("Stop after a stage and print it: tfm, kv-cache, fused, linalg, "
             "llvm, llvm-ir, asm, obj"),
    cl::value_desc("stage"), cl::cat(compileCategory));
static cl::opt<int64_t>
    contextLength("context",
                  cl::desc("KV-cache positions (default: the model's context "
                           "length; may only shrink it)"),
                  cl::init(0), cl::cat(compileCategory));
static cl::opt<int64_t> prefillChunk("prefill-chunk",
                                     cl::desc("Tokens per prefill call"),
                                     cl::init(32), cl::cat(compileCategory));
static cl::opt<uint64_t>
    presetSeed("seed", cl::desc("Weight seed for preset:NAME models"),
               cl::init(42), cl::cat(compileCategory));
static cl::opt<std::string>
    targetCpu("target-cpu",
              cl::desc("CPU to generate code for (default: this machine)"),
              cl::cat(compileCategory));

static cl::opt<bool> parallelKernels(
    "parallel",
    cl::desc("Generate multi-threaded kernels (OpenMP); --parallel=false for "
             "single-threaded code"),
    cl::init(true), cl::cat(compileCategory));

static cl::opt<bool> fuseProjections(
    "fuse-projections",
    cl::desc("Stack Q/K/V and gate/up weights into one GEMM each"),
    cl::init(true), cl::cat(compileCategory));
static cl::opt<bool> fuseAttention(
    "fuse-attention",
    cl::desc("Attention as one fused kernel with an online softmax "
             "(tfm-cpu-fuse-attention)"),
    cl::init(true), cl::cat(compileCategory));
static cl::opt<bool> approximateMath(
    "approximate-math",
    cl::desc("Inline polynomial exp/tanh instead of libm calls "
             "(tfm-approximate-math)"),
    cl::init(true), cl::cat(compileCategory));
static cl::opt<bool> packWeights(
    "pack-weights",
    cl::desc("Store projection weights as column panels (tfm-cpu-pack-weights)"),
    cl::init(true), cl::cat(compileCategory));
static cl::opt<bool> tileProjections(
    "tile-projections",
    cl::desc("Register-blocked, vectorised projection kernels on packed "
             "weights (tfm-cpu-tile-projections)"),
    cl::init(true), cl::cat(compileCategory));
static cl::opt<bool> planMemory(
    "plan-memory",
    cl::desc("Intermediates in one static arena planned at compile time "
             "(tfm-cpu-plan-memory)"),
    cl::init(true), cl::cat(compileCategory));
static cl::opt<bool> fuseElementwise(
    "fuse-elementwise",
    cl::desc("Fuse elementwise producers into parallel consumers"),
    cl::init(true), cl::cat(compileCategory));
static cl::opt<bool> promoteAccumulators(
    "promote-accumulators",
    cl::desc("Carry reduction accumulators in registers"), cl::init(true),
    cl::cat(compileCategory));

static cl::opt<bool> prefetchWeights(
    "prefetch-weights",
    cl::desc("Prefill GEMMs prefetch the next weight tile while sweeping "
             "this one, and large models' decode GEMVs prefetch their "
             "panels ahead (tfm-cpu-prefetch-weight-panels)"),
    cl::init(true), cl::cat(compileCategory));

static cl::opt<bool> vectorizeElementwise(
    "vectorize-elementwise",
    cl::desc("Vectorise the elementwise ops between kernels (norm scaling, "
             "RoPE, embeddings) in strips (tfm-cpu-vectorize-elementwise)"),
    cl::init(true), cl::cat(compileCategory));

static cl::opt<bool> fuseEpilogues(
    "fuse-epilogues",
    cl::desc("Compute a projection's elementwise epilogue (bias, GELU, "
             "residual add, SwiGLU's silu(gate) * up) inside its kernel "
             "(tfm-cpu-tile-projections; multi-threaded kernels only)"),
    cl::init(true), cl::cat(compileCategory));

static cl::opt<unsigned> streamPrefetchDistance(
    "stream-prefetch-distance",
    cl::desc("Decode GEMVs of models with at least 256 MiB of weights "
             "prefetch each panel this many input features ahead "
             "(tfm-cpu-prefetch-weight-panels; 0: no prefetch)"),
    cl::init(16), cl::cat(compileCategory));

static cl::opt<unsigned> cachePrefetchDistance(
    "cache-prefetch-distance",
    cl::desc("Attention's block loops prefetch the KV-cache rows they read "
             "this many positions ahead (tfm-cpu-prefetch-cache-rows; 0: no "
             "prefetch)"),
    cl::init(32), cl::cat(compileCategory));

static cl::opt<int64_t> minParallelWork(
    "min-parallel-work",
    cl::desc("Parallel loops with less work (innermost iterations plus "
             "vector lanes) run on one thread; 0 forks for every loop"),
    cl::init(32768), cl::cat(compileCategory));

static int usage() {
  llvm::errs() << "usage: tfmc compile MODEL [--tokenizer FILE] -o OUT "
                  "[--compile-to=STAGE]\n"
                  "       tfmc compile --help\n";
  return 1;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  if (argc < 2 || std::strcmp(argv[1], "compile") != 0) {
    if (argc >= 2 && (std::strcmp(argv[1], "--help") == 0 ||
                      std::strcmp(argv[1], "-h") == 0)) {
      usage();
      return 0;
    }
    if (argc >= 2)
      llvm::WithColor::error(llvm::errs(), "tfmc")
          << "unknown command '" << argv[1] << "'\n";
    return usage();
  }
  mlir::registerMLIRContextCLOptions();
  mlir::registerPassManagerCLOptions();
  mlir::registerAsmPrinterCLOptions();
  mlir::registerDefaultTimingManagerCLOptions();

  // --help lists tfmc's options and MLIR's IR-inspection ones
  // (--mlir-print-ir-after=..., --mlir-timing), not the hundreds that the
  // linked LLVM targets register; those stay accepted (--help-hidden).
  for (auto &entry : cl::getRegisteredOptions()) {
    cl::Option *option = entry.second;
    bool ours = llvm::is_contained(option->Categories, &compileCategory);
    if (!ours && !entry.first.starts_with("mlir-") &&
        option->getOptionHiddenFlag() == cl::NotHidden)
      option->setHiddenFlag(cl::Hidden);
  }

  // Parse everything after the `compile` command word.
  std::vector<char *> args = {argv[0]};
  args.insert(args.end(), argv + 2, argv + argc);
  cl::ParseCommandLineOptions(int(args.size()), args.data(),
                              "tfmc: compile transformer models to native "
                              "executables\n");

  tfmc::CompileOptions options;
  options.model = modelPath;
  options.tokenizer = tokenizerPath;
  options.output = outputPath;
  options.contextLength = contextLength;
  options.prefillChunk = prefillChunk;
  options.presetSeed = presetSeed;
  options.targetCpu = targetCpu;
  options.parallel = parallelKernels;
  options.fuseProjections = fuseProjections;
  options.fuseAttention = fuseAttention;
  options.approximateMath = approximateMath;
  options.packWeights = packWeights;
  options.tileProjections = tileProjections;
  options.planMemory = planMemory;
  options.fuseElementwise = fuseElementwise;
  options.promoteAccumulators = promoteAccumulators;
  options.prefetchWeights = prefetchWeights;
  options.fuseEpilogues = fuseEpilogues;
  options.vectorizeElementwise = vectorizeElementwise;
  options.streamPrefetchDistance = streamPrefetchDistance;
  options.cachePrefetchDistance = cachePrefetchDistance;
  options.minParallelWork = minParallelWork;
  if (contextLength < 0) {
    llvm::WithColor::error(llvm::errs(), "tfmc")
        << "--context must be positive\n";
    return 1;
  }
  if (prefillChunk <= 0) {
    llvm::WithColor::error(llvm::errs(), "tfmc")
        << "--prefill-chunk must be positive\n";
    return 1;
  }
  if (!compileTo.empty()) {
    auto stage = tfmc::parseStage(compileTo);
    if (!stage) {
      llvm::WithColor::error(llvm::errs(), "tfmc")
          << "unknown --compile-to stage '" << compileTo
          << "' (expected tfm, kv-cache, fused, linalg, llvm, llvm-ir, asm "
             "or obj)\n";
      return 1;
    }
    options.stage = *stage;
  }
  return tfmc::runCompile(options);
}
