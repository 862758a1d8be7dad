//===- Cli.cpp - Command line of produced executables ---------------------===//
//
// A table lists each flag with the modes it belongs to, so a flag given to the
// wrong mode (e.g. --temp with --bench) is an error instead of being silently
// ignored.
//
//===----------------------------------------------------------------------===//

#include "runtime/Cli.h"

#include "runtime/EncoderOutputs.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>

namespace tfm::rt {

namespace {

enum ModeMask : unsigned {
  kGenerate = 1u << static_cast<unsigned>(CliMode::Generate),
  kBench = 1u << static_cast<unsigned>(CliMode::Bench),
  kDump = 1u << static_cast<unsigned>(CliMode::DumpLogits),
  kInfo = 1u << static_cast<unsigned>(CliMode::Info),
  kEmbed = 1u << static_cast<unsigned>(CliMode::Embed),
  kAll = kGenerate | kBench | kDump | kInfo | kEmbed,
};

struct FlagSpec {
  const char *name;
  bool takesValue;
  unsigned modes; ///< Modes the flag may appear in.
};

const FlagSpec kFlags[] = {
    {"--prompt", true, kGenerate | kEmbed},
    {"-n", true, kGenerate | kBench},
    {"--temp", true, kGenerate},
    {"--top-k", true, kGenerate},
    {"--top-p", true, kGenerate},
    {"--min-p", true, kGenerate},
    {"--repetition-penalty", true, kGenerate},
    {"--stop", true, kGenerate},
    {"--seed", true, kGenerate},
    {"--bench", false, kBench},
    {"--prompt-tokens", true, kBench},
    {"--far-position", true, kBench},
    {"--threads", true, kAll},
    {"--dump-logits", true, kDump},
    {"--token-ids", true, kDump | kEmbed},
    {"--decode-only", false, kDump},
    {"--info", false, kInfo},
    {"--source-ids", true, kDump},
    {"--verify-weights", false, kAll},
    {"--json", false, kGenerate},
    {"--embed", false, kEmbed},
    {"--pooling", true, kEmbed},
    {"--normalize", true, kEmbed},
};

const char *modeFlag(CliMode mode) {
  switch (mode) {
  case CliMode::Bench:
    return "--bench";
  case CliMode::DumpLogits:
    return "--dump-logits";
  case CliMode::Info:
    return "--info";
  case CliMode::Embed:
    return "--embed";
  default:
    return "text generation";
  }
}

const FlagSpec *findFlag(const std::string &name) {
  for (const FlagSpec &flag : kFlags)
    if (name == flag.name)
      return &flag;
  return nullptr;
}

/// One flag occurrence after splitting "--flag=value".
struct FlagUse {
  const FlagSpec *spec;
  std::string value;
};

bool parseInt(const std::string &flag, const std::string &text, long long min,
              long long max, long long &out, std::string &error) {
  errno = 0;
  char *end = nullptr;
  long long value = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno == ERANGE) {
    error = "error: " + flag + " expects an integer, got '" + text + "'";
    return false;
  }
  if (value < min || value > max) {
    std::string range = max != INT32_MAX ? "in [" + std::to_string(min) + ", " +
                                               std::to_string(max) + "]"
                        : value < min    ? ">= " + std::to_string(min)
                                         : "at most " + std::to_string(max);
    error = "error: " + flag + " must be " + range + ", got " + text;
    return false;
  }
  out = value;
  return true;
}

bool parseFloat(const std::string &flag, const std::string &text, float &out,
                std::string &error) {
  errno = 0;
  char *end = nullptr;
  float value = std::strtof(text.c_str(), &end);
  if (text.empty() || *end != '\0' || std::isnan(value)) {
    error = "error: " + flag + " expects a number, got '" + text + "'";
    return false;
  }
  // ERANGE also marks an underflow (1e-45 is a denormal, a fine value);
  // only an overflow is out of range.
  if (std::isinf(value)) {
    error = "error: " + flag + " " + text +
            " is beyond the range of a 32-bit float";
    return false;
  }
  out = value;
  return true;
}

bool parseSeed(const std::string &text, uint64_t &out, std::string &error) {
  errno = 0;
  char *end = nullptr;
  unsigned long long value = std::strtoull(text.c_str(), &end, 10);
  if (text.empty() || text[0] == '-' || *end != '\0' || errno == ERANGE) {
    error = "error: --seed expects a non-negative integer, got '" + text + "'";
    return false;
  }
  out = value;
  return true;
}

/// Parses "1,5,9" into ids; ids are checked against the vocabulary later.
bool parseTokenIds(const std::string &flag, const std::string &text,
                   std::vector<int> &ids, std::string &error) {
  ids.clear();
  size_t start = 0;
  while (true) {
    size_t comma = text.find(',', start);
    std::string item = text.substr(start, comma - start);
    long long id = 0;
    if (!parseInt(flag, item, 0, INT32_MAX, id, error))
      return false;
    ids.push_back(static_cast<int>(id));
    if (comma == std::string::npos)
      return true;
    start = comma + 1;
  }
}

/// Stores one flag's value into `options`.
bool applyFlag(const FlagUse &use, CliOptions &options, std::string &error) {
  std::string name = use.spec->name;
  const std::string &value = use.value;
  long long number = 0;
  if (name == "--prompt") {
    options.prompt = value;
  } else if (name == "-n") {
    if (!parseInt(name, value, 0, INT32_MAX, number, error))
      return false;
    options.steps = static_cast<int>(number);
    options.stepsGiven = true;
  } else if (name == "--temp") {
    if (!parseFloat(name, value, options.temperature, error))
      return false;
    if (options.temperature < 0.0f) {
      error = "error: --temp must be >= 0, got " + value;
      return false;
    }
    options.temperatureGiven = true;
  } else if (name == "--top-k") {
    if (!parseInt(name, value, 0, INT32_MAX, number, error))
      return false;
    options.topK = static_cast<int>(number);
    options.topKGiven = true;
  } else if (name == "--json") {
    options.json = true;
  } else if (name == "--pooling") {
    if (!isPoolingMode(value)) {
      error = "error: --pooling must be mean, cls, max, mean_sqrt_len or "
              "last, got '" +
              value + "'";
      return false;
    }
    options.pooling = value;
  } else if (name == "--normalize") {
    if (value != "true" && value != "false") {
      error = "error: --normalize must be true or false, got '" + value + "'";
      return false;
    }
    options.normalize = value == "true" ? 1 : 0;
  } else if (name == "--top-p") {
    if (!parseFloat(name, value, options.topP, error))
      return false;
    if (!(options.topP > 0.0f && options.topP <= 1.0f)) {
      error = "error: --top-p must be in (0, 1], got " + value;
      return false;
    }
    options.topPGiven = true;
  } else if (name == "--min-p") {
    if (!parseFloat(name, value, options.minP, error))
      return false;
    if (!(options.minP >= 0.0f && options.minP <= 1.0f)) {
      error = "error: --min-p must be in [0, 1], got " + value;
      return false;
    }
    options.minPGiven = true;
  } else if (name == "--repetition-penalty") {
    if (!parseFloat(name, value, options.repetitionPenalty, error))
      return false;
    if (!(options.repetitionPenalty > 0.0f)) {
      error = "error: --repetition-penalty must be > 0, got " + value;
      return false;
    }
    options.repetitionPenaltyGiven = true;
  } else if (name == "--stop") {
    if (value.empty()) {
      error = "error: --stop needs a non-empty string";
      return false;
    }
    options.stops.push_back(value);
  } else if (name == "--seed") {
    if (!parseSeed(value, options.seed, error))
      return false;
    options.seedGiven = true;
  } else if (name == "--prompt-tokens") {
    if (!parseInt(name, value, 1, INT32_MAX, number, error))
      return false;
    options.promptTokens = static_cast<int>(number);
  } else if (name == "--far-position") {
    if (!parseInt(name, value, 1, INT32_MAX, number, error))
      return false;
    options.farPosition = static_cast<int>(number);
  } else if (name == "--threads") {
    if (!parseInt(name, value, 1, 4096, number, error))
      return false;
    options.threads = static_cast<int>(number);
  } else if (name == "--dump-logits") {
    options.dumpPath = value;
  } else if (name == "--token-ids") {
    return parseTokenIds(name, value, options.tokenIds, error);
  } else if (name == "--source-ids") {
    return parseTokenIds(name, value, options.sourceIds, error);
  } else if (name == "--decode-only") {
    options.decodeOnly = true;
  } else if (name == "--verify-weights") {
    options.verifyWeights = true;
  }
  return true;
}

/// Splits argv into flag uses; reports unknown flags and missing values.
bool collectFlags(int argc, const char *const *argv, std::vector<FlagUse> &uses,
                  std::string &error) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    std::string name = arg, value;
    bool inlineValue = false;
    size_t eq = arg.find('=');
    if (arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      name = arg.substr(0, eq);
      value = arg.substr(eq + 1);
      inlineValue = true;
    }
    const FlagSpec *spec = findFlag(name);
    if (!spec) {
      if (arg.empty() || arg[0] != '-')
        error = "error: unexpected argument '" + arg + "' (see --help)";
      else
        error = "error: unknown option '" + name + "' (see --help)";
      return false;
    }
    if (!spec->takesValue && inlineValue) {
      error = "error: " + name + " takes no value";
      return false;
    }
    if (spec->takesValue && !inlineValue) {
      if (i + 1 >= argc) {
        error = "error: " + name + " needs a value";
        return false;
      }
      value = argv[++i];
    }
    uses.push_back({spec, value});
  }
  return true;
}

