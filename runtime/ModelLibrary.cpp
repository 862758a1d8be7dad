//===- ModelLibrary.cpp - The C API of a model compiled with --emit=lib ---===//
//
// Each tfmc_context owns its package mapping, its runner (a generating
// model's ModelRunner: device, KV cache, scratch, logits; an encoder's
// EncoderRunner: device, scratch, hidden states, logits), tokenizer and
// sampler; nothing here is static and mutable, so contexts run concurrently
// (runtime/ModelLibrary.h).
//
//===----------------------------------------------------------------------===//
#include "runtime/ModelLibrary.h"

#include "runtime/CpuFeatures.h"
#include "runtime/EncoderOutputs.h"
#include "runtime/Generate.h"
#include "runtime/GenerationSettings.h"
#include "runtime/ModelABI.h"
#include "runtime/Package.h"
#include "runtime/PackageCheck.h"
#include "runtime/PackageKeys.h"
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
  std::unique_ptr<ModelRunner> runner;    ///< a generating model's
  std::unique_ptr<EncoderRunner> encoder; ///< an encoder's, instead
  /// An encoder's tfmc_model_embedding: its package's pooling and
  /// normalisation.
  tfmc_embedding_options embedding{TFMC_POOLING_MEAN, 0};
  int mask = -1; ///< an encoder's [MASK] id
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

/// Drops the "error: " with which the runners word their messages for the
/// command line.
std::string withoutPrefix(std::string error) {
  if (error.rfind("error: ", 0) == 0)
    error.erase(0, 7);
  return error;
}

/// An encoder's runner and its --embed defaults from the package.
tfmc_status openEncoder(tfmc_context &context, const std::string &name) {
  std::string &error = context.error;
  std::string pooling(context.package.get(tfm::rt::keys::kEmbeddingPooling));
  if (pooling.empty()) // packages of tfmc before the key
    pooling = "mean";
  int mode = 0;
  while (mode < kPoolingModeCount && pooling != kPoolingModes[mode])
    ++mode;
  if (mode == kPoolingModeCount)
    return context.fail(TFMC_ERROR_PACKAGE,
                        "'" + name + "': the package's pooling '" + pooling +
                            "' is not one this runtime knows");
  context.embedding.pooling = static_cast<tfmc_pooling>(mode);
  context.embedding.normalize =
      context.package.get(tfm::rt::keys::kEmbeddingNormalize) == "1";
  context.mask = context.tokenizer->tokenId("[MASK]");
  context.encoder = std::make_unique<EncoderRunner>(tfm_model, linkedEntries());
  if (!context.encoder->open(context.package.weights(), error)) {
    error = withoutPrefix(error);
    bool memory =
        context.encoder->openFailure() == ModelMemory::Failure::Memory;
    context.encoder.reset();
    return memory ? TFMC_ERROR_OUT_OF_MEMORY : TFMC_ERROR_PACKAGE;
  }
  return TFMC_OK;
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
  if (tfm_model.kind == TFM_KIND_ENCODER) {
    if (tfmc_status status = openEncoder(context, name); status != TFMC_OK)
      return status;
  } else {
    context.runner = std::make_unique<ModelRunner>(tfm_model, linkedEntries());
    if (!context.runner->open(context.package.weights(), error)) {
      error = withoutPrefix(error);
      bool memory =
          context.runner->openFailure() == ModelMemory::Failure::Memory;
      context.runner.reset();
      return memory ? TFMC_ERROR_OUT_OF_MEMORY : TFMC_ERROR_PACKAGE;
    }
  }
  if (!readModelGeneration(context.package, name, context.eos,
                           int(tfm_model.vocab_size), context.generation,
                           error))
    return TFMC_ERROR_PACKAGE;
  context.sampler = std::make_unique<Sampler>(greedy());
  context.samplerLogits.resize(tfm_model.vocab_size);
  return TFMC_OK;
}

