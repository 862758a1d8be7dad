//===- Cli.h - Command line of produced executables -----------------------===//
//
// Every executable tfmc produces accepts the same flags; this file turns
// argv into a validated `CliOptions` so the rest of main() never sees a raw
// string. Range checks that need the model (vocab, context) happen later.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_RUNTIME_CLI_H
#define TFMC_RUNTIME_CLI_H

#include <cstdint>
#include <string>
#include <vector>

namespace tfm::rt {

/// What the executable was asked to do.
/// Generate is fill-mask for an encoder; Embed is for encoders only.
enum class CliMode { Generate, Bench, DumpLogits, Info, Embed, Help };

struct CliOptions {
  CliMode mode = CliMode::Generate;

  // Generation.
  std::string prompt;
  int steps = 256; ///< -n: new tokens (generate) or decode steps (bench).
  bool stepsGiven = false;
  // Sampling; each flag the user gives wins over the model's
  // generation_config.json (GenerationSettings.h), whose absence means raw
  // sampling at temperature 1.
  float temperature = 1.0f;
  bool temperatureGiven = false;
  int topK = 0;
  float topP = 1.0f;
  bool topPGiven = false;
  float minP = 0.0f;
  bool minPGiven = false;
  float repetitionPenalty = 1.0f;
  bool repetitionPenaltyGiven = false;
  uint64_t seed = 0;
  bool seedGiven = false;
  /// --stop STRING (repeatable): generation ends where one first appears.
  std::vector<std::string> stops;

  // Benchmark.
  int promptTokens = 128;
  /// --far-position Q: also time decode steps at positions Q.. interleaved
  /// with the near ones (0: off).
  int farPosition = 0;
  int threads = 0; ///< 0 keeps the default thread count.
  /// --verify-weights: check the weights checksum before anything else.
  bool verifyWeights = false;

  // Encoders: fill-mask prints --top-k predictions (default 5) per [MASK],
  // as JSON lines with --json; --embed pools the final hidden states.
  bool json = false;
  bool topKGiven = false;
  /// "mean", "cls", "max", "mean_sqrt_len" or "last"; empty: the model's
  /// (its package's `embedding.pooling`, else mean).
  std::string pooling;
  /// --normalize=true|false: L2-normalise the pooled vector; unset: as the
  /// model's package says (`embedding.normalize`).
  int normalize = -1;

  // Logit dump.
  std::string dumpPath;
  std::vector<int> tokenIds;
  /// An encoder-decoder's encoder input (--source-ids); tokenIds are then
  /// the decoder's.
  std::vector<int> sourceIds;
  bool decodeOnly = false;
};

/// "mean", "cls", "max", "mean_sqrt_len" or "last" (--pooling's values).
bool isPoolingMode(const std::string &mode);

/// Parses argv. On failure returns false with `error` set to a message that
/// starts with "error: ".
bool parseCommandLine(int argc, const char *const *argv, CliOptions &options,
                      std::string &error);

/// Which entries the executable's model has: its --help describes its own
/// modes only.
enum class UsageKind { Decoder, Encoder, EncoderDecoder };

/// The --help text; `program` is argv[0].
std::string usageText(const std::string &program, UsageKind kind);

} // namespace tfm::rt

#endif // TFMC_RUNTIME_CLI_H
