//===- Generate.cpp - Drive the compiled model: generation, bench, dumps --===//

#include "runtime/Generate.h"

#include "runtime/Sampler.h"
#include "runtime/StopStrings.h"
#include "runtime/Tokenizer.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <unistd.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "--dump-logits writes host floats and promises little-endian output"
#endif

namespace tfm::rt {

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// Writes `piece` to stdout right away so text appears as it is generated.
void emit(const std::string &piece) {
  std::fwrite(piece.data(), 1, piece.size(), stdout);
  std::fflush(stdout);
}

/// Runs differ unless asked otherwise; pid keeps parallel runs apart.
uint64_t clockSeed() {
  uint64_t now = static_cast<uint64_t>(
      std::chrono::system_clock::now().time_since_epoch().count());
  return now ^ (static_cast<uint64_t>(::getpid()) << 32);
}

double perSecond(int tokens, double seconds) {
  return tokens > 0 && seconds > 0 ? tokens / seconds : 0.0;
}

} // namespace

//===----------------------------------------------------------------------===//
// Generation
//===----------------------------------------------------------------------===//

namespace {

/// Encodes the prompt with the tokenizer's special tokens (BOS) and checks
/// it against the model's limits.
bool encodePrompt(const ModelRunner &runner, const Tokenizer &tokenizer,
                  int eos, const std::string &text, std::vector<int32_t> &ids,
                  std::string &error) {
  std::vector<int> encoded;
  if (!tokenizer.encode(text, /*addSpecialTokens=*/true, encoded, error)) {
    error = "error: " + error;
    return false;
  }
  // Models without BOS (GPT-2 style) start an empty prompt from EOS, which is
  // also their document separator.
  if (encoded.empty() && eos >= 0)
    encoded.push_back(eos);
  if (encoded.empty()) {
    error = "error: the prompt is empty and the model has no BOS token to "
            "start from; pass --prompt TEXT";
    return false;
  }
  if (encoded.size() > static_cast<size_t>(runner.context())) {
    error = "error: prompt is " + std::to_string(encoded.size()) +
            " tokens but the model's context is " +
            std::to_string(runner.context()) + " tokens";
    return false;
  }
  for (int id : encoded) {
    if (id < 0 || id >= runner.vocab()) {
      error = "error: prompt token " + std::to_string(id) +
              " is outside the model's vocabulary of " +
              std::to_string(runner.vocab());
      return false;
    }
  }
  ids.assign(encoded.begin(), encoded.end());
  return true;
}

/// Prints the prompt the way generation will continue it (llama2.c style):
/// special tokens such as BOS print nothing.
void emitPrompt(Detokenizer &detokenizer, const std::vector<int32_t> &ids) {
  for (int32_t id : ids)
    emit(detokenizer.step(id));
}

} // namespace

