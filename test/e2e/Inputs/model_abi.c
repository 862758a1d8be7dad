/* A C program against runtime/ModelABI.h alone, below the C API: it maps
 * nothing and links no tfmc runtime, reads the weights blob of a package
 * (runtime/Package.h's trailer) into its own buffer, calls the entries
 * with its own cache and scratch and a NULL stream, and writes the rows of
 * float32 an executable's --dump-logits writes for the same ids: a
 * decoder's logits of one tfm_decode per id, or an encoder's masked-LM
 * logits (hidden states without the head: tfm_encode then gets NULL
 * logits). It also checks that tfm_set_num_threads sets the OpenMP team
 * size of parallel code. C11 (aligned_alloc).
 *
 *   model_abi PACKAGE OUT IDS   (IDS: comma-separated)
 */
#include "runtime/ModelABI.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Encoders define tfm_encode, decoders tfm_decode: each program links one
 * object, so both references are weak. The OpenMP runtime is there when
 * the code is parallel. */
#pragma weak tfm_encode
#pragma weak tfm_decode
#pragma weak omp_get_max_threads
int omp_get_max_threads(void);

static int fail(const char *message) {
  fprintf(stderr, "model_abi: %s\n", message);
  return 1;
}

static void *aligned_zeros(uint64_t bytes, uint64_t alignment) {
  uint64_t rounded;
  void *buffer;
  if (alignment < sizeof(void *))
    alignment = sizeof(void *);
  rounded = (bytes + alignment - 1) / alignment * alignment;
  if (rounded == 0)
    rounded = alignment;
  buffer = aligned_alloc(alignment, rounded);
  if (buffer)
    memset(buffer, 0, rounded);
  return buffer;
}

static uint64_t read_u64(const unsigned char *bytes) {
  uint64_t value = 0;
  int i;
  for (i = 7; i >= 0; --i)
    value = value << 8 | bytes[i];
  return value;
}

/* The weights blob of the package at the end of `path`, in a buffer of
 * tfm_model.weights_alignment. */
static uint8_t *read_weights(const char *path) {
  unsigned char trailer[64];
  uint64_t offset, bytes, hash;
  uint8_t *weights;
  FILE *file = fopen(path, "rb");
  if (!file || fseek(file, -64, SEEK_END) != 0 ||
      fread(trailer, 1, 64, file) != 64 || memcmp(trailer, "TFMPKG01", 8)) {
    fprintf(stderr, "model_abi: no package at the end of '%s'\n", path);
    return NULL;
  }
  offset = read_u64(trailer + 8);
  bytes = read_u64(trailer + 16);
  hash = read_u64(trailer + 40);
  if (bytes != tfm_model.weights_bytes || hash != tfm_model.weights_hash) {
    fprintf(stderr, "model_abi: '%s' holds other weights\n", path);
    return NULL;
  }
  weights = aligned_zeros(bytes, tfm_model.weights_alignment);
  if (!weights || fseek(file, (long)offset, SEEK_SET) != 0 ||
      fread(weights, 1, bytes, file) != bytes) {
    fprintf(stderr, "model_abi: cannot read the weights of '%s'\n", path);
    return NULL;
  }
  fclose(file);
  return weights;
}

int main(int argc, char **argv) {
  int32_t ids[256];
  int64_t count = 0, i;
  char *next;
  uint8_t *weights, *scratch;
  FILE *out;
  if (argc != 4)
    return fail("usage: model_abi PACKAGE OUT IDS");
  if (tfm_model.abi_version != TFM_ABI_VERSION)
    return fail("the object was compiled for another ABI version");
  if (tfm_model.device != TFM_DEVICE_HOST)
    return fail("the object runs on a device");
  for (next = argv[3]; *next && count < 256; ++count) {
    ids[count] = (int32_t)strtol(next, &next, 10);
    if (ids[count] < 0 || (uint32_t)ids[count] >= tfm_model.vocab_size)
      return fail("an id is outside the vocabulary");
    if (*next == ',')
      ++next;
  }
  if (count < 1 || count > (int64_t)tfm_model.context_length)
    return fail("the ids do not fit the model");

  /* With OMP_NUM_THREADS=2 in the environment, parallel code would fork
   * teams of 2: tfm_set_num_threads decides. */
  tfm_set_num_threads(3);
  if (omp_get_max_threads && omp_get_max_threads() != 3)
    return fail("tfm_set_num_threads(3) did not set the OpenMP team size");
  tfm_set_num_threads(1);
  printf("threads: %d\n", omp_get_max_threads ? omp_get_max_threads() : 1);

  weights = read_weights(argv[1]);
  scratch = aligned_zeros(tfm_model.scratch_bytes, tfm_model.scratch_alignment);
  out = fopen(argv[2], "wb");
  if (!weights || !scratch || !out)
    return fail("cannot set up the buffers");
  if (tfm_model.kind == TFM_KIND_DECODER) {
    float *logits = calloc(tfm_model.vocab_size, sizeof(float));
    void *cache = aligned_zeros(tfm_model.cache_bytes, 64);
    if (!logits || !cache || !tfm_decode)
      return fail("cannot run the decoder");
    for (i = 0; i < count; ++i) {
      tfm_decode(weights, &ids[i], i, cache, logits, scratch, NULL);
      fwrite(logits, sizeof(float), tfm_model.vocab_size, out);
    }
    printf("decoder: %d rows of %u logits\n", (int)count, tfm_model.vocab_size);
    free(logits);
    free(cache);
  } else if (tfm_model.kind == TFM_KIND_ENCODER) {
    uint64_t positions = tfm_model.context_length;
    int32_t *tokens = calloc(positions, sizeof(int32_t));
    float *hidden = calloc(positions * tfm_model.hidden_size, sizeof(float));
    float *logits =
        tfm_model.encode_logits
            ? calloc(positions * tfm_model.vocab_size, sizeof(float))
            : NULL;
    uint64_t width =
        tfm_model.encode_logits ? tfm_model.vocab_size : tfm_model.hidden_size;
    if (!tokens || !hidden || (tfm_model.encode_logits && !logits) ||
        !tfm_encode)
      return fail("cannot run the encoder");
    memcpy(tokens, ids, (size_t)count * sizeof(int32_t));
    tfm_encode(weights, tokens, count, hidden, logits, scratch, NULL);
    for (i = 0; i < count; ++i)
      fwrite((logits ? logits : hidden) + i * width, sizeof(float), width, out);
    printf("encoder: %d rows of %s\n", (int)count,
           logits ? "logits" : "hidden states (logits NULL)");
    free(tokens);
    free(hidden);
    free(logits);
  } else {
    return fail("encoder-decoders are not covered");
  }
  /* Everything is released: the sanitized suite runs this under
   * LeakSanitizer. */
  free(weights);
  free(scratch);
  if (fclose(out) != 0)
    return fail("cannot write the output");
  return 0;
}
