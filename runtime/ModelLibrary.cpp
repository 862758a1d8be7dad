//===- ModelLibrary.cpp - The C API of a model compiled with --emit=lib ---===//
//
// Each tfmc_context owns its package mapping, ModelRunner (its device, KV
// cache, scratch, logits), tokenizer and sampler; nothing here is static and
// mutable, so contexts run concurrently (runtime/ModelLibrary.h).
//
//===----------------------------------------------------------------------===//
#include "runtime/ModelLibrary.h"

#include "runtime/CpuFeatures.h"
#include "runtime/Generate.h"
#include "runtime/GenerationSettings.h"
#include "runtime/ModelABI.h"
#include "runtime/Package.h"
#include "runtime/PackageCheck.h"
#include "runtime/Sampler.h"
#include "runtime/Tokenizer.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <vector>

extern "C" {
/// The package tfmc links into libNAME.a (an object of its own, the bytes
/// of NAME.tfmpkg between these two symbols, starting on a page).
extern const uint8_t tfmc_embedded_package[];
extern const uint8_t tfmc_embedded_package_end[];
}

using namespace tfm::rt;

struct tfmc_context {
  std::string error;
  Package package;
  std::unique_ptr<ModelRunner> runner;
  std::unique_ptr<Tokenizer> tokenizer;
  std::unique_ptr<Sampler> sampler;
  std::vector<float> samplerLogits; ///< Sampler::sample overwrites its input
  /// The ids run since the last reset, for the repetition penalty.
  std::vector<int32_t> history;
  ModelGeneration generation; ///< stop ids and sampling defaults
  std::vector<std::string> stopStrings;
  int bos = -1, eos = -1;
  int64_t position = 0;
  bool sourceEncoded = false; ///< an encoder-decoder's, for its decoder

  tfmc_status fail(tfmc_status status, std::string message) {
    error = std::move(message);
    return status;
  }
};

namespace {

SamplerOptions greedy() {
  SamplerOptions options;
  options.temperature = 0.0f;
  return options;
}

tfmc_sampler_options toC(const SamplerOptions &options) {
  tfmc_sampler_options c;
  c.temperature = options.temperature;
  c.top_k = options.topK;
  c.top_p = options.topP;
  c.seed = options.seed;
  c.min_p = options.minP;
  c.repetition_penalty = options.repetitionPenalty;
  return c;
}

tfmc_status createContext(const char *path, tfmc_context &context) {
  std::string &error = context.error;
  std::string name = path ? path : "embedded package";
  bool opened =
      path ? context.package.open(path, error)
           : context.package.openMemory(
                 tfmc_embedded_package,
                 uint64_t(tfmc_embedded_package_end - tfmc_embedded_package),
                 name, error);
  if (!opened || !checkPackageMatchesModel(context.package, name, error) ||
      !checkCpuRunsModel(context.package, name, error) ||
      !readPackageTokenId(context.package, "token.bos", name, context.bos,
                          error) ||
      !readPackageTokenId(context.package, "token.eos", name, context.eos,
                          error))
    return TFMC_ERROR_PACKAGE;
  std::string_view kind = context.package.get("tokenizer.kind");
  if (kind.empty())
    return context.fail(TFMC_ERROR_PACKAGE,
                        "'" + name +
                            "': the package has no tokenizer "
                            "(metadata 'tokenizer.kind' is missing)");
  context.tokenizer = loadTokenizer(kind, context.package.get("tokenizer.data"),
                                    context.bos, context.eos, error);
  if (!context.tokenizer)
    return context.fail(TFMC_ERROR_PACKAGE, "'" + name + "': " + error);
  context.runner = std::make_unique<ModelRunner>(tfm_model, linkedEntries());
  if (!context.runner->open(context.package.weights(), error)) {
    // open() words its errors for the command line.
    if (error.rfind("error: ", 0) == 0)
      error.erase(0, 7);
    bool memory = context.runner->openFailure() == ModelMemory::Failure::Memory;
    context.runner.reset();
    return memory ? TFMC_ERROR_OUT_OF_MEMORY : TFMC_ERROR_PACKAGE;
  }
  if (!readModelGeneration(context.package, name, context.eos,
                           context.runner->vocab(), context.generation, error))
    return TFMC_ERROR_PACKAGE;
  context.sampler = std::make_unique<Sampler>(greedy());
  context.samplerLogits.resize(tfm_model.vocab_size);
  return TFMC_OK;
}

/// The ids tfmc_sample may pick: a padded LM head's extra rows have no
/// text, so they are never sampled (as in the executables).
int sampleVocab(const tfmc_context &context) {
  return std::min(context.runner->vocab(), context.tokenizer->vocabSize());
}

/// Runs the guarded body of a C entry point: C callers must never see a C++
/// exception (std::bad_alloc from the runtime's containers).
template <typename Body> tfmc_status guarded(tfmc_context *context, Body body) {
  if (!context)
    return TFMC_ERROR_ARGUMENT;
  try {
    context->error.clear();
    return body(*context);
  } catch (const std::bad_alloc &) {
    return context->fail(TFMC_ERROR_OUT_OF_MEMORY, "out of memory");
  } catch (const std::exception &exception) {
    return context->fail(TFMC_ERROR_ARGUMENT, exception.what());
  }
}

/// A context that failed to be created holds only its error.
bool usable(const tfmc_context &context) { return context.runner != nullptr; }

} // namespace