/// The ids tfmc_sample may pick: a padded LM head's extra rows have no
/// text, so they are never sampled (as in the executables).
int sampleVocab(const tfmc_context &context) {
  return std::min(int(tfm_model.vocab_size), context.tokenizer->vocabSize());
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
bool usable(const tfmc_context &context) {
  return context.runner != nullptr || context.encoder != nullptr;
}

/// The refusal of a generating model's call (`function`) on an encoder.
tfmc_status notForEncoders(tfmc_context &context, const char *function) {
  return context.fail(TFMC_ERROR_ARGUMENT,
                      std::string(function) +
                          " is for generating models; this model is an "
                          "encoder (tfmc_embed, tfmc_fill_mask)");
}

/// The refusal of an encoder's call (`function`) on a generating model.
tfmc_status onlyForEncoders(tfmc_context &context, const char *function) {
  return context.fail(
      TFMC_ERROR_ARGUMENT,
      std::string(function) + " is for encoders (BERT); this model is " +
          (context.runner->isSeq2Seq() ? "an encoder-decoder" : "a decoder"));
}

/// Checks the ids an encoder call runs; TFMC_OK or the failure.
tfmc_status checkEncoderIds(tfmc_context &context, const char *function,
                            const int32_t *tokens, int32_t count) {
  if (!tokens || count < 1)
    return context.fail(TFMC_ERROR_ARGUMENT,
                        std::string(function) + " needs at least one token");
  if (count > context.encoder->sequence())
    return context.fail(TFMC_ERROR_CONTEXT_FULL,
                        "the text is " + std::to_string(count) +
                            " tokens but the encoder's context is " +
                            std::to_string(context.encoder->sequence()));
  std::string error;
  if (!context.encoder->check(std::vector<int32_t>(tokens, tokens + count),
                              "the text", error))
    return context.fail(TFMC_ERROR_ARGUMENT, withoutPrefix(error));
  return TFMC_OK;
}

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
    (*context)->encoder.reset();
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
  return context && context->runner && context->runner->isSeq2Seq()
             ? int32_t(tfm_model.decoder_start_token)
             : -1;
}

tfmc_status tfmc_encode_source(tfmc_context *context, const int32_t *tokens,
                               int32_t count) {
  return guarded(context, [&](tfmc_context &self) {
    if (!usable(self))
      return self.fail(TFMC_ERROR_ARGUMENT, "the context was not created");
    if (self.encoder)
      return notForEncoders(self, "tfmc_encode_source");
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
    if (self.encoder)
      return notForEncoders(self, "tfmc_prefill");
    if (!tokens || count < 1 || !logits)
      return self.fail(TFMC_ERROR_ARGUMENT,
                       "tfmc_prefill needs at least one token and a place "
                       "for the logits");
    if (self.runner->isSeq2Seq() && !self.sourceEncoded)
      return self.fail(TFMC_ERROR_ARGUMENT,
                       "an encoder-decoder's decoder needs a source: call "
                       "tfmc_encode_source first");
    // The count first: the ids are read only once it fits the context,
    // so a wrong count never walks past the caller's array.
    if (count > self.runner->context() - self.position)
      return self.fail(TFMC_ERROR_CONTEXT_FULL,
                       std::to_string(count) + " more tokens at position " +
                           std::to_string(self.position) +
                           " exceed the context of " +
                           std::to_string(self.runner->context()));
    int vocab = self.runner->vocab();
    for (int32_t i = 0; i < count; ++i)
      if (tokens[i] < 0 || tokens[i] >= vocab)
        return self.fail(TFMC_ERROR_ARGUMENT,
                         "token " + std::to_string(tokens[i]) +
                             " is outside the model's vocabulary of " +
                             std::to_string(vocab));
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
    if (std::optional<std::string> why = nonFiniteLogits(logits, vocab))
      return self.fail(TFMC_ERROR_NUMERICS, *why);
    std::copy(logits, logits + vocab, self.samplerLogits.begin());
    *token = self.sampler->sample(self.samplerLogits.data(), vocab,
                                  self.history.data(), self.history.size());
    return TFMC_OK;
  });
}

int32_t tfmc_embedding_size(const tfmc_context *context) {
  return context && context->encoder ? context->encoder->hiddenSize() : 0;
}

tfmc_embedding_options tfmc_model_embedding(const tfmc_context *context) {
  if (!context || !context->encoder)
    return tfmc_embedding_options{TFMC_POOLING_MEAN, 0};
  return context->embedding;
}

tfmc_status tfmc_embed(tfmc_context *context, const int32_t *tokens,
                       int32_t count, const tfmc_embedding_options *options,
                       float *embedding) {
  return guarded(context, [&](tfmc_context &self) {
    if (!usable(self))
      return self.fail(TFMC_ERROR_ARGUMENT, "the context was not created");
    if (!self.encoder)
      return onlyForEncoders(self, "tfmc_embed");
    if (!embedding)
      return self.fail(TFMC_ERROR_ARGUMENT,
                       "tfmc_embed needs a place for the embedding");
    const tfmc_embedding_options &chosen = options ? *options : self.embedding;
    // Read as the integer a C caller may have stored in it: in C++ a load
    // of an enum outside its values would be undefined.
    int mode = 0;
    static_assert(sizeof(mode) == sizeof(chosen.pooling),
                  "tfmc_pooling is an int");
    std::memcpy(&mode, &chosen.pooling, sizeof(mode));
    if (mode < 0 || mode >= kPoolingModeCount)
      return self.fail(TFMC_ERROR_ARGUMENT, "pooling " + std::to_string(mode) +
                                                " is not a tfmc_pooling");
    if (tfmc_status status = checkEncoderIds(self, "tfmc_embed", tokens, count);
        status != TFMC_OK)
      return status;
    self.encoder->encode(std::vector<int32_t>(tokens, tokens + count));
    std::vector<double> pooled = poolHiddenStates(
        *self.encoder, count, kPoolingModes[mode], chosen.normalize != 0);
    // As the executable prints them: computed in double, stored as float.
    for (size_t i = 0; i < pooled.size(); ++i)
      embedding[i] = float(pooled[i]);
    return TFMC_OK;
  });
}

