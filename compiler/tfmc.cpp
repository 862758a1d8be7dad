//===- tfmc.cpp - The tfmc command line -----------------------------------===//
//
//   tfmc compile MODEL [--tokenizer FILE] -o OUT [--compile-to=STAGE]
//                [--emit=exe|lib] [--target=cpu] [phase options ...]
//
// MODEL is a llama2.c checkpoint (.bin), a GGUF file, a Hugging Face model
// directory, `preset:NAME`, or IR in the tfm dialect (.mlir, with
// --weights-from MODEL). tfmc's own options say what to read and write;
// every other option belongs to a phase and is declared once, in that
// phase's options struct (the target-independent TfmTransformOptions, the
// backend's groups), which also serves as its pipeline's options in
// tfmc-opt. MLIR's pass-manager flags (--mlir-print-ir-after-all,
// --mlir-timing, ...) apply to every stage.
//
//===----------------------------------------------------------------------===//
#include "compiler/backends/TargetBackend.h"
#include "compiler/driver/Driver.h"
#include "models/Presets.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/Timing.h"

#include "runtime/ModelABI.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/WithColor.h"

#include <cstring>
#include <vector>

namespace cl = llvm::cl;

static cl::OptionCategory compileCategory("tfmc compile options");

static cl::opt<std::string> modelPath(cl::Positional, cl::desc("<model>"),
                                      cl::cat(compileCategory));
static cl::opt<std::string>
    tokenizerPath("tokenizer",
                  cl::desc("Tokenizer file (llama2.c tokenizer.bin, "
                           "tokenizer.json or GPT-2 vocab.json)"),
                  cl::value_desc("file"), cl::cat(compileCategory));
static cl::opt<std::string> weightsFrom(
    "weights-from",
    cl::desc("With a .mlir MODEL (IR in the tfm dialect, as --compile-to=tfm "
             "prints it): the model file or preset:NAME whose weights, "
             "tokenizer and configuration it uses"),
    cl::value_desc("model"), cl::cat(compileCategory));
static cl::opt<std::string> outputPath("o", cl::desc("Output file"),
                                       cl::value_desc("file"),
                                       cl::cat(compileCategory));
static cl::opt<std::string>
    compileTo("compile-to",
              cl::desc("Stop after a stage and print it (the stages of the "
                       "target follow the target-independent tfm, kv-cache "
                       "and fused)"),
              cl::value_desc("stage"), cl::cat(compileCategory));
static cl::opt<std::string>
    emitKind("emit",
             cl::desc("What to produce: exe (an executable, -o FILE) or lib "
                      "(-o DIR: libNAME.a, its C header NAME.h, the package "
                      "NAME.tfmpkg and the link flags NAME.link; NAME is "
                      "DIR's name)"),
             cl::value_desc("kind"), cl::init("exe"), cl::cat(compileCategory));
static cl::opt<std::string> targetName("target",
                                       cl::desc("Code generator (cpu)"),
                                       cl::value_desc("name"), cl::init("cpu"),
                                       cl::cat(compileCategory));
static cl::opt<bool> showProgress(
    "progress",
    cl::desc("Print a line per finished stage and the output's size, also "
             "when stderr is not a terminal (on a terminal they are printed "
             "anyway)"),
    cl::cat(compileCategory));
static cl::opt<bool>
    quiet("quiet",
          cl::desc("Print no stage or progress lines, not even on a terminal"),
          cl::cat(compileCategory));
static cl::opt<uint64_t>
    presetSeed("seed",
               cl::desc("Weight seed for preset:NAME models and "
                        "--random-weights"),
               cl::init(42), cl::cat(compileCategory));
static cl::opt<bool> randomWeights(
    "random-weights",
    cl::desc("Store no weights: the program fills them from --seed when it "
             "loads (values fit for every weight type, not the model's), so "
             "a benchmark of any model's shape is a small file; the "
             "model's weight files are not read"),
    cl::cat(compileCategory));

