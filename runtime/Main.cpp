//===- Main.cpp - main() of every executable tfmc produces ----------------===//
//
// Opens the package appended to the executable (or the one TFM_PACKAGE names),
// checks it belongs to the compiled code it is linked with, then hands off to
// generation, --bench, --dump-logits or --info (an encoder's: fill-mask,
// --embed, --bench, --dump-logits or --info).
//
//===----------------------------------------------------------------------===//

#include "runtime/Cli.h"
#include "runtime/Encode.h"
#include "runtime/Generate.h"
#include "runtime/ModelABI.h"
#include "runtime/Package.h"
#include "runtime/PackageCheck.h"
#include "runtime/Tokenizer.h"
#include "runtime/model/ModelEntries.h"

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <unistd.h>

namespace {

int defaultThreads() {
  unsigned n = std::thread::hardware_concurrency();
  return n > 0 ? static_cast<int>(n) : 1;
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

int printInfo(const Package &package, const std::string &path) {
  std::string description(package.get("model.description"));
  std::string tokenizer(package.get("tokenizer.kind"));
  double cacheMiB = double(tfm_model.cache_bytes) / (1024.0 * 1024.0);
  std::printf("description: %s\n",
              description.empty() ? "(none)" : description.c_str());
  std::printf("vocab: %u\ncontext: %u\nprefill chunk: %u\n",
              tfm_model.vocab_size, tfm_model.context_length,
              tfm_model.prefill_chunk);
  std::printf("weights: %" PRIu64 " bytes\n", tfm_model.weights_bytes);
  std::printf("kv cache: %" PRIu64 " bytes (%.2f MiB, %s)\n",
              tfm_model.cache_bytes, cacheMiB,
              tfm_model.cache_element_bytes == 2 ? "f16" : "f32");
  std::printf("weights hash: 0x%016" PRIx64 "\n", tfm_model.weights_hash);
  std::printf("abi version: %u\n", tfm_model.abi_version);
  std::printf("device: %s\n", tfm_model.device == TFM_DEVICE_HOST ? "host"
                              : tfm_model.device == TFM_DEVICE_CUDA
                                  ? "cuda"
                                  : "unknown");
  if (tfm_model.kind == TFM_KIND_ENCODER)
    std::printf("kind: encoder (hidden %u, %s)\n", tfm_model.hidden_size,
                tfm_model.encode_logits ? "masked-LM head"
                                        : "no masked-LM head");
  else if (tfm_model.kind == TFM_KIND_ENCODER_DECODER)
    std::printf("kind: encoder-decoder (decoder start token %u)\n",
                tfm_model.decoder_start_token);
  else
    std::printf("kind: decoder\n");
  std::printf("tokenizer: %s\n",
              tokenizer.empty() ? "(none)" : tokenizer.c_str());
  std::printf("threads: %d\npackage: %s\n", tfm_num_threads, path.c_str());
  return 0;
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

int generate(ModelRunner &runner, const Package &package,
             const std::string &path, const CliOptions &options) {
  int bos = -1, eos = -1;
  std::unique_ptr<Tokenizer> tokenizer = openTokenizer(package, path, bos, eos);
  if (!tokenizer)
    return 1;
  return runGenerate(runner, *tokenizer, bos, eos, options);
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
  if (options.mode == CliMode::Bench)
    return runEncoderBench(runner, options, tfm_num_threads);
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
    CliOptions embed = options;
    if (embed.pooling.empty())
      embed.pooling = std::string(package.get("embedding.pooling"));
    if (embed.pooling.empty()) // packages of tfmc before the key
      embed.pooling = "mean";
    return runEmbed(runner, tokenizer.get(), embed);
  }
  if (options.stepsGiven || options.temperature != 1.0f ||
      options.topP != 1.0f || options.seedGiven) {
    std::fprintf(stderr, "error: -n, --temp, --top-p and --seed are for "
                         "decoders; an encoder fills [MASK] tokens (see "
                         "--help)\n");
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
  if (options.threads > 0)
    tfm_num_threads = options.threads;
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
  if (options.mode == CliMode::Info)
    return printInfo(package, path);
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
  switch (options.mode) {
  case CliMode::Bench:
    return runBench(runner, options, tfm_num_threads);
  case CliMode::DumpLogits:
    return runDumpLogits(runner, options);
  default: {
    std::string_view note = package.get("model.note");
    if (!note.empty())
      std::fprintf(stderr, "note: %.*s\n", int(note.size()), note.data());
    return generate(runner, package, path, options);
  }
  }
}
