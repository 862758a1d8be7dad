/*===- ModelLibrary.h - The C API of a model compiled with --emit=lib ----===*
 *
 * `tfmc compile MODEL --emit=lib -o DIR` writes DIR/libNAME.a (the generated
 * code, the runtime and the model's package) and DIR/NAME.h, a copy of this
 * header. Plain C99; link with the flags in DIR/NAME.link, e.g.
 *
 *   cc -std=c99 app.c DIR/libNAME.a $(cat DIR/NAME.link)
 *
 * A context owns everything one conversation needs: the weights package it
 * was created from (mapped, shared with the page cache), the KV cache, the
 * scratch of the generated code, the tokenizer and the sampler. Contexts
 * share no mutable state: several may run at the same time on different
 * threads. One context must not be used by two threads at once. The
 * generated code runs its loops on OpenMP threads (OMP_NUM_THREADS).
 *
 * Every function that can fail returns a tfmc_status; on failure,
 * tfmc_error_message() says why. Nothing aborts on bad input. One program
 * links one model library (they all define the same symbols).
 *===----------------------------------------------------------------------===*/
#ifndef TFMC_MODEL_LIBRARY_H
#define TFMC_MODEL_LIBRARY_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tfmc_status {
  TFMC_OK = 0,
  /* The package is missing, unreadable, malformed or belongs to other code
   * (or the code runs on a device this program cannot use, or needs
   * instructions this CPU lacks). */
  TFMC_ERROR_PACKAGE = 1,
  TFMC_ERROR_OUT_OF_MEMORY = 2,
  /* A null pointer, a negative count, a token id outside the vocabulary. */
  TFMC_ERROR_ARGUMENT = 3,
  /* The tokens would not fit in the context (tfmc_context_length). */
  TFMC_ERROR_CONTEXT_FULL = 4,
  /* The output buffer is too small; the size needed was stored. */
  TFMC_ERROR_BUFFER_TOO_SMALL = 5,
  /* The tokenizer cannot encode the text. */
  TFMC_ERROR_TOKENIZER = 6,
  /* The logits hold a NaN or an infinity: the model's weights overflow
   * 32-bit floats (tfmc_sample draws nothing from them). */
  TFMC_ERROR_NUMERICS = 7
} tfmc_status;

/* An opaque context. */
typedef struct tfmc_context tfmc_context;

/* How tfmc_sample picks a token. */
typedef struct tfmc_sampler_options {
  float
      temperature; /* 0: greedy (argmax); else softmax(logits / temperature) */
  int32_t top_k;   /* keep the k most likely tokens; 0: all */
  float top_p;     /* keep the most likely tokens up to this mass; 1: all */
  uint64_t seed;   /* the context's random stream starts from it */
  /* Keep the tokens at least min_p times as likely as the most likely one
   * (after top_k and top_p); 0: off. */
  float min_p;
  /* Divide the positive logits of the ids run since the last reset (the
   * prompt included) by this and multiply their negative ones; 0 (as in a
   * zero-initialised struct) or 1: off. */
  float repetition_penalty;
} tfmc_sampler_options;

/* Creates a context from the package linked into the library
 * (package_path == NULL) or from the package at the end of the file
 * `package_path` (DIR/NAME.tfmpkg, or an executable tfmc compiled from the
 * same model with the same options). Always stores a context in *context
 * unless memory is short (then NULL and TFMC_ERROR_OUT_OF_MEMORY): on
 * failure it holds only the error message; free it with
 * tfmc_context_free. The sampler starts greedy. */
tfmc_status tfmc_context_create(const char *package_path,
                                tfmc_context **context);

/* Frees a context and everything it owns; NULL is ignored. */
void tfmc_context_free(tfmc_context *context);

/* The message of the last failure of a call on `context` (also of its
 * creation), or "" when none failed; valid until the next call on it.
 * "out of memory" for a NULL context. */
const char *tfmc_error_message(const tfmc_context *context);

/* The model's facts: logits per position, KV-cache positions, and its
 * begin/end-of-sequence token ids (-1 when it has none). */
int32_t tfmc_vocab_size(const tfmc_context *context);
int32_t tfmc_context_length(const tfmc_context *context);
int32_t tfmc_bos_token(const tfmc_context *context);
int32_t tfmc_eos_token(const tfmc_context *context);

