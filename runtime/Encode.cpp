//===- Encode.cpp - Drive a compiled encoder: fill-mask, embeddings -------===//
#include "runtime/Encode.h"

#include "runtime/EncoderOutputs.h"
#include "runtime/Tokenizer.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <numeric>

namespace tfm::rt {

namespace {

/// `text` as a JSON string literal.
std::string jsonString(const std::string &text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\t':
      out += "\\t";
      break;
    case '\r':
      out += "\\r";
      break;
    default:
      if (c < 0x20) {
        char escaped[8];
        std::snprintf(escaped, sizeof(escaped), "\\u%04x", c);
        out += escaped;
      } else {
        out += char(c);
      }
    }
  }
  return out + "\"";
}

/// Encodes `prompt` with the tokenizer's special tokens ([CLS] ... [SEP]).
bool tokenize(const Tokenizer &tokenizer, const std::string &prompt,
              std::vector<int32_t> &ids, std::string &error) {
  std::vector<int> encoded;
  if (!tokenizer.encode(prompt, /*addSpecialTokens=*/true, encoded, error)) {
    error = "error: cannot tokenize the prompt: " + error;
    return false;
  }
  ids.assign(encoded.begin(), encoded.end());
  return true;
}

} // namespace

int runFillMask(EncoderRunner &runner, const Tokenizer &tokenizer,
                const CliOptions &options) {
  std::string error;
  if (!runner.hasLogits()) {
    std::fprintf(stderr,
                 "error: this model has no masked-LM head (a checkpoint "
                 "without cls.predictions, e.g. BertModel), so it cannot "
                 "fill masks; --embed prints its sentence embedding\n");
    return 1;
  }
  if (options.topKGiven && options.topK < 1) {
    std::fprintf(stderr, "error: --top-k must be >= 1 for fill-mask\n");
    return 1;
  }
  int mask = tokenizer.tokenId("[MASK]");
  if (mask < 0) {
    std::fprintf(stderr, "error: the tokenizer has no [MASK] token\n");
    return 1;
  }
  std::vector<int32_t> ids;
  if (!tokenize(tokenizer, options.prompt, ids, error) ||
      !runner.check(ids, "the prompt", error)) {
    std::fprintf(stderr, "%s\n", error.c_str());
    return 1;
  }
  std::vector<int> masks;
  for (size_t i = 0; i < ids.size(); ++i)
    if (ids[i] == mask)
      masks.push_back(static_cast<int>(i));
  if (masks.empty()) {
    std::fprintf(stderr,
                 "error: the prompt has no [MASK] token: fill-mask predicts "
                 "the token at each [MASK] (e.g. --prompt \"the capital of "
                 "france is [MASK].\"); --embed prints a sentence "
                 "embedding\n");
    return 1;
  }
  runner.encode(ids);
  int k = std::min(options.topKGiven ? options.topK : 5, runner.vocab());
  for (int position : masks) {
    const float *logits = runner.logits(position);
    std::vector<int> order = topLogits(logits, runner.vocab(), k);
    if (options.json) {
      std::string line =
          "{\"position\": " + std::to_string(position) + ", \"top\": [";
      for (int i = 0; i < k; ++i) {
        char logit[32];
        std::snprintf(logit, sizeof(logit), "%.9g", logits[order[i]]);
        line += std::string(i ? ", " : "") +
                "{\"id\": " + std::to_string(order[i]) +
                ", \"token\": " + jsonString(tokenizer.tokenString(order[i])) +
                ", \"logit\": " + logit + "}";
      }
      std::printf("%s]}\n", line.c_str());
      continue;
    }
    std::printf("[MASK] at position %d:\n", position);
    for (int i = 0; i < k; ++i) {
      // Ids past the tokenizer's vocabulary (a model's padded embedding
      // table) have no string.
      std::string token = tokenizer.tokenString(order[i]);
      std::printf("  %d. %-16s id %-6d logit %.4f\n", i + 1,
                  token.empty() ? "(no token)" : token.c_str(), order[i],
                  logits[order[i]]);
    }
  }
  std::fflush(stdout);
  return 0;
}

int runEmbed(EncoderRunner &runner, const Tokenizer *tokenizer,
             const CliOptions &options) {
  std::string error;
  std::vector<int32_t> ids(options.tokenIds.begin(), options.tokenIds.end());
  std::string what = "--token-ids";
  if (!options.prompt.empty()) {
    what = "the prompt";
    if (!tokenize(*tokenizer, options.prompt, ids, error)) {
      std::fprintf(stderr, "%s\n", error.c_str());
      return 1;
    }
  }
  if (!runner.check(ids, what, error)) {
    std::fprintf(stderr, "%s\n", error.c_str());
    return 1;
  }
  runner.encode(ids);
  bool normalize = options.normalize == 1;
  std::vector<double> pooled = poolHiddenStates(
      runner, static_cast<int>(ids.size()), options.pooling, normalize);
  int dim = runner.hiddenSize();
  std::printf("{\"pooling\": \"%s\", \"normalized\": %s, \"tokens\": %zu, "
              "\"embedding\": [",
              options.pooling.c_str(), normalize ? "true" : "false",
              ids.size());
  for (int i = 0; i < dim; ++i)
    std::printf("%s%.9g", i ? ", " : "", float(pooled[i]));
  std::printf("]}\n");
  std::fflush(stdout);
  return 0;
}