extern "C" {

tfmc_status tfmc_context_create(const char *package_path,
                                tfmc_context **context) {
  if (!context)
    return TFMC_ERROR_ARGUMENT;
  *context = new (std::nothrow) tfmc_context;
  if (!*context)
    return TFMC_ERROR_OUT_OF_MEMORY;
  tfmc_status status = guarded(*context, [&](tfmc_context &created) {
    return createContext(package_path, created);
  });
  if (status != TFMC_OK) {
    // Keep only the message: a half-created context is not usable.
    (*context)->runner.reset();
    (*context)->tokenizer.reset();
  }
  return status;
}

void tfmc_context_free(tfmc_context *context) { delete context; }

const char *tfmc_error_message(const tfmc_context *context) {
  return context ? context->error.c_str() : "out of memory";
}

int32_t tfmc_vocab_size(const tfmc_context *context) {
  return context && usable(*context) ? int32_t(tfm_model.vocab_size) : 0;
}

int32_t tfmc_context_length(const tfmc_context *context) {
  return context && usable(*context) ? int32_t(tfm_model.context_length) : 0;
}

int32_t tfmc_bos_token(const tfmc_context *context) {
  return context && usable(*context) ? context->bos : -1;
}

int32_t tfmc_eos_token(const tfmc_context *context) {
  return context && usable(*context) ? context->eos : -1;
}

int32_t tfmc_decoder_start_token(const tfmc_context *context) {
  return context && usable(*context) && context->runner->isSeq2Seq()
             ? int32_t(tfm_model.decoder_start_token)
             : -1;
}

tfmc_status tfmc_encode_source(tfmc_context *context, const int32_t *tokens,
                               int32_t count) {
  return guarded(context, [&](tfmc_context &self) {
    if (!usable(self))
      return self.fail(TFMC_ERROR_ARGUMENT, "the context was not created");
    if (!self.runner->isSeq2Seq())
      return self.fail(TFMC_ERROR_ARGUMENT,
                       "tfmc_encode_source is for encoder-decoders; this "
                       "model is decoder-only");
    if (!tokens || count < 1)
      return self.fail(TFMC_ERROR_ARGUMENT,
                       "tfmc_encode_source needs at least one token");
    if (count > self.runner->context())
      return self.fail(TFMC_ERROR_CONTEXT_FULL,
                       "the source is " + std::to_string(count) +
                           " tokens but the encoder's context is " +
                           std::to_string(self.runner->context()));
    std::string error;
    if (!self.runner->encodeSource(tokens, count, error)) {
      // encodeSource() words its errors for the command line.
      if (error.rfind("error: ", 0) == 0)
        error.erase(0, 7);
      return self.fail(TFMC_ERROR_ARGUMENT, error);
    }
    self.sourceEncoded = true;
    self.position = 0;
    self.history.clear();
    return TFMC_OK;
  });
}

tfmc_status tfmc_tokenize(tfmc_context *context, const char *text,
                          int add_special, int32_t *tokens, int32_t capacity,
                          int32_t *count) {
  return guarded(context, [&](tfmc_context &self) {
    if (!usable(self))
      return self.fail(TFMC_ERROR_ARGUMENT, "the context was not created");
    if (!text || !count || capacity < 0 || (capacity > 0 && !tokens))
      return self.fail(TFMC_ERROR_ARGUMENT,
                       "tfmc_tokenize needs text, count and a buffer of "
                       "`capacity` ids");
    std::vector<int> ids;
    std::string error;
    if (!self.tokenizer->encode(text, add_special != 0, ids, error))
      return self.fail(TFMC_ERROR_TOKENIZER, error);
    *count = int32_t(ids.size());
    if (ids.size() > size_t(capacity))
      return self.fail(TFMC_ERROR_BUFFER_TOO_SMALL,
                       "the text is " + std::to_string(ids.size()) +
                           " tokens but the buffer holds " +
                           std::to_string(capacity));
    std::copy(ids.begin(), ids.end(), tokens);
    return TFMC_OK;
  });
}

tfmc_status tfmc_detokenize(tfmc_context *context, const int32_t *tokens,
                            int32_t count, char *text, size_t capacity,
                            size_t *length) {
  return guarded(context, [&](tfmc_context &self) {
    if (!usable(self))
      return self.fail(TFMC_ERROR_ARGUMENT, "the context was not created");
    if (count < 0 || (count > 0 && !tokens) || !length ||
        (capacity > 0 && !text))
      return self.fail(TFMC_ERROR_ARGUMENT,
                       "tfmc_detokenize needs `count` ids, a length and a "
                       "buffer of `capacity` bytes");
    int vocab = self.tokenizer->vocabSize();
    std::unique_ptr<Detokenizer> detokenizer = self.tokenizer->detokenizer();
    std::string decoded;
    for (int32_t i = 0; i < count; ++i) {
      if (tokens[i] < 0 || tokens[i] >= vocab)
        return self.fail(TFMC_ERROR_ARGUMENT,
                         "token " + std::to_string(tokens[i]) +
                             " is outside the tokenizer's vocabulary of " +
                             std::to_string(vocab));
      decoded += detokenizer->step(tokens[i]);
    }
    decoded += detokenizer->finish();
    *length = decoded.size();
    if (decoded.size() + 1 > capacity)
      return self.fail(TFMC_ERROR_BUFFER_TOO_SMALL,
                       "the text is " + std::to_string(decoded.size()) +
                           " bytes (and a NUL) but the buffer holds " +
                           std::to_string(capacity));
    std::memcpy(text, decoded.c_str(), decoded.size() + 1);
    return TFMC_OK;
  });
}

tfmc_status tfmc_prefill(tfmc_context *context, const int32_t *tokens,
                         int32_t count, const float **logits) {
  return guarded(context, [&](tfmc_context &self) {
    if (!usable(self))
      return self.fail(TFMC_ERROR_ARGUMENT, "the context was not created");
    if (!tokens || count < 1 || !logits)
      return self.fail(TFMC_ERROR_ARGUMENT,
                       "tfmc_prefill needs at least one token and a place "
                       "for the logits");
    if (self.runner->isSeq2Seq() && !self.sourceEncoded)
      return self.fail(TFMC_ERROR_ARGUMENT,
                       "an encoder-decoder's decoder needs a source: call "
                       "tfmc_encode_source first");
    int vocab = self.runner->vocab();
    for (int32_t i = 0; i < count; ++i)
      if (tokens[i] < 0 || tokens[i] >= vocab)
        return self.fail(TFMC_ERROR_ARGUMENT,
                         "token " + std::to_string(tokens[i]) +
                             " is outside the model's vocabulary of " +
                             std::to_string(vocab));
    if (count > self.runner->context() - self.position)
      return self.fail(TFMC_ERROR_CONTEXT_FULL,
                       std::to_string(count) + " more tokens at position " +
                           std::to_string(self.position) +
                           " exceed the context of " +
                           std::to_string(self.runner->context()));
    *logits = self.runner->feed(tokens, count, self.position,
                                /*decodeOnly=*/false);
    self.position += count;
    self.history.insert(self.history.end(), tokens, tokens + count);
    return TFMC_OK;
  });
}

tfmc_status tfmc_decode(tfmc_context *context, int32_t token,
                        const float **logits) {
  return tfmc_prefill(context, &token, 1, logits);
}

int32_t tfmc_position(const tfmc_context *context) {
  return context ? int32_t(context->position) : 0;
}

void tfmc_reset(tfmc_context *context) {
  if (context) {
    context->position = 0;
    context->history.clear();
  }
}

tfmc_sampler_options tfmc_sampler_defaults(void) { return toC(greedy()); }

tfmc_sampler_options tfmc_model_sampler(const tfmc_context *context) {
  if (!context || !usable(*context) || !context->generation.configured)
    return toC(greedy());
  return toC(context->generation.sampler);
}

int tfmc_is_end_token(const tfmc_context *context, int32_t token) {
  return context && usable(*context) &&
                 isStopId(context->generation, static_cast<int>(token))
             ? 1
             : 0;
}

tfmc_status tfmc_set_stop_strings(tfmc_context *context,
                                  const char *const *strings, int32_t count) {
  return guarded(context, [&](tfmc_context &self) {
    if (count < 0 || (count > 0 && !strings))
      return self.fail(TFMC_ERROR_ARGUMENT,
                       "tfmc_set_stop_strings needs `count` strings");
    std::vector<std::string> stops;
    for (int32_t i = 0; i < count; ++i) {
      if (!strings[i] || !*strings[i])
        return self.fail(TFMC_ERROR_ARGUMENT, "stop string " +
                                                  std::to_string(i) +
                                                  " is NULL or empty");
      stops.emplace_back(strings[i]);
    }
    self.stopStrings = std::move(stops);
    return TFMC_OK;
  });
}

int tfmc_find_stop(const tfmc_context *context, const char *text, size_t length,
                   size_t *position) {
  if (!context || !text || !position)
    return 0;
  std::string_view haystack(text, length);
  size_t first = std::string_view::npos;
  for (const std::string &stop : context->stopStrings)
    first = std::min(first, haystack.find(stop));
  if (first == std::string_view::npos)
    return 0;
  *position = first;
  return 1;
}

tfmc_status tfmc_set_sampler(tfmc_context *context,
                             const tfmc_sampler_options *options) {
  return guarded(context, [&](tfmc_context &self) {
    if (!usable(self))
      return self.fail(TFMC_ERROR_ARGUMENT, "the context was not created");
    if (!options)
      return self.fail(TFMC_ERROR_ARGUMENT, "no sampler options");
    if (!(options->temperature >= 0.0f) || std::isinf(options->temperature) ||
        options->top_k < 0 ||
        !(options->top_p > 0.0f && options->top_p <= 1.0f) ||
        !(options->min_p >= 0.0f && options->min_p <= 1.0f) ||
        !(options->repetition_penalty >= 0.0f) ||
        std::isinf(options->repetition_penalty))
      return self.fail(TFMC_ERROR_ARGUMENT,
                       "sampler options need a finite temperature >= 0, "
                       "top_k >= 0, top_p in (0, 1], min_p in [0, 1] and a "
                       "finite repetition_penalty >= 0");
    SamplerOptions sampler;
    sampler.temperature = options->temperature;
    sampler.topK = options->top_k;
    sampler.topP = options->top_p;
    sampler.minP = options->min_p;
    // 0 is what a zero-initialised struct holds: no penalty.
    sampler.repetitionPenalty = options->repetition_penalty == 0.0f
                                    ? 1.0f
                                    : options->repetition_penalty;
    sampler.seed = options->seed;
    self.sampler = std::make_unique<Sampler>(sampler);
    return TFMC_OK;
  });
}

tfmc_status tfmc_sample(tfmc_context *context, const float *logits,
                        int32_t *token) {
  return guarded(context, [&](tfmc_context &self) {
    if (!usable(self))
      return self.fail(TFMC_ERROR_ARGUMENT, "the context was not created");
    if (!logits || !token)
      return self.fail(TFMC_ERROR_ARGUMENT,
                       "tfmc_sample needs logits and a place for the token");
    int vocab = sampleVocab(self);
    std::copy(logits, logits + vocab, self.samplerLogits.begin());
    *token = self.sampler->sample(self.samplerLogits.data(), vocab,
                                  self.history.data(), self.history.size());
    return TFMC_OK;
  });
}

} // extern "C"