/* Encoder-decoders (T5; a decoder-only model answers -1 and
 * TFMC_ERROR_ARGUMENT). tfmc_decoder_start_token is the id the decoder's
 * output starts from. tfmc_encode_source runs the encoder over `count`
 * (1 to tfmc_context_length) source ids, e.g. tfmc_tokenize's of a prompt
 * with add_special, keeps what every cross-attention reads, and restarts the
 * decoder at position 0: tfmc_prefill and tfmc_decode then run target ids,
 * the first of them tfmc_decoder_start_token, and their logits are the
 * decoder's. An encoder-decoder must encode a source before its first
 * prefill; tfmc_reset keeps the source (tfmc_encode_source replaces it). */
int32_t tfmc_decoder_start_token(const tfmc_context *context);
tfmc_status tfmc_encode_source(tfmc_context *context, const int32_t *tokens,
                               int32_t count);

/* Encoders (BERT: one pass over a whole text, no generation; a
 * generating model answers 0 / -1 here and
 * TFMC_ERROR_ARGUMENT from the calls). They take `count` ids (1 to
 * tfmc_context_length), e.g. tfmc_tokenize's of a text with add_special,
 * which gives [CLS] ... [SEP], and run the encoder over them, as the
 * executable's --embed and fill-mask modes do. An encoder's context answers
 * TFMC_ERROR_ARGUMENT from tfmc_prefill, tfmc_decode and
 * tfmc_encode_source. */

/* How tfmc_embed turns the final hidden states of a text's tokens into one
 * vector: sentence-transformers' Pooling modes. */
typedef enum tfmc_pooling {
  TFMC_POOLING_MEAN = 0,          /* the mean of every token's */
  TFMC_POOLING_CLS = 1,           /* the first token's ([CLS]) */
  TFMC_POOLING_MAX = 2,           /* each feature's largest value */
  TFMC_POOLING_MEAN_SQRT_LEN = 3, /* the sum divided by sqrt(count) */
  TFMC_POOLING_LAST = 4           /* the last token's */
} tfmc_pooling;

typedef struct tfmc_embedding_options {
  tfmc_pooling pooling;
  /* Nonzero: divide the pooled vector by its L2 norm (at least 1e-12), as
   * sentence-transformers' Normalize module. */
  int normalize;
} tfmc_embedding_options;

/* Features of an encoder's hidden states and embeddings; 0 for a
 * generating model. */
int32_t tfmc_embedding_size(const tfmc_context *context);

/* The pooling and normalisation the model's files configure (a
 * sentence-transformers directory's modules.json, a GGUF's pooling type),
 * else mean pooling, not normalised: what the executable's --embed does
 * without --pooling and --normalize. */
tfmc_embedding_options tfmc_model_embedding(const tfmc_context *context);

/* Runs the encoder over `count` ids and writes their pooled final hidden
 * states, tfmc_embedding_size floats, to `embedding`, pooled as `options`
 * says (NULL: tfmc_model_embedding). TFMC_ERROR_CONTEXT_FULL when count
 * exceeds tfmc_context_length; TFMC_ERROR_ARGUMENT for an id outside the
 * vocabulary or an unknown pooling. */
tfmc_status tfmc_embed(tfmc_context *context, const int32_t *tokens,
                       int32_t count, const tfmc_embedding_options *options,
                       float *embedding);

/* The id of the tokenizer's [MASK] token, which tfmc_fill_mask predicts
 * at; -1 when it has none or the model is not an encoder. */
int32_t tfmc_mask_token(const tfmc_context *context);

/* One fill-mask prediction: `token` at the mask at `position` (an index
 * into the ids given, [CLS] being 0) with its masked-LM logit. */
typedef struct tfmc_prediction {
  int32_t position;
  int32_t token;
  float logit;
} tfmc_prediction;

/* Fill-mask: runs the encoder over `count` ids and, for each
 * tfmc_mask_token among them in order, stores the `top_k` (>= 1, at most
 * the vocabulary) ids with the largest masked-LM logits, largest first
 * (the lower id first among equal logits), at
 * predictions[mask * top_k ...], and their number (masks * top_k) in
 * *stored. TFMC_ERROR_BUFFER_TOO_SMALL with the number needed in *stored
 * when it exceeds `capacity`; TFMC_ERROR_ARGUMENT when the ids hold no
 * mask or the model has no masked-LM head (a BertModel: use tfmc_embed). */
tfmc_status tfmc_fill_mask(tfmc_context *context, const int32_t *tokens,
                           int32_t count, int32_t top_k,
                           tfmc_prediction *predictions, int32_t capacity,
                           int32_t *stored);