namespace {

int error(const llvm::Twine &message) {
  llvm::WithColor::error(llvm::errs(), "tfmc") << message << "\n";
  return 1;
}

/// tfmc's version, the model ABI its executables speak, and the LLVM it
/// generates code with.
void printVersion() {
  llvm::outs() << "tfmc " << TFMC_VERSION << " (model ABI " << TFM_ABI_VERSION
               << ", LLVM " << LLVM_VERSION_STRING
               << ", targets: " << llvm::join(tfmc::targetBackendNames(), ", ")
               << ")\n";
}

int usage() {
  llvm::errs() << "usage: tfmc compile MODEL [--tokenizer FILE] -o OUT "
                  "[--compile-to=STAGE] [--emit=exe|lib] [--target=NAME] "
                  "[options]\n"
                  "       tfmc compile --help | --help-hidden\n"
                  "       tfmc --version\n";
  return 1;
}

/// The value of `--target` among `arguments` (the last one wins, as for
/// every option), before the command line is parsed: it decides which
/// backend's options the other arguments may name.
std::string findTarget(llvm::ArrayRef<std::string> arguments) {
  std::string target = "cpu";
  for (size_t i = 0; i < arguments.size(); ++i) {
    llvm::StringRef argument = arguments[i];
    llvm::StringRef name = argument.ltrim('-');
    if (!argument.starts_with("-") || !name.starts_with("target"))
      continue;
    if (name.consume_front("target="))
      target = name.str();
    else if (name == "target" && i + 1 < arguments.size())
      target = arguments[i + 1];
  }
  return target;
}

/// tfmc's options stay visible in --help; MLIR's IR-inspection options
/// (--mlir-print-ir-after-all, ...) only with `showMlir` (--help-hidden);
/// the hundreds that the linked LLVM targets register stay accepted but
/// are never listed.
void hideForeignOptions(bool showMlir) {
  for (auto &entry : cl::getRegisteredOptions()) {
    cl::Option *option = entry.second;
    bool ours = llvm::is_contained(option->Categories, &compileCategory);
    bool mlir = entry.first.starts_with("mlir-");
    if (ours || (mlir && showMlir))
      continue;
    option->setHiddenFlag(cl::ReallyHidden);
  }
}

/// What MODEL may be, the presets and the stages --compile-to stops after.
void printInputHelp(const tfmc::TargetBackend &backend) {
  llvm::outs() << R"(
MODEL is one of:
  DIR                  a Hugging Face model directory (config.json,
                       model.safetensors or shards, tokenizer.json or
                       vocab.json + merges.txt)
  FILE.gguf            a GGUF v3 file (F32/F16/BF16/Q8_0/Q4_0/K-quants)
  FILE.bin             a llama2.c checkpoint (with --tokenizer)
  FILE.mlir            IR in the tfm dialect (with --weights-from MODEL)
  preset:NAME          a built-in model with seeded random weights
Files are recognised by their content, not their names.

Presets: )" << llvm::join(tfmc::presetNames(), ", ")
               << "\n";
  llvm::outs() << "\nStages (--compile-to): "
               << llvm::join(tfmc::stageNames(backend), ", ") << "\n";
  llvm::outs() << "\nMLIR's IR-inspection flags (--mlir-print-ir-after-all, "
                  "--mlir-timing, ...) apply to every stage: --help-hidden "
                  "lists them.\n";
}

