/*===- ModelABI.h - C ABI between generated model code and the runtime ----===*
 *
 * tfmc's backends emit the objects of a model, which together define
 * exactly these symbols. The runtime (and any program that embeds a compiled
 * model as a library) calls them. All buffers are caller-owned; shapes are
 * compile-time constants published in `tfm_model`.
 *===----------------------------------------------------------------------===*/
#ifndef TFMC_RUNTIME_MODELABI_H
#define TFMC_RUNTIME_MODELABI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped whenever the layout of tfm_model_info or an entry's signature or
 * contract changes (3: tfm_prefill accepts count == 0; 4: the entries take
 * the caller's scratch, tfm_model_info publishes its size and alignment;
 * 5: encoders, kind, hidden_size, encode_logits and tfm_encode; 6: the
 * cache's size in bytes and its element type, an untyped cache pointer;
 * 7: encoder-decoders, decoder_start_token and the tfm_seq2seq_ entries;
 * 8: code for a device: tfm_model_info's device and weights_alignment,
 * every entry takes a trailing stream, tfm_encode always has its logits
 * parameter (NULL without a masked-LM head), and the object defines
 * tfm_set_num_threads). */
#define TFM_ABI_VERSION 8

/* tfm_model_info.kind: which entries the object defines. */
#define TFM_KIND_DECODER 0 /* tfm_prefill and tfm_decode */
#define TFM_KIND_ENCODER 1 /* tfm_encode */
/* tfm_seq2seq_encode, tfm_seq2seq_prefill and tfm_seq2seq_decode */
#define TFM_KIND_ENCODER_DECODER 2

/* tfm_model_info.device: where the entries run and where the weights, the
 * cache and the scratch they take must live. */
#define TFM_DEVICE_HOST 0 /* this process's memory, the calling thread */
#define TFM_DEVICE_CUDA 1 /* CUDA device memory, work queued on a stream */

/* The emitters describe this struct field by field (compiler/backends/
 * common/ModelInfoFields.h checks its offsets at compile time): it has no
 * padding, and a field is only ever added at the end. */
typedef struct tfm_model_info {
  uint32_t abi_version;    /* TFM_ABI_VERSION of the compiler that emitted it */
  uint32_t vocab_size;     /* logits per position */
  uint32_t context_length; /* KV-cache positions; an encoder's sequence */
  uint32_t
      prefill_chunk; /* tokens consumed by one tfm_prefill call (0: encoder) */
  uint64_t weights_bytes; /* size of the weights blob the entries read */
  uint64_t cache_bytes;   /* size of the KV cache, in bytes (0: encoder) */
  uint64_t weights_hash;  /* fingerprint of the weight layout (names, shapes,
                             offsets) */
  uint64_t scratch_bytes; /* bytes of `scratch` every entry needs (may be 0) */
  uint64_t scratch_alignment;   /* alignment `scratch` must have, in bytes */
  uint32_t kind;                /* TFM_KIND_DECODER or TFM_KIND_ENCODER */
  uint32_t hidden_size;         /* features of an encoder's hidden states */
  uint32_t encode_logits;       /* 1: tfm_encode also writes masked-LM logits */
  uint32_t cache_element_bytes; /* 4: f32 keys and values, 2: f16 */
  uint32_t decoder_start_token; /* an encoder-decoder's first target token */
  uint32_t device;              /* TFM_DEVICE_HOST or TFM_DEVICE_CUDA */
  uint64_t weights_alignment;   /* alignment `weights` must have, in bytes */
} tfm_model_info;

/* Compile-time facts about the compiled model. */
extern const tfm_model_info tfm_model;