/* The vocabulary string of `token` (e.g. "##ing" or "[MASK]", as the
 * executable's fill-mask prints it; "" for an id past the tokenizer's
 * vocabulary, as a padded embedding table has) as NUL-terminated text at
 * `text`, its length without the NUL in *length.
 * TFMC_ERROR_BUFFER_TOO_SMALL with the length needed when it does not fit
 * in `capacity` bytes; TFMC_ERROR_ARGUMENT for an id outside
 * [0, tfmc_vocab_size). */
tfmc_status tfmc_token_string(tfmc_context *context, int32_t token, char *text,
                              size_t capacity, size_t *length);

/* Encodes the NUL-terminated UTF-8 `text` into at most `capacity` ids at
 * `tokens` and stores their number in *count. With add_special != 0 it adds
 * what the tokenizer adds around a text (e.g. BOS). When the ids do not fit,
 * returns TFMC_ERROR_BUFFER_TOO_SMALL with the number needed in *count. */
tfmc_status tfmc_tokenize(tfmc_context *context, const char *text,
                          int add_special, int32_t *tokens, int32_t capacity,
                          int32_t *count);

/* Decodes `count` ids into NUL-terminated text at `text` (special tokens
 * skipped) and stores its length, without the NUL, in *length. When it does
 * not fit in `capacity` bytes, returns TFMC_ERROR_BUFFER_TOO_SMALL with the
 * length needed in *length. */
tfmc_status tfmc_detokenize(tfmc_context *context, const int32_t *tokens,
                            int32_t count, char *text, size_t capacity,
                            size_t *length);

/* Runs `count` (>= 1) tokens at the next positions of the context's KV
 * cache and stores in *logits the tfmc_vocab_size logits that follow the
 * last one. They belong to the context and stay valid until its next
 * prefill, decode or free. TFMC_ERROR_CONTEXT_FULL (nothing run) when
 * tfmc_position + count would exceed tfmc_context_length. */
tfmc_status tfmc_prefill(tfmc_context *context, const int32_t *tokens,
                         int32_t count, const float **logits);

/* tfmc_prefill of the one token `token`. */
tfmc_status tfmc_decode(tfmc_context *context, int32_t token,
                        const float **logits);

/* The number of positions filled so far. */
int32_t tfmc_position(const tfmc_context *context);

/* Forgets the conversation: the next prefill starts at position 0 (of
 * the decoder, for an encoder-decoder, whose source stays). */
void tfmc_reset(tfmc_context *context);

/* Greedy decoding: temperature 0, top_k 0, top_p 1, seed 0, min_p 0,
 * repetition_penalty 1. */
tfmc_sampler_options tfmc_sampler_defaults(void);

/* The sampling the model's files configure (a Hugging Face
 * generation_config.json: greedy unless it samples, then its temperature,
 * top_k (50 when unset, as transformers), top_p, min_p and
 * repetition_penalty), else tfmc_sampler_defaults(). */
tfmc_sampler_options tfmc_model_sampler(const tfmc_context *context);

/* Sets how tfmc_sample picks tokens and restarts its random stream from
 * options->seed. TFMC_ERROR_ARGUMENT for a negative temperature or top_k,
 * a top_p outside (0, 1], a min_p outside [0, 1] or a negative
 * repetition_penalty. */
tfmc_status tfmc_set_sampler(tfmc_context *context,
                             const tfmc_sampler_options *options);

/* 1 when `token` ends a generation: the EOS id or another id the model's
 * files list (an eos_token_id list, generation_config.json's, a GGUF's
 * end-of-turn); else 0. */
int tfmc_is_end_token(const tfmc_context *context, int32_t token);

/* Stop strings: tfmc_find_stop reports whether one of the `count`
 * NUL-terminated `strings` (copied; count 0 removes them) occurs in a text,
 * e.g. tfmc_detokenize's of the ids generated so far. */
tfmc_status tfmc_set_stop_strings(tfmc_context *context,
                                  const char *const *strings, int32_t count);
/* 1, with the byte offset of the earliest occurrence of a stop string in
 * `text` (`length` bytes) in *position, when there is one; else 0. */
int tfmc_find_stop(const tfmc_context *context, const char *text, size_t length,
                   size_t *position);

/* Picks the next token from tfmc_vocab_size `logits` (which it leaves
 * unchanged) with the context's sampler and stores it in *token.
 * TFMC_ERROR_NUMERICS when a logit is NaN or infinite. */
tfmc_status tfmc_sample(tfmc_context *context, const float *logits,
                        int32_t *token);

#ifdef __cplusplus
}
#endif

#endif /* TFMC_MODEL_LIBRARY_H */
