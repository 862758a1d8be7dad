//===- Main.cpp - main() of every executable tfmc produces ----------------===//
//
// Opens the package appended to the executable (or the one TFM_PACKAGE names),
// checks it belongs to the compiled code it is linked with, then hands off to
// generation, --bench, --dump-logits or --info (an encoder's: fill-mask,
// --embed, --bench, --dump-logits or --info).
//
//===----------------------------------------------------------------------===//

#include "runtime/Cli.h"
#include "runtime/CpuFeatures.h"
#include "runtime/Encode.h"
#include "runtime/Generate.h"
#include "runtime/GenerationSettings.h"
#include "runtime/ModelABI.h"
#include "runtime/ModelInfo.h"
#include "runtime/Package.h"
#include "runtime/PackageCheck.h"
#include "runtime/PackageKeys.h"
#include "runtime/Tokenizer.h"
#include "runtime/model/ModelEntries.h"

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <thread>
#include <unistd.h>

namespace {

/// The cores this process may run on.
int availableCores() {
  unsigned n = std::thread::hardware_concurrency();
  return n > 0 ? static_cast<int>(n) : 1;
}

/// OMP_NUM_THREADS when it holds a positive count (its first, as OpenMP
/// reads a list of nested levels), else every core.
int defaultThreads() {
  if (const char *env = std::getenv("OMP_NUM_THREADS")) {
    char *end = nullptr;
    long threads = std::strtol(env, &end, 10);
    if (end != env && (*end == '\0' || *end == ',') && threads > 0 &&
        threads <= 4096)
      return static_cast<int>(threads);
  }
  return availableCores();
}

} // namespace

extern "C" {
/// Threads the generated code may use; set by --threads.
int tfm_num_threads = defaultThreads();
}

using namespace tfm::rt;

namespace {

/// The file holding the package: TFM_PACKAGE, else this executable. The real
/// path (not /proc/self/exe) is returned so errors name a file the user knows.
std::string packagePath() {
  if (const char *env = std::getenv("TFM_PACKAGE"); env && *env)
    return env;
  char buffer[4096];
  ssize_t length = ::readlink("/proc/self/exe", buffer, sizeof(buffer) - 1);
  if (length <= 0)
    return "/proc/self/exe";
  return std::string(buffer, static_cast<size_t>(length));
}

/// The package's tokenizer and special ids; null after printing an error.
std::unique_ptr<Tokenizer> openTokenizer(const Package &package,
                                         const std::string &path, int &bos,
                                         int &eos) {
  std::string error;
  if (!readPackageTokenId(package, "token.bos", path, bos, error) ||
      !readPackageTokenId(package, "token.eos", path, eos, error)) {
    std::fprintf(stderr, "error: %s\n", error.c_str());
    return nullptr;
  }
  std::string_view kind = package.get("tokenizer.kind");
  if (kind.empty()) {
    std::fprintf(stderr,
                 "error: '%s': the package has no tokenizer (metadata "
                 "'tokenizer.kind' is missing)\n",
                 path.c_str());
    return nullptr;
  }
  std::unique_ptr<Tokenizer> tokenizer =
      loadTokenizer(kind, package.get("tokenizer.data"), bos, eos, error);
  if (!tokenizer)
    std::fprintf(stderr, "error: '%s': %s\n", path.c_str(), error.c_str());
  return tokenizer;
}

/// What the model's generation_config.json made the sampling, when the user
/// overrides none of it: a note, so that greedy output is no surprise.
void noteModelSampling(const ModelGeneration &generation,
                       const CliOptions &options) {
  if (!generation.configured || options.temperatureGiven || options.topKGiven ||
      options.topPGiven || options.minPGiven || options.repetitionPenaltyGiven)
    return;
  std::fprintf(stderr,
               "note: %s, as the model's generation_config.json says "
               "(--temp, --top-k, --top-p, --min-p and "
               "--repetition-penalty override it)\n",
               describeSampling(generation.sampler).c_str());
}

int generate(ModelRunner &runner, const Package &package,
             const std::string &path, const CliOptions &options) {
  int bos = -1, eos = -1;
  std::unique_ptr<Tokenizer> tokenizer = openTokenizer(package, path, bos, eos);
  if (!tokenizer)
    return 1;
  ModelGeneration generation;
  std::string error;
  if (!readModelGeneration(package, path, eos, runner.vocab(), generation,
                           error)) {
    std::fprintf(stderr, "error: %s\n", error.c_str());
    return 1;
  }
  noteModelSampling(generation, options);
  return runGenerate(runner, *tokenizer, bos, eos, generation, options);
}

/// `--prompt -`: the prompt is everything on stdin.
bool readPromptFromStdin(CliOptions &options, std::string &error) {
  if (options.prompt != "-")
    return true;
  std::string text;
  char buffer[65536];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, stdin)) > 0)
    text.append(buffer, n);
  if (std::ferror(stdin)) {
    error = "error: cannot read the prompt from stdin";
    return false;
  }
  options.prompt = std::move(text);
  return true;
}

/// Says, before a --bench, that the weights are random: the speed is the
/// model shape's, not the values.
void noteRandomWeights(const Package &package) {
  if (std::optional<uint64_t> seed = package.randomSeed())
    std::fprintf(stderr,
                 "note: the weights are random (tfmc compile "
                 "--random-weights, seed %" PRIu64 "), not the model's\n",
                 *seed);
}