int32_t tfmc_mask_token(const tfmc_context *context) {
  return context && context->encoder ? context->mask : -1;
}

tfmc_status tfmc_fill_mask(tfmc_context *context, const int32_t *tokens,
                           int32_t count, int32_t top_k,
                           tfmc_prediction *predictions, int32_t capacity,
                           int32_t *stored) {
  return guarded(context, [&](tfmc_context &self) {
    if (!usable(self))
      return self.fail(TFMC_ERROR_ARGUMENT, "the context was not created");
    if (!self.encoder)
      return onlyForEncoders(self, "tfmc_fill_mask");
    if (!self.encoder->hasLogits())
      return self.fail(TFMC_ERROR_ARGUMENT,
                       "this model has no masked-LM head (a checkpoint "
                       "without cls.predictions, e.g. BertModel), so it "
                       "cannot fill masks; tfmc_embed gives its sentence "
                       "embedding");
    if (!stored || capacity < 0 || (capacity > 0 && !predictions))
      return self.fail(TFMC_ERROR_ARGUMENT,
                       "tfmc_fill_mask needs a count and a buffer of "
                       "`capacity` predictions");
    int vocab = self.encoder->vocab();
    if (top_k < 1 || top_k > vocab)
      return self.fail(TFMC_ERROR_ARGUMENT,
                       "top_k must be in [1, " + std::to_string(vocab) +
                           "], got " + std::to_string(top_k));
    if (self.mask < 0)
      return self.fail(TFMC_ERROR_ARGUMENT,
                       "the tokenizer has no [MASK] token");
    if (tfmc_status status =
            checkEncoderIds(self, "tfmc_fill_mask", tokens, count);
        status != TFMC_OK)
      return status;
    std::vector<int32_t> masks;
    for (int32_t i = 0; i < count; ++i)
      if (tokens[i] == self.mask)
        masks.push_back(i);
    if (masks.empty())
      return self.fail(TFMC_ERROR_ARGUMENT,
                       "the ids hold no [MASK] (id " +
                           std::to_string(self.mask) +
                           "): fill-mask predicts the token at each one");
    int64_t needed = int64_t(masks.size()) * top_k;
    *stored = int32_t(needed);
    if (needed > capacity)
      return self.fail(
          TFMC_ERROR_BUFFER_TOO_SMALL,
          std::to_string(masks.size()) + " masks x top_k " +
              std::to_string(top_k) + " are " + std::to_string(needed) +
              " predictions but the buffer holds " + std::to_string(capacity));
    self.encoder->encode(std::vector<int32_t>(tokens, tokens + count));
    tfmc_prediction *out = predictions;
    for (int32_t position : masks) {
      const float *logits = self.encoder->logits(position);
      for (int id : topLogits(logits, vocab, top_k))
        *out++ = tfmc_prediction{position, id, logits[id]};
    }
    return TFMC_OK;
  });
}

tfmc_status tfmc_token_string(tfmc_context *context, int32_t token, char *text,
                              size_t capacity, size_t *length) {
  return guarded(context, [&](tfmc_context &self) {
    if (!usable(self))
      return self.fail(TFMC_ERROR_ARGUMENT, "the context was not created");
    if (!length || (capacity > 0 && !text))
      return self.fail(TFMC_ERROR_ARGUMENT,
                       "tfmc_token_string needs a length and a buffer of "
                       "`capacity` bytes");
    if (token < 0 || token >= int32_t(tfm_model.vocab_size))
      return self.fail(TFMC_ERROR_ARGUMENT,
                       "token " + std::to_string(token) +
                           " is outside the model's vocabulary of " +
                           std::to_string(tfm_model.vocab_size));
    // Ids past the tokenizer's vocabulary (a model's padded embedding
    // table) have no string: "".
    std::string piece = self.tokenizer->tokenString(token);
    *length = piece.size();
    if (piece.size() + 1 > capacity)
      return self.fail(TFMC_ERROR_BUFFER_TOO_SMALL,
                       "the token is " + std::to_string(piece.size()) +
                           " bytes (and a NUL) but the buffer holds " +
                           std::to_string(capacity));
    std::memcpy(text, piece.c_str(), piece.size() + 1);
    return TFMC_OK;
  });
}

} // extern "C"
