/* The negative control of tools/test-tsan.sh: two threads run tfm_decode
 * (runtime/ModelABI.h, below the C API) with their own caches but ONE
 * scratch buffer, as two contexts did when the scratch was a static arena.
 * ThreadSanitizer must report it, or the check of the generated code proves
 * nothing. Zero weights: only the memory accesses matter here. C11
 * (aligned_alloc). */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* runtime/ModelABI.h, ABI 8 (the library ships only ModelLibrary.h). */
typedef struct tfm_model_info {
  uint32_t abi_version, vocab_size, context_length, prefill_chunk;
  uint64_t weights_bytes, cache_bytes, weights_hash, scratch_bytes,
      scratch_alignment;
  uint32_t kind, hidden_size, encode_logits, cache_element_bytes,
      decoder_start_token, device;
  uint64_t weights_alignment;
} tfm_model_info;
extern const tfm_model_info tfm_model;
void tfm_decode(const uint8_t *weights, const int32_t *token, int64_t pos,
                void *cache, float *logits, uint8_t *scratch, void *stream);

static uint8_t *weights, *shared_scratch;

static void *decode_steps(void *unused) {
  void *cache = calloc(tfm_model.cache_bytes, 1);
  float *logits = calloc(tfm_model.vocab_size, sizeof(float));
  int32_t token = 1;
  int64_t pos;
  (void)unused;
  for (pos = 0; pos < 8; ++pos)
    tfm_decode(weights, &token, pos, cache, logits, shared_scratch, NULL);
  free(cache);
  free(logits);
  return NULL;
}

int main(void) {
  pthread_t threads[2];
  weights = aligned_alloc(4096, (tfm_model.weights_bytes + 4095) / 4096 * 4096);
  shared_scratch = aligned_alloc(64, (tfm_model.scratch_bytes + 63) / 64 * 64);
  if (!weights || !shared_scratch)
    return 2;
  for (uint64_t i = 0; i < tfm_model.weights_bytes; ++i)
    weights[i] = 0;
  pthread_create(&threads[0], NULL, decode_steps, NULL);
  pthread_create(&threads[1], NULL, decode_steps, NULL);
  pthread_join(threads[0], NULL);
  pthread_join(threads[1], NULL);
  puts("no race reported");
  return 0;
}
