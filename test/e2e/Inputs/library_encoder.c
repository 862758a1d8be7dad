/* The C API of an encoder (BERT) compiled with --emit=lib.
 *
 *   library_encoder PACKAGE embed TEXT [POOLING NORMALIZE]
 *       Tokenizes TEXT ([CLS] ... [SEP]) and prints its embedding as the
 *       executable's --embed prints it: pooled as the package says
 *       (tfmc_model_embedding), or with the tfmc_pooling number POOLING
 *       and NORMALIZE (0 or 1).
 *   library_encoder PACKAGE fill-mask TEXT K
 *       Prints the K likeliest tokens at each [MASK] of TEXT as the
 *       executable's fill-mask --json prints them.
 *   library_encoder PACKAGE errors
 *       Bad calls on an encoder: each prints its status and message.
 *   library_encoder PACKAGE decoder
 *       The encoder calls on a generating model are refused.
 *
 * PACKAGE is a package file or "-" for the one linked in. Exits non-zero
 * on an unexpected failure; frees everything it allocates. Plain C99
 * against the generated header. */
#include MODEL_HEADER

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TOKENS 1024

static const char *const kPoolingNames[] = {"mean", "cls", "max",
                                            "mean_sqrt_len", "last"};

static int fail(tfmc_context *context, const char *what, tfmc_status status) {
  fprintf(stderr, "%s failed (%d): %s\n", what, (int)status,
          tfmc_error_message(context));
  return 1;
}

/* `text` as a JSON string literal, as the executable writes one. */
static void print_json_string(const char *text) {
  const unsigned char *c;
  putchar('"');
  for (c = (const unsigned char *)text; *c; ++c) {
    if (*c == '"')
      fputs("\\\"", stdout);
    else if (*c == '\\')
      fputs("\\\\", stdout);
    else if (*c == '\n')
      fputs("\\n", stdout);
    else if (*c == '\t')
      fputs("\\t", stdout);
    else if (*c == '\r')
      fputs("\\r", stdout);
    else if (*c < 0x20)
      printf("\\u%04x", *c);
    else
      putchar(*c);
  }
  putchar('"');
}

static int tokenize(tfmc_context *context, const char *text, int32_t *ids,
                    int32_t *count) {
  tfmc_status status = tfmc_tokenize(context, text, 1, ids, MAX_TOKENS, count);
  return status == TFMC_OK ? 0 : fail(context, "tfmc_tokenize", status);
}

static int embed(tfmc_context *context, int argc, char **argv) {
  static int32_t ids[MAX_TOKENS];
  int32_t count, size = tfmc_embedding_size(context), i;
  tfmc_embedding_options options = tfmc_model_embedding(context);
  tfmc_status status;
  float *embedding;
  if (argc > 5) {
    options.pooling = (tfmc_pooling)atoi(argv[4]);
    options.normalize = atoi(argv[5]);
  }
  if (tokenize(context, argv[3], ids, &count))
    return 1;
  embedding = malloc((size_t)size * sizeof(float));
  if (!embedding)
    return 1;
  status =
      tfmc_embed(context, ids, count, argc > 5 ? &options : NULL, embedding);
  if (status != TFMC_OK) {
    free(embedding);
    return fail(context, "tfmc_embed", status);
  }
  printf("{\"pooling\": \"%s\", \"normalized\": %s, \"tokens\": %d, "
         "\"embedding\": [",
         kPoolingNames[options.pooling], options.normalize ? "true" : "false",
         (int)count);
  for (i = 0; i < size; ++i)
    printf("%s%.9g", i ? ", " : "", embedding[i]);
  printf("]}\n");
  free(embedding);
  return 0;
}