void printPhaseHelp(llvm::ArrayRef<mlir::tfm::OptionGroup *> groups) {
  for (mlir::tfm::OptionGroup *group : groups) {
    llvm::outs() << "\n" << group->title() << " options:\n\n";
    group->printHelp();
  }
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::SetVersionPrinter([](llvm::raw_ostream &) { printVersion(); });
  if (argc < 2 || std::strcmp(argv[1], "compile") != 0) {
    if (argc >= 2 && (std::strcmp(argv[1], "--help") == 0 ||
                      std::strcmp(argv[1], "-h") == 0)) {
      usage();
      return 0;
    }
    if (argc >= 2 && (std::strcmp(argv[1], "--version") == 0 ||
                      std::strcmp(argv[1], "version") == 0)) {
      printVersion();
      return 0;
    }
    if (argc >= 2)
      error(llvm::Twine("unknown command '") + argv[1] + "'");
    return usage();
  }
  mlir::registerMLIRContextCLOptions();
  mlir::registerPassManagerCLOptions();
  mlir::registerAsmPrinterCLOptions();
  mlir::registerDefaultTimingManagerCLOptions();
  auto isHelpHidden = [](llvm::StringRef argument) {
    return argument == "--help-hidden" || argument == "-help-hidden";
  };
  bool helpHidden = std::any_of(argv + 2, argv + argc, isHelpHidden);
  hideForeignOptions(helpHidden);

  // Names the program in llvm::cl's messages about phase option values,
  // which are parsed before the rest of the command line.
  cl::ParseCommandLineOptions(1, argv);
  std::vector<std::string> arguments(argv + 2, argv + argc);
  std::string target = findTarget(arguments);
  std::unique_ptr<tfmc::TargetBackend> backend =
      tfmc::createTargetBackend(target);
  if (!backend)
    return error("unknown --target '" + target + "' (expected " +
                 llvm::join(tfmc::targetBackendNames(), ", ") + ")");

  mlir::tfm::TfmTransformOptions transform;
  mlir::tfm::OptionGroupOf<mlir::tfm::TfmTransformOptions> transformGroup(
      "Network transforms", transform);
  std::vector<mlir::tfm::OptionGroup *> groups = {&transformGroup};
  for (mlir::tfm::OptionGroup *group : backend->optionGroups())
    groups.push_back(group);

  // Phase options go to their structs; the rest to LLVM's parser.
  std::vector<std::string> unclaimed;
  std::string message;
  llvm::raw_string_ostream errors(message);
  if (mlir::failed(mlir::tfm::routeOptions(
          arguments, groups, mlir::tfm::OptionSpelling::CommandLine, &unclaimed,
          errors)))
    return error(llvm::StringRef(message).trim());
  std::vector<char *> rest = {argv[0]};
  for (std::string &argument : unclaimed)
    rest.push_back(argument.data());
  bool help = llvm::any_of(unclaimed,
                           [](llvm::StringRef argument) {
                             return argument == "--help" ||
                                    argument == "-help" || argument == "-h";
                           }) ||
              helpHidden;
  if (help) {
    cl::ParseCommandLineOptions(1, rest.data(),
                                "tfmc: compile transformer models to "
                                "native executables\n");
    cl::PrintHelpMessage();
    printInputHelp(*backend);
    printPhaseHelp(groups);
    return 0;
  }
  cl::ParseCommandLineOptions(int(rest.size()), rest.data(),
                              "tfmc: compile transformer models to native "
                              "executables\n");
  if (modelPath.empty()) {
    error("no model given");
    return usage();
  }

  tfmc::DriverOptions options;
  options.model = modelPath;
  options.tokenizer = tokenizerPath;
  options.weightsFrom = weightsFrom;
  options.progress = showProgress;
  options.quiet = quiet;
  if (showProgress && quiet)
    return error("--progress and --quiet contradict each other");
  options.output = outputPath;
  options.presetSeed = presetSeed;
  options.randomWeights = randomWeights;
  if (emitKind != "exe" && emitKind != "lib")
    return error("unknown --emit '" + emitKind + "' (expected exe or lib)");
  options.library = emitKind == "lib";
  if (options.library && !compileTo.empty())
    return error("--emit=lib writes the library after the last stage: it "
                 "does not combine with --compile-to");
  if (options.randomWeights && !compileTo.empty())
    return error("--random-weights fills the weights of an executable or "
                 "library: --compile-to writes IR, which holds none");
  if (!compileTo.empty()) {
    std::vector<std::string> stages = tfmc::stageNames(*backend);
    if (!llvm::is_contained(stages, compileTo.getValue())) {
      std::string expected =
          llvm::join(llvm::ArrayRef<std::string>(stages).drop_back(), ", ");
      return error("unknown --compile-to stage '" + compileTo + "' (expected " +
                   expected + " or " + stages.back() + ")");
    }
    options.stopAfter = compileTo;
  }
  return tfmc::runCompile(options, transform, *backend);
}