/// The mode selected by --bench / --dump-logits / --info (at most one).
bool selectMode(const std::vector<FlagUse> &uses, CliMode &mode,
                std::string &error) {
  mode = CliMode::Generate;
  for (const FlagUse &use : uses) {
    CliMode flagMode;
    std::string name = use.spec->name;
    if (name == "--bench")
      flagMode = CliMode::Bench;
    else if (name == "--dump-logits")
      flagMode = CliMode::DumpLogits;
    else if (name == "--info")
      flagMode = CliMode::Info;
    else if (name == "--embed")
      flagMode = CliMode::Embed;
    else
      continue;
    if (mode != CliMode::Generate && mode != flagMode) {
      error = std::string("error: ") + modeFlag(mode) + " and " + name +
              " cannot be combined";
      return false;
    }
    mode = flagMode;
  }
  return true;
}

} // namespace

bool isPoolingMode(const std::string &mode) {
  for (const char *known : kPoolingModes)
    if (mode == known)
      return true;
  return false;
}

bool parseCommandLine(int argc, const char *const *argv, CliOptions &options,
                      std::string &error) {
  options = CliOptions();
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--help") == 0 ||
        std::strcmp(argv[i], "-h") == 0) {
      options.mode = CliMode::Help;
      return true;
    }
  }
  std::vector<FlagUse> uses;
  if (!collectFlags(argc, argv, uses, error) ||
      !selectMode(uses, options.mode, error))
    return false;

  unsigned modeBit = 1u << static_cast<unsigned>(options.mode);
  for (const FlagUse &use : uses) {
    if (!(use.spec->modes & modeBit)) {
      error = std::string("error: ") + use.spec->name +
              " cannot be used with " + modeFlag(options.mode);
      return false;
    }
    if (!applyFlag(use, options, error))
      return false;
  }
  if (options.mode == CliMode::Bench && !options.stepsGiven)
    options.steps = 128;
  if (options.mode == CliMode::Bench && options.steps < 1) {
    error = "error: -n must be >= 1 with --bench";
    return false;
  }
  if (options.mode == CliMode::Embed &&
      options.prompt.empty() == options.tokenIds.empty()) {
    error = "error: --embed needs --prompt TEXT or --token-ids (one of them)";
    return false;
  }
  if (options.mode == CliMode::DumpLogits && options.tokenIds.empty()) {
    error = "error: --dump-logits needs --token-ids (e.g. --token-ids 1,5,9)";
    return false;
  }
  return true;
}