int runEncoderDump(EncoderRunner &runner, const CliOptions &options) {
  if (options.decodeOnly) {
    std::fprintf(stderr, "error: --decode-only is for decoders; an encoder "
                         "runs every position at once\n");
    return 1;
  }
  std::string error;
  std::vector<int32_t> ids(options.tokenIds.begin(), options.tokenIds.end());
  if (!runner.check(ids, "--token-ids", error)) {
    std::fprintf(stderr, "%s\n", error.c_str());
    return 1;
  }
  runner.encode(ids);
  bool logits = runner.hasLogits();
  size_t width = logits ? runner.vocab() : runner.hiddenSize();
  std::FILE *out = std::fopen(options.dumpPath.c_str(), "wb");
  if (!out) {
    std::fprintf(stderr, "error: cannot open '%s' for writing: %s\n",
                 options.dumpPath.c_str(), std::strerror(errno));
    return 1;
  }
  size_t written = 0;
  for (size_t row = 0; row < ids.size(); ++row) {
    int position = static_cast<int>(row);
    const float *data =
        logits ? runner.logits(position) : runner.hidden(position);
    written += std::fwrite(data, sizeof(float), width, out);
  }
  if (std::fclose(out) != 0 || written != ids.size() * width) {
    std::fprintf(stderr, "error: writing '%s' failed: %s\n",
                 options.dumpPath.c_str(), std::strerror(errno));
    return 1;
  }
  return 0;
}

namespace {

/// The rows that a call of `tokens` computes: the first of the
/// comma-separated `rows` (encode.rows) that holds them, else the whole
/// `sequence`.
int encodeRowsFor(std::string_view rows, int tokens, int sequence) {
  while (!rows.empty()) {
    size_t comma = rows.find(',');
    std::string_view entry = rows.substr(0, comma);
    int value = 0;
    auto [end, error] =
        std::from_chars(entry.data(), entry.data() + entry.size(), value);
    if (error == std::errc() && end == entry.data() + entry.size() &&
        value >= tokens && value <= sequence)
      return value;
    rows = comma == std::string_view::npos ? std::string_view()
                                           : rows.substr(comma + 1);
  }
  return sequence;
}

} // namespace

int runEncoderBench(EncoderRunner &runner, const CliOptions &options,
                    int threads, std::string_view encodeRows) {
  using Clock = std::chrono::steady_clock;
  int tokens = std::min(options.promptTokens, runner.sequence());
  // The entry a call of `tokens` runs computes this many rows.
  int rows = encodeRowsFor(encodeRows, tokens, runner.sequence());
  // An encode call costs a whole sequence: a few calls suffice.
  int calls = options.stepsGiven ? options.steps : 5;
  std::vector<int32_t> ids(tokens);
  for (int i = 0; i < tokens; ++i)
    ids[i] = static_cast<int32_t>((size_t(i) * 7919 + 13) % runner.vocab());
  runner.encode(ids); // Warm-up: page in the weights.
  double best = 1e30, total = 0;
  for (int call = 0; call < calls; ++call) {
    Clock::time_point start = Clock::now();
    runner.encode(ids);
    double seconds =
        std::chrono::duration<double>(Clock::now() - start).count();
    best = std::min(best, seconds);
    total += seconds;
  }
  double rate = best > 0 ? tokens / best : 0.0;
  std::printf("model: encoder, vocab %d, sequence %d, hidden %d, threads %d\n",
              runner.vocab(), runner.sequence(), runner.hiddenSize(), threads);
  std::printf("encode: %d tokens (%d rows computed) in %.3f ms (%.2f "
              "tokens/s, best of %d; mean %.3f ms)\n",
              tokens, rows, best * 1e3, rate, calls, total / calls * 1e3);
  std::printf("{\"encode_tokens_per_s\": %.3f, \"encode_ms\": %.3f, "
              "\"threads\": %d, \"tokens\": %d, \"rows\": %d, "
              "\"sequence\": %d, \"vocab\": %d}\n",
              rate, best * 1e3, threads, tokens, rows, runner.sequence(),
              runner.vocab());
  std::fflush(stdout);
  return 0;
}

} // namespace tfm::rt