static int fill_mask(tfmc_context *context, char **argv) {
  static int32_t ids[MAX_TOKENS];
  int32_t count, k = atoi(argv[4]), stored, i;
  tfmc_prediction *predictions;
  tfmc_status status;
  char token[256];
  size_t length;
  if (tokenize(context, argv[3], ids, &count))
    return 1;
  /* Asking with no room says how much is needed. */
  status = tfmc_fill_mask(context, ids, count, k, NULL, 0, &stored);
  if (status != TFMC_ERROR_BUFFER_TOO_SMALL)
    return fail(context, "tfmc_fill_mask sizing", status);
  predictions = malloc((size_t)stored * sizeof(tfmc_prediction));
  if (!predictions)
    return 1;
  status = tfmc_fill_mask(context, ids, count, k, predictions, stored, &stored);
  if (status != TFMC_OK) {
    free(predictions);
    return fail(context, "tfmc_fill_mask", status);
  }
  for (i = 0; i < stored; ++i) {
    if (i % k == 0)
      printf("{\"position\": %d, \"top\": [", (int)predictions[i].position);
    status = tfmc_token_string(context, predictions[i].token, token,
                               sizeof token, &length);
    if (status != TFMC_OK) {
      free(predictions);
      return fail(context, "tfmc_token_string", status);
    }
    printf("%s{\"id\": %d, \"token\": ", i % k ? ", " : "",
           (int)predictions[i].token);
    print_json_string(token);
    printf(", \"logit\": %.9g}", predictions[i].logit);
    if (i % k == k - 1)
      printf("]}\n");
  }
  free(predictions);
  return 0;
}

static void report(tfmc_context *context, const char *what,
                   tfmc_status status) {
  printf("%s: %d %s\n", what, (int)status, tfmc_error_message(context));
}

static int errors(tfmc_context *context) {
  static int32_t ids[MAX_TOKENS];
  int32_t count, stored, vocab = tfmc_vocab_size(context);
  int32_t mask = tfmc_mask_token(context);
  const float *logits;
  float embedding[1024];
  tfmc_embedding_options bad = tfmc_model_embedding(context);
  tfmc_prediction one;
  size_t length;
  char text[4];
  printf("embedding size %d, mask %d, context %d\n",
         (int)tfmc_embedding_size(context), (int)mask,
         (int)tfmc_context_length(context));
  if (tokenize(context, "the cat sat", ids, &count))
    return 1;
  report(context, "prefill", tfmc_prefill(context, ids, count, &logits));
  report(context, "encode source", tfmc_encode_source(context, ids, count));
  report(context, "no mask",
         tfmc_fill_mask(context, ids, count, 3, &one, 1, &stored));
  report(context, "empty", tfmc_embed(context, ids, 0, NULL, embedding));
  report(context, "long",
         tfmc_embed(context, ids, tfmc_context_length(context) + 1, NULL,
                    embedding));
  ids[count] = vocab;
  report(context, "bad id",
         tfmc_embed(context, ids, count + 1, NULL, embedding));
  bad.pooling = (tfmc_pooling)100;
  report(context, "bad pooling",
         tfmc_embed(context, ids, count, &bad, embedding));
  ids[1] = mask;
  ids[2] = mask;
  report(context, "top_k 0",
         tfmc_fill_mask(context, ids, count, 0, &one, 1, &stored));
  report(context, "small buffer",
         tfmc_fill_mask(context, ids, count, 2, &one, 1, &stored));
  printf("needed %d\n", (int)stored);
  report(context, "token string",
         tfmc_token_string(context, mask, text, sizeof text, &length));
  printf("length %d\n", (int)length);
  return 0;
}

static int decoder(tfmc_context *context) {
  int32_t ids[1] = {1}, stored;
  float embedding[1];
  tfmc_prediction one;
  printf("embedding size %d, mask %d\n", (int)tfmc_embedding_size(context),
         (int)tfmc_mask_token(context));
  report(context, "embed", tfmc_embed(context, ids, 1, NULL, embedding));
  report(context, "fill-mask",
         tfmc_fill_mask(context, ids, 1, 1, &one, 1, &stored));
  return 0;
}

int main(int argc, char **argv) {
  tfmc_context *context;
  tfmc_status status;
  int result = 2;
  if (argc < 3)
    return 2;
  status = tfmc_context_create(strcmp(argv[1], "-") ? argv[1] : NULL, &context);
  if (status != TFMC_OK) {
    fail(context, "tfmc_context_create", status);
    tfmc_context_free(context);
    return 1;
  }
  if (!strcmp(argv[2], "embed") && argc > 3)
    result = embed(context, argc, argv);
  else if (!strcmp(argv[2], "fill-mask") && argc > 4)
    result = fill_mask(context, argv);
  else if (!strcmp(argv[2], "errors"))
    result = errors(context);
  else if (!strcmp(argv[2], "decoder"))
    result = decoder(context);
  tfmc_context_free(context);
  return result;
}