/* Memory. `weights` (weights_bytes long, weights_alignment aligned), `cache`
 * (cache_bytes) and `scratch`
 * (scratch_bytes long, scratch_alignment aligned; its contents need no
 * initialisation and mean nothing after the call) live on tfm_model.device:
 * host memory for TFM_DEVICE_HOST, device memory (cuMemAlloc) for
 * TFM_DEVICE_CUDA. `tokens`, `logits` and `hidden` are always host memory:
 * an entry reads its few token ids from the host and writes its outputs
 * back there before it returns. Buffers never overlap one another.
 *
 * Streams. Every entry takes the `stream` its device work is queued on:
 * NULL for TFM_DEVICE_HOST, where the entry runs on the calling thread (and
 * the threads it forks, tfm_set_num_threads); a CUstream (NULL: the default
 * stream) for TFM_DEVICE_CUDA, where calls on one stream run in order and
 * an entry returns once its host outputs are written (work that writes only
 * the cache, tfm_prefill with count == 0 or tfm_seq2seq_encode, may still
 * be running on the stream).
 *
 * Each entry keeps its intermediates in the caller's `scratch`, at offsets
 * planned at compile time (tfm-cpu-plan-memory). The generated code has no
 * mutable static state: calls with different caches and scratch buffers may
 * run at the same time, in different threads; one cache or scratch buffer
 * must not be used by two calls at once. */

/* Runs `prefill_chunk` tokens at positions [pos, pos + prefill_chunk) and
 * writes the vocab_size logits of token `count - 1` (1 <= count <=
 * prefill_chunk: the last real token of the chunk). With count == 0 it only
 * fills the cache and leaves `logits` alone (a chunk whose logits nobody
 * reads skips the vocabulary projection). Requires
 * pos + prefill_chunk <= context_length. Tokens from `count` on (or, with
 * count == 0, past the last real one) may hold any id: their cache rows are
 * overwritten by later calls before any query can attend to them. */
void tfm_prefill(const uint8_t *weights, const int32_t *tokens, int64_t pos,
                 int64_t count, void *cache, float *logits, uint8_t *scratch,
                 void *stream);
/* Runs one token at position `pos` (< context_length); writes vocab_size
 * logits. */
void tfm_decode(const uint8_t *weights, const int32_t *token, int64_t pos,
                void *cache, float *logits, uint8_t *scratch, void *stream);

/* Encoders (kind TFM_KIND_ENCODER) define this instead of the two above.
 * Runs the context_length tokens of `tokens`, of which the first `length`
 * (1 <= length <= context_length) are real and the rest padding (any ids:
 * no real position attends to them), and writes for every position the
 * final hidden states, [context_length][hidden_size], and, when
 * encode_logits is 1, the masked-LM logits, [context_length][vocab_size].
 * With encode_logits 0 `logits` is not used: pass NULL. Rows of padding
 * positions hold meaningless values: a model compiled with encode buckets
 * computes only the shortest bucket that holds `length` rows, and leaves
 * the rows after it as they were. */
void tfm_encode(const uint8_t *weights, const int32_t *tokens, int64_t length,
                float *hidden, float *logits, uint8_t *scratch, void *stream);

/* Encoder-decoders (kind TFM_KIND_ENCODER_DECODER, T5) define these
 * instead. tfm_seq2seq_encode runs the encoder over the context_length
 * source tokens of `tokens`, of which the first `source_length` (1 <=
 * source_length <= context_length) are real, and stores every decoder
 * layer's cross-attention keys and values in `cache`, once per source.
 * tfm_seq2seq_prefill and tfm_seq2seq_decode then run target tokens as
 * tfm_prefill and tfm_decode do, their cross-attention reading the first
 * `source_length` stored rows: pass the source_length of the last
 * tfm_seq2seq_encode on this cache. Target positions start at 0 (the
 * decoder_start_token). */
void tfm_seq2seq_encode(const uint8_t *weights, const int32_t *tokens,
                        int64_t source_length, void *cache, uint8_t *scratch,
                        void *stream);
void tfm_seq2seq_prefill(const uint8_t *weights, const int32_t *tokens,
                         int64_t pos, int64_t count, int64_t source_length,
                         void *cache, float *logits, uint8_t *scratch,
                         void *stream);
void tfm_seq2seq_decode(const uint8_t *weights, const int32_t *token,
                        int64_t pos, int64_t source_length, void *cache,
                        float *logits, uint8_t *scratch, void *stream);

/* How many host threads the entries may fork (at least 1), for the calls
 * that follow: the CPU code's OpenMP teams, or nothing where the code runs
 * on one thread or on a device. Every object defines it. */
void tfm_set_num_threads(int32_t threads);

#ifdef __cplusplus
}
#endif

#endif /* TFMC_RUNTIME_MODELABI_H */