std::string usageText(const std::string &program, UsageKind kind) {
  const std::string p = "  " + program;
  std::string text = "usage:\n";
  if (kind == UsageKind::Decoder)
    text += p + " [--prompt TEXT] [-n N] [sampling] [--stop STRING]...\n"
                "      Generate up to N new tokens (default 256) after TEXT "
                "(`--prompt -`: read\n"
                "      it from stdin), streaming them to stdout. Generation "
                "ends at any of the\n"
                "      model's end-of-sequence ids, or before the first "
                "--stop string.\n";
  if (kind == UsageKind::EncoderDecoder)
    text += p + " --prompt TEXT [-n N] [sampling] [--stop STRING]...\n"
                "      Encode TEXT and print up to N tokens (default 256) that "
                "the decoder\n"
                "      writes from its start token, stopping at end of "
                "sequence.\n";
  if (kind != UsageKind::Encoder)
    text += "      sampling: --temp T (0: greedy), --top-k K (0: off), --top-p "
            "P (1: off),\n"
            "      --min-p M (0: off), --repetition-penalty R (1: off), --seed "
            "S (default:\n"
            "      the clock). Flags not given take the model's "
            "generation_config.json values\n"
            "      when it had one (greedy unless it samples), else raw "
            "sampling at T 1.\n" +
            p +
            " --bench [--prompt-tokens P] [-n N] [--far-position Q] "
            "[--threads T]\n"
            "      Time prefill of P tokens (default 128) and N decode steps "
            "(default 128);\n"
            "      with Q, also time N steps at positions Q.. in bursts "
            "interleaved with\n"
            "      steps at P.. (what attending Q - P more positions costs). "
            "The last\n"
            "      line of output is a JSON object.\n";
  if (kind == UsageKind::Decoder)
    text += p + " --dump-logits FILE --token-ids 1,5,9 [--decode-only]\n"
                "      Run exactly these ids from position 0 and write the "
                "logits of every\n"
                "      position as little-endian float32 [n][vocab] to "
                "FILE.\n";
  if (kind == UsageKind::EncoderDecoder)
    text += p + " --dump-logits FILE --source-ids 5,9,1 --token-ids 0,7,3\n"
                "      Encode the source ids, then dump the decoder's logits "
                "for --token-ids.\n";
  if (kind == UsageKind::Encoder)
    text += p +
            " --prompt \"... [MASK] ...\" [--top-k K] [--json]\n"
            "      Print the K (default 5) likeliest tokens at each [MASK]; "
            "with --json one\n"
            "      line per mask: {\"position\": P, \"top\": [{\"id\": I, "
            "\"token\": T, \"logit\": L}, ...]}.\n" +
            p +
            " --embed (--prompt TEXT | --token-ids 1,5,9) [--pooling MODE] "
            "[--normalize=true|false]\n"
            "      Print {\"pooling\": ..., \"tokens\": N, \"embedding\": "
            "[...]}: the final hidden\n"
            "      states of the N tokens ([CLS] and [SEP] included) pooled "
            "by MODE (mean,\n"
            "      cls, max, mean_sqrt_len or last), L2-normalised or not; by "
            "default as the\n"
            "      model was trained (a sentence-transformers directory's "
            "modules, a GGUF's\n"
            "      pooling type), else mean and not normalised.\n" +
            p +
            " --dump-logits FILE --token-ids 1,5,9\n"
            "      Write the masked-LM logits (hidden states without a head) "
            "of every\n"
            "      position as little-endian float32 to FILE.\n" +
            p +
            " --bench [--prompt-tokens P]   Time encode calls of P tokens.\n";
  text += p + " --info      Print the model's shapes and description.\n" + p +
          " --help      Print this text.\n"
          "--threads T (any mode) runs the kernels on T threads (default: "
          "OMP_NUM_THREADS,\n"
          "else every core). --verify-weights (any mode) first checks every "
          "byte of the\n"
          "weights against the checksum written at compile time.\n"
          "Options take their value as the next argument or as "
          "--flag=value.\n"
          "TFM_PACKAGE=path reads the weights package from `path` instead of "
          "the executable.\n";
  return text;
}

} // namespace tfm::rt
