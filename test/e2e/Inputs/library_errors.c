/* Bad inputs to the C API of a --emit=lib model get a status and a message,
 * never an abort:
 *
 *   library_errors MISSING TRUNCATED OTHER_MODEL_PACKAGE
 *
 * prints "<call>: <status> <message>" per check. Plain C99. */
#include MODEL_HEADER

#include <stdio.h>

static void show(const char *call, tfmc_status status,
                 const tfmc_context *context) {
  printf("%s: %d %s\n", call, (int)status, tfmc_error_message(context));
}

static void create(const char *what, const char *path) {
  tfmc_context *context = NULL;
  tfmc_status status = tfmc_context_create(path, &context);
  show(what, status, context);
  /* A failed context answers, and is freed, like any other. */
  printf("%s: vocab %d\n", what, (int)tfmc_vocab_size(context));
  tfmc_context_free(context);
}

int main(int argc, char **argv) {
  tfmc_context *context = NULL;
  tfmc_sampler_options options = tfmc_sampler_defaults();
  int32_t tokens[4], count = 0, bad = -1, many[300];
  const float *logits = NULL;
  char text[2];
  size_t length = 0;
  int i;
  if (argc != 4)
    return 2;
  create("missing", argv[1]);
  create("truncated", argv[2]);
  create("other model", argv[3]);
  printf("create without result: %d\n", (int)tfmc_context_create(NULL, NULL));

  if (tfmc_context_create(NULL, &context) != TFMC_OK)
    return 1;
  show("tokenize small buffer",
       tfmc_tokenize(context, "Once upon a time", 1, tokens, 4, &count),
       context);
  printf("tokens needed: %d\n", (int)count);
  show("tokenize null text", tfmc_tokenize(context, NULL, 1, tokens, 4, &count),
       context);
  show("prefill no tokens", tfmc_prefill(context, tokens, 0, &logits), context);
  show("prefill bad id", tfmc_prefill(context, &bad, 1, &logits), context);
  for (i = 0; i < 300; ++i)
    many[i] = 65;
  show("prefill past context", tfmc_prefill(context, many, 300, &logits),
       context);
  printf("position: %d\n", (int)tfmc_position(context));
  /* A count far past the array: refused before any id is read (a
   * sanitized build reports the read otherwise). */
  show("prefill huge count", tfmc_prefill(context, tokens, 2147483647, &logits),
       context);
  show("decode bad id", tfmc_decode(context, 1 << 20, &logits), context);
  tokens[0] = 72;
  tokens[1] = 105;
  show("detokenize small buffer",
       tfmc_detokenize(context, tokens, 2, text, sizeof(text), &length),
       context);
  printf("bytes needed: %d\n", (int)length);
  options.top_p = 0.0f;
  show("sampler bad top_p", tfmc_set_sampler(context, &options), context);
  show("sample null logits", tfmc_sample(context, NULL, &count), context);
  show("decode ok", tfmc_decode(context, 65, &logits), context);
  printf("decoder start: %d\n", (int)tfmc_decoder_start_token(context));
  show("encode source of a decoder-only model",
       tfmc_encode_source(context, tokens, 2), context);
  tfmc_context_free(context);
  tfmc_context_free(NULL);
  return 0;
}
