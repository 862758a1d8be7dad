/* The C API of an encoder-decoder (T5) compiled with --emit=lib.
 *
 *   library_seq2seq logits SOURCE_IDS TARGET_IDS OUT
 *       Encodes the comma-separated source ids, then runs the target ids
 *       one tfmc_decode at a time and writes the logits of every position
 *       as little-endian float32 [n][vocab] to OUT (the executables'
 *       --dump-logits layout). Runs them again after tfmc_reset (the
 *       source stays) and checks the logits are the same.
 *   library_seq2seq generate PROMPT STEPS SEED
 *       Tokenizes PROMPT (special tokens added), encodes it and samples up
 *       to STEPS ids (temperature 1, SEED) from the decoder start token,
 *       stopping at EOS; prints the text as the executables print it.
 *
 * Prints the checks it makes; exits non-zero on any failure. Plain C99
 * against the generated header. */
#include MODEL_HEADER

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TOKENS 1024

static int fail(tfmc_context *context, const char *what, tfmc_status status) {
  fprintf(stderr, "%s failed (%d): %s\n", what, (int)status,
          tfmc_error_message(context));
  return 1;
}

static int32_t parse_ids(const char *text, int32_t *ids) {
  int32_t count = 0;
  while (*text && count < MAX_TOKENS) {
    char *end;
    ids[count++] = (int32_t)strtol(text, &end, 10);
    text = *end == ',' ? end + 1 : end;
  }
  return count;
}

/* MAX_TOKENS ids of 0. */
static const int32_t *first_ids(void) {
  static int32_t zeros[MAX_TOKENS];
  return zeros;
}

static int run_logits(tfmc_context *context, const char *source_text,
                      const char *target_text, const char *out_path) {
  static int32_t source[MAX_TOKENS], target[MAX_TOKENS];
  int32_t sources = parse_ids(source_text, source);
  int32_t targets = parse_ids(target_text, target);
  int32_t vocab = tfmc_vocab_size(context);
  float *first = malloc((size_t)targets * (size_t)vocab * sizeof(float));
  const float *logits;
  tfmc_status status;
  int32_t round, i;
  FILE *out;
  if (!first)
    return 1;
  /* The decoder needs a source. */
  status = tfmc_decode(context, target[0], &logits);
  if (status != TFMC_ERROR_ARGUMENT)
    return fail(context, "decode without a source", status);
  printf("no source: %s\n", tfmc_error_message(context));
  /* A source longer than the context, or with an id outside the
   * vocabulary, is refused and leaves no source behind. */
  status = tfmc_encode_source(context, first_ids(), MAX_TOKENS);
  printf("long source: %d %s\n", (int)status, tfmc_error_message(context));
  source[sources] = vocab;
  status = tfmc_encode_source(context, source, sources + 1);
  printf("bad source id: %d %s\n", (int)status, tfmc_error_message(context));
  if ((status = tfmc_encode_source(context, source, sources)) != TFMC_OK)
    return fail(context, "tfmc_encode_source", status);
  for (round = 0; round < 2; ++round) {
    for (i = 0; i < targets; ++i) {
      if ((status = tfmc_decode(context, target[i], &logits)) != TFMC_OK)
        return fail(context, "tfmc_decode", status);
      if (round == 0)
        memcpy(first + (size_t)i * (size_t)vocab, logits,
               (size_t)vocab * sizeof(float));
      else if (memcmp(first + (size_t)i * (size_t)vocab, logits,
                      (size_t)vocab * sizeof(float)) != 0) {
        fprintf(stderr, "position %d differs after tfmc_reset\n", (int)i);
        return 1;
      }
    }
    tfmc_reset(context);
  }
  printf("start token %d, %d positions, the same after tfmc_reset\n",
         (int)tfmc_decoder_start_token(context), (int)targets);
  out = fopen(out_path, "wb");
  if (!out || fwrite(first, sizeof(float), (size_t)targets * (size_t)vocab,
                     out) != (size_t)targets * (size_t)vocab)
    return 1;
  fclose(out);
  free(first);
  return 0;
}

static int run_generate(tfmc_context *context, const char *prompt, int steps,
                        unsigned seed) {
  static int32_t source[MAX_TOKENS], output[MAX_TOKENS];
  static char text[16 * MAX_TOKENS];
  tfmc_sampler_options sampler = tfmc_sampler_defaults();
  int32_t sources = 0, count = 0, next = tfmc_decoder_start_token(context);
  const float *logits;
  size_t length;
  tfmc_status status;
  sampler.temperature = 1.0f;
  sampler.seed = seed;
  if ((status = tfmc_set_sampler(context, &sampler)) != TFMC_OK ||
      (status = tfmc_tokenize(context, prompt, 1, source, MAX_TOKENS,
                              &sources)) != TFMC_OK ||
      (status = tfmc_encode_source(context, source, sources)) != TFMC_OK)
    return fail(context, "encoding the prompt", status);
  while (count < steps && count < MAX_TOKENS) {
    if ((status = tfmc_decode(context, next, &logits)) != TFMC_OK ||
        (status = tfmc_sample(context, logits, &next)) != TFMC_OK)
      return fail(context, "decoding", status);
    if (next == tfmc_eos_token(context))
      break;
    output[count++] = next;
    if (tfmc_position(context) >= tfmc_context_length(context))
      break;
  }
  if ((status = tfmc_detokenize(context, output, count, text, sizeof text,
                                &length)) != TFMC_OK)
    return fail(context, "tfmc_detokenize", status);
  printf("%s\n", text);
  return 0;
}

int main(int argc, char **argv) {
  tfmc_context *context;
  tfmc_status status = tfmc_context_create(NULL, &context);
  int result;
  if (status != TFMC_OK)
    return fail(context, "tfmc_context_create", status);
  if (argc == 5 && strcmp(argv[1], "logits") == 0)
    result = run_logits(context, argv[2], argv[3], argv[4]);
  else if (argc == 5 && strcmp(argv[1], "generate") == 0)
    result = run_generate(context, argv[2], atoi(argv[3]),
                          (unsigned)strtoul(argv[4], NULL, 10));
  else {
    fprintf(stderr, "usage: library_seq2seq logits SOURCE TARGET OUT | "
                    "generate PROMPT STEPS SEED\n");
    result = 2;
  }
  tfmc_context_free(context);
  return result;
}