int runGenerate(ModelRunner &runner, const Tokenizer &tokenizer, int bos,
                int eos, const ModelGeneration &generation,
                const CliOptions &options) {
  std::vector<int32_t> ids;
  std::string error;
  if (!encodePrompt(runner, tokenizer, eos, options.prompt, ids, error)) {
    std::fprintf(stderr, "%s\n", error.c_str());
    return 1;
  }
  // An encoder-decoder reads the prompt with its encoder and writes its
  // answer from the decoder's start token: only the answer is printed.
  bool seq2seq = runner.isSeq2Seq();
  if (seq2seq) {
    if (!runner.encodeSource(ids.data(), static_cast<int>(ids.size()), error)) {
      std::fprintf(stderr, "%s\n", error.c_str());
      return 1;
    }
    ids.assign(1, static_cast<int32_t>(runner.info().decoder_start_token));
    bos = -1;
  }
  SamplerOptions samplerOptions = mergeSampling(generation.sampler, options);
  if (!options.seedGiven)
    samplerOptions.seed = clockSeed();
  Sampler sampler(samplerOptions);
  StopStringFilter stops(options.stops);
  // Ids past the tokenizer's vocabulary (padded LM heads) cannot be printed,
  // so they are never sampled.
  int sampleVocab = std::min(runner.vocab(), tokenizer.vocabSize());

  std::unique_ptr<Detokenizer> detokenizer = tokenizer.detokenizer();
  if (!seq2seq)
    emitPrompt(*detokenizer, ids);
  const float *logits =
      runner.feed(ids.data(), static_cast<int>(ids.size()), 0, false);
  std::vector<float> scratch(runner.vocab());
  int64_t pos = static_cast<int64_t>(ids.size());
  bool contextFull = false;
  int produced = 0;
  while (produced < options.steps) {
    if (std::optional<std::string> why = nonFiniteLogits(logits, sampleVocab)) {
      emit("\n");
      std::fprintf(stderr, "error: %s (position %lld)\n", why->c_str(),
                   static_cast<long long>(pos - 1));
      return 1;
    }
    std::copy(logits, logits + sampleVocab, scratch.begin());
    // The repetition penalty reads the whole sequence, prompt included.
    int next =
        sampler.sample(scratch.data(), sampleVocab, ids.data(), ids.size());
    // BOS also ends a sample: llama2.c-trained models emit it between stories.
    if (isStopId(generation, next) || (bos >= 0 && next == bos))
      break;
    emit(stops.push(detokenizer->step(next)));
    if (stops.stopped())
      break;
    ids.push_back(next);
    if (++produced == options.steps)
      break;
    if (pos >= runner.context()) {
      contextFull = true;
      break;
    }
    int32_t token = next;
    logits = runner.feed(&token, 1, pos++, false);
  }
  if (!stops.stopped()) {
    emit(stops.push(detokenizer->finish()));
    emit(stops.flush());
  }
  emit("\n");
  if (contextFull)
    std::fprintf(stderr,
                 "note: stopped after %d new tokens: the model's context of "
                 "%d tokens is full\n",
                 produced, runner.context());
  return 0;
}

//===----------------------------------------------------------------------===//
// Benchmark
//===----------------------------------------------------------------------===//

namespace {

/// Deterministic token ids spread over the vocabulary.
std::vector<int32_t> syntheticIds(size_t count, int vocab) {
  std::vector<int32_t> ids(count);
  for (size_t i = 0; i < count; ++i)
    ids[i] = static_cast<int32_t>((i * 7919 + 13) % vocab);
  return ids;
}

/// Seconds for `count` decode steps at positions [pos, pos + count).
double timeDecodeSteps(ModelRunner &runner, const std::vector<int32_t> &ids,
                       int pos, int count) {
  Clock::time_point start = Clock::now();
  for (int i = 0; i < count; ++i)
    runner.feed(&ids[pos + i], 1, pos + i, true);
  return secondsSince(start);
}

struct InterleavedRates {
  double near = 0; ///< tokens/s at positions near..near+steps-1
  double far = 0;  ///< tokens/s at positions far..far+steps-1
};

constexpr int kBurstSteps = 16;
constexpr int kInterleavedRounds = 3;

/// Decode near the start of the context and near `far`, in alternating
/// bursts of kBurstSteps: on a shared machine a busy moment then slows both
/// alike, where separate runs seconds apart can differ by more than what
/// attending the extra positions costs. The cache is filled up to `far`
/// first; near steps overwrite positions the far steps read, which changes
/// values, not work.
InterleavedRates timeInterleavedDecode(ModelRunner &runner,
                                       const std::vector<int32_t> &ids,
                                       int near, int far, int steps) {
  runner.feed(ids.data(), far, 0, false);
  double nearSeconds = 0, farSeconds = 0;
  // Round 0 warms up the far positions' cache pages and is not counted.
  for (int round = 0; round <= kInterleavedRounds; ++round) {
    for (int first = 0; first < steps; first += kBurstSteps) {
      int count = std::min(kBurstSteps, steps - first);
      // Alternating which goes first cancels any effect of the order.
      bool nearFirst = (first / kBurstSteps + round) % 2 == 0;
      int firstStart = (nearFirst ? near : far) + first;
      int secondStart = (nearFirst ? far : near) + first;
      double a = timeDecodeSteps(runner, ids, firstStart, count);
      double b = timeDecodeSteps(runner, ids, secondStart, count);
      if (round == 0)
        continue;
      nearSeconds += nearFirst ? a : b;
      farSeconds += nearFirst ? b : a;
    }
  }
  return {perSecond(steps * kInterleavedRounds, nearSeconds),
          perSecond(steps * kInterleavedRounds, farSeconds)};
}

} // namespace