/// An encoder's modes: fill-mask (the default), --embed, --dump-logits,
/// --bench.
int runEncoder(const Package &package, const std::string &path,
               const CliOptions &options) {
  EncoderRunner runner(tfm_model, linkedEntries());
  std::string error;
  if (!runner.open(package.weights(), error)) {
    std::fprintf(stderr, "%s\n", error.c_str());
    return 1;
  }
  if (options.mode == CliMode::Bench) {
    noteRandomWeights(package);
    return runEncoderBench(runner, options, tfm_num_threads,
                           package.get(keys::kEncodeRows));
  }
  if (options.mode == CliMode::DumpLogits)
    return runEncoderDump(runner, options);
  int bos = -1, eos = -1;
  std::unique_ptr<Tokenizer> tokenizer;
  bool needsTokenizer =
      options.mode == CliMode::Generate || !options.prompt.empty();
  if (needsTokenizer) {
    tokenizer = openTokenizer(package, path, bos, eos);
    if (!tokenizer)
      return 1;
  }
  if (options.mode == CliMode::Embed) {
    // The flags win over how the model was trained (its package's keys).
    CliOptions embed = options;
    if (embed.pooling.empty())
      embed.pooling = std::string(package.get(keys::kEmbeddingPooling));
    if (embed.pooling.empty()) // packages of tfmc before the key
      embed.pooling = "mean";
    if (!isPoolingMode(embed.pooling)) {
      std::fprintf(stderr,
                   "error: '%s': the package's pooling '%s' is not one this "
                   "runtime knows (see --help)\n",
                   path.c_str(), embed.pooling.c_str());
      return 1;
    }
    if (embed.normalize < 0)
      embed.normalize = package.get(keys::kEmbeddingNormalize) == "1";
    return runEmbed(runner, tokenizer.get(), embed);
  }
  if (options.stepsGiven || options.temperatureGiven || options.topPGiven ||
      options.minPGiven || options.repetitionPenaltyGiven ||
      options.seedGiven || !options.stops.empty()) {
    std::fprintf(stderr, "error: -n, --temp, --top-p, --min-p, "
                         "--repetition-penalty, --stop and --seed are for "
                         "generating models; an encoder fills [MASK] tokens "
                         "(see --help)\n");
    return 1;
  }
  return runFillMask(runner, *tokenizer, options);
}

} // namespace

int main(int argc, char **argv) {
  CliOptions options;
  std::string error;
  if (!parseCommandLine(argc, argv, options, error)) {
    std::fprintf(stderr, "%s\n", error.c_str());
    return 1;
  }
  if (options.mode == CliMode::Help) {
    UsageKind kind = tfm_model.kind == TFM_KIND_ENCODER ? UsageKind::Encoder
                     : tfm_model.kind == TFM_KIND_ENCODER_DECODER
                         ? UsageKind::EncoderDecoder
                         : UsageKind::Decoder;
    std::fputs(usageText(argc > 0 ? argv[0] : "model", kind).c_str(), stdout);
    return 0;
  }
  if (!readPromptFromStdin(options, error)) {
    std::fprintf(stderr, "%s\n", error.c_str());
    return 1;
  }
  if (options.threads > 0)
    tfm_num_threads = options.threads;
  // More threads than cores make every parallel loop wait for preempted
  // threads: measured 100x slower with 64 threads on 2 cores.
  if (tfm_num_threads > availableCores())
    std::fprintf(stderr,
                 "warning: %d threads on %d cores: the kernels slow down "
                 "when threads outnumber cores\n",
                 tfm_num_threads, availableCores());
  tfm_set_num_threads(tfm_num_threads);

  std::string path = packagePath();
  Package package;
  if (!package.open(path, error)) {
    std::fprintf(stderr, "error: %s\n", error.c_str());
    return 1;
  }
  if (!checkPackageMatchesModel(package, path, error)) {
    std::fprintf(stderr, "error: %s\n", error.c_str());
    return 1;
  }
  if (options.verifyWeights && !package.verifyWeights(error)) {
    std::fprintf(stderr, "error: %s\n", error.c_str());
    return 1;
  }
  // --info describes a package for any machine; running it needs this
  // CPU to have the target's instructions.
  if (options.mode == CliMode::Info)
    return printModelInfo(package, path, tfm_num_threads);
  if (!checkCpuRunsModel(package, path, error)) {
    std::fprintf(stderr, "error: %s\n", error.c_str());
    return 1;
  }
  if (tfm_model.kind == TFM_KIND_ENCODER)
    return runEncoder(package, path, options);
  if (options.mode == CliMode::Embed || options.json) {
    std::fprintf(stderr,
                 "error: %s is for encoder models (BERT); this model "
                 "is %s\n",
                 options.json ? "--json" : "--embed",
                 tfm_model.kind == TFM_KIND_ENCODER_DECODER
                     ? "an encoder-decoder"
                     : "a decoder");
    return 1;
  }

  ModelRunner runner(tfm_model, linkedEntries());
  if (!runner.open(package.weights(), error)) {
    std::fprintf(stderr, "%s\n", error.c_str());
    return 1;
  }
  int status = 0;
  switch (options.mode) {
  case CliMode::Bench:
    noteRandomWeights(package);
    status = runBench(runner, options, tfm_num_threads);
    break;
  case CliMode::DumpLogits:
    status = runDumpLogits(runner, options);
    break;
  default: {
    std::string_view note = package.get("model.note");
    if (!note.empty())
      std::fprintf(stderr, "note: %.*s\n", int(note.size()), note.data());
    status = generate(runner, package, path, options);
    break;
  }
  }
  // A device's failed launch (CUDA) leaves no trace in the logits.
  if (!runner.finish(error)) {
    std::fprintf(stderr, "%s\n", error.c_str());
    return 1;
  }
  return status;
}