int runBench(ModelRunner &runner, const CliOptions &options, int threads) {
  int context = runner.context();
  int promptTokens = options.promptTokens;
  int decodeTokens = options.steps;
  int far = options.farPosition;
  if (far > 0) {
    // Checked before any timing so a bad request fails fast; the far steps
    // are never capped, since their positions are the point.
    if (far <= promptTokens) {
      std::fprintf(stderr,
                   "error: --far-position %d must be greater than "
                   "--prompt-tokens %d\n",
                   far, promptTokens);
      return 1;
    }
    if (static_cast<int64_t>(far) + decodeTokens > context) {
      std::fprintf(stderr,
                   "error: --far-position %d with -n %d needs %lld positions "
                   "but the model's context is %d\n",
                   far, decodeTokens,
                   static_cast<long long>(far) + decodeTokens, context);
      return 1;
    }
  }
  // An encoder-decoder's decoder attends to a source: one of the prompt's
  // length (the encoder's own time is not measured).
  if (runner.isSeq2Seq()) {
    std::vector<int32_t> source = syntheticIds(
        static_cast<size_t>(std::min(promptTokens, context)), runner.vocab());
    std::string error;
    if (!runner.encodeSource(source.data(), static_cast<int>(source.size()),
                             error)) {
      std::fprintf(stderr, "%s\n", error.c_str());
      return 1;
    }
  }
  bool capped = static_cast<int64_t>(promptTokens) + decodeTokens > context;
  if (capped) {
    // Shrink both phases in proportion so a small context still measures
    // decode instead of spending every position on the prompt.
    int64_t total = static_cast<int64_t>(promptTokens) + decodeTokens;
    promptTokens = static_cast<int>(
        std::max<int64_t>(1, int64_t(promptTokens) * context / total));
    decodeTokens = context - promptTokens;
  }
  std::vector<int32_t> ids =
      syntheticIds(std::max(promptTokens + decodeTokens, far + decodeTokens),
                   runner.vocab());

  auto prefill = [&] {
    Clock::time_point start = Clock::now();
    runner.feed(ids.data(), promptTokens, 0, false);
    return secondsSince(start);
  };
  auto decode = [&] {
    return timeDecodeSteps(runner, ids, promptTokens, decodeTokens);
  };
  prefill(); // Warm-up: page in the weights, fault in the cache.
  decode();
  double bestPrefill = 1e30, bestDecode = 1e30;
  for (int run = 0; run < 3; ++run) {
    bestPrefill = std::min(bestPrefill, prefill());
    bestDecode = std::min(bestDecode, decode());
  }
  double prefillRate = perSecond(promptTokens, bestPrefill);
  double decodeRate = perSecond(decodeTokens, bestDecode);

  std::printf("model: vocab %d, context %d, prefill chunk %u, threads %d\n",
              runner.vocab(), context, runner.info().prefill_chunk, threads);
  if (capped)
    std::printf("note: %d prompt + %d decode tokens capped to fit the "
                "context\n",
                options.promptTokens, options.steps);
  std::printf("prefill: %d tokens in %.3f ms (%.2f tokens/s, best of 3)\n",
              promptTokens, bestPrefill * 1e3, prefillRate);
  std::printf("decode: %d tokens in %.3f ms (%.2f tokens/s, best of 3)\n",
              decodeTokens, bestDecode * 1e3, decodeRate);

  std::string farJson;
  if (far > 0) {
    InterleavedRates rates =
        timeInterleavedDecode(runner, ids, promptTokens, far, decodeTokens);
    double slowdown =
        rates.near > 0 ? 100.0 * (1.0 - rates.far / rates.near) : 0.0;
    std::printf("decode at positions %d..%d: %.2f tokens/s against %.2f at "
                "%d..%d, %.1f%% slower (%d-step bursts interleaved, %d "
                "rounds)\n",
                far, far + decodeTokens - 1, rates.far, rates.near,
                promptTokens, promptTokens + decodeTokens - 1, slowdown,
                kBurstSteps, kInterleavedRounds);
    char buffer[256];
    std::snprintf(buffer, sizeof(buffer),
                  ", \"far_position\": %d, \"interleaved_near_tokens_per_s\": "
                  "%.3f, \"interleaved_far_tokens_per_s\": %.3f, "
                  "\"far_slowdown_pct\": %.3f",
                  far, rates.near, rates.far, slowdown);
    farJson = buffer;
  }
  std::printf("{\"prefill_tokens_per_s\": %.3f, \"decode_tokens_per_s\": %.3f, "
              "\"threads\": %d, \"prompt_tokens\": %d, \"decode_tokens\": %d, "
              "\"vocab\": %d, \"context\": %d%s}\n",
              prefillRate, decodeRate, threads, promptTokens, decodeTokens,
              runner.vocab(), context, farJson.c_str());
  std::fflush(stdout);
  return 0;
}

//===----------------------------------------------------------------------===//
// Logit dump
//===----------------------------------------------------------------------===//

int runDumpLogits(ModelRunner &runner, const CliOptions &options) {
  if (runner.isSeq2Seq() != !options.sourceIds.empty()) {
    std::fprintf(stderr,
                 runner.isSeq2Seq()
                     ? "error: this model is an encoder-decoder: --dump-logits "
                       "needs --source-ids (the encoder's input) as well as "
                       "--token-ids (the decoder's)\n"
                     : "error: --source-ids is for encoder-decoder models "
                       "(T5); this model is a decoder\n");
    return 1;
  }
  if (runner.isSeq2Seq()) {
    std::vector<int32_t> source(options.sourceIds.begin(),
                                options.sourceIds.end());
    std::string error;
    if (!runner.encodeSource(source.data(), static_cast<int>(source.size()),
                             error)) {
      std::fprintf(stderr, "%s (--source-ids)\n", error.c_str());
      return 1;
    }
  }
  const std::vector<int> &given = options.tokenIds;
  if (given.size() > static_cast<size_t>(runner.context())) {
    std::fprintf(stderr,
                 "error: --token-ids has %zu ids but the model's context is "
                 "%d tokens\n",
                 given.size(), runner.context());
    return 1;
  }
  for (int id : given) {
    if (id >= runner.vocab()) {
      std::fprintf(stderr,
                   "error: --token-ids: id %d is outside the model's "
                   "vocabulary of %d\n",
                   id, runner.vocab());
      return 1;
    }
  }
  std::vector<int32_t> ids(given.begin(), given.end());
  std::vector<float> logits;
  logits.reserve(ids.size() * runner.vocab());
  runner.feed(ids.data(), static_cast<int>(ids.size()), 0, options.decodeOnly,
              &logits);

  std::FILE *out = std::fopen(options.dumpPath.c_str(), "wb");
  if (!out) {
    std::fprintf(stderr, "error: cannot open '%s' for writing: %s\n",
                 options.dumpPath.c_str(), std::strerror(errno));
    return 1;
  }
  size_t written =
      std::fwrite(logits.data(), sizeof(float), logits.size(), out);
  if (std::fclose(out) != 0 || written != logits.size()) {
    std::fprintf(stderr, "error: writing '%s' failed: %s\n",
                 options.dumpPath.c_str(), std::strerror(errno));
    return 1;
  }
  return 0;
}

} // namespace tfm::rt
