/* The C library generates as the executable does: the model's stop ids
 * (tfmc_is_end_token), its generation_config.json sampling
 * (tfmc_model_sampler), min_p and the repetition penalty over the ids run
 * so far, and stop strings (tfmc_find_stop). Greedy decoding with a
 * repetition penalty prints here what the executable prints with
 * --repetition-penalty; a stop string cuts the text where the executable's
 * --stop does. The text goes to stdout, as the executable prints it; the
 * model's settings to stderr.
 *
 *   library_generation PACKAGE PROMPT STEPS PENALTY [STOP]
 */
#include MODEL_HEADER

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(call)                                                            \
  do {                                                                         \
    if ((call) != TFMC_OK) {                                                   \
      fprintf(stderr, "%s failed: %s\n", #call, tfmc_error_message(context));  \
      tfmc_context_free(context);                                              \
      return 1;                                                                \
    }                                                                          \
  } while (0)

int main(int argc, char **argv) {
  tfmc_context *context = NULL;
  tfmc_sampler_options options;
  int32_t ids[512], count = 0, prompt = 0, next = 0, steps, i;
  const float *logits = NULL;
  char text[4096];
  size_t length = 0, stop = 0;
  const char *stops[1];
  if (argc < 5) {
    fprintf(stderr, "usage: %s PACKAGE PROMPT STEPS PENALTY [STOP]\n", argv[0]);
    return 2;
  }
  steps = atoi(argv[3]);
  CHECK(tfmc_context_create(argv[1], &context));
  options = tfmc_model_sampler(context);
  fprintf(stderr,
          "model sampler: temperature %g top_k %d min_p %g penalty %g\n",
          options.temperature, (int)options.top_k, options.min_p,
          options.repetition_penalty);
  fprintf(stderr, "eos %d is an end token: %d\n", (int)tfmc_eos_token(context),
          tfmc_is_end_token(context, tfmc_eos_token(context)));
  options = tfmc_sampler_defaults();
  options.repetition_penalty = (float)atof(argv[4]);
  CHECK(tfmc_set_sampler(context, &options));
  if (argc > 5) {
    stops[0] = argv[5];
    CHECK(tfmc_set_stop_strings(context, stops, 1));
  }
  CHECK(tfmc_tokenize(context, argv[2], 1, ids, 512, &count));
  prompt = count;
  CHECK(tfmc_prefill(context, ids, count, &logits));
  for (i = 0; i < steps && count < 512; ++i) {
    CHECK(tfmc_sample(context, logits, &next));
    if (tfmc_is_end_token(context, next))
      break;
    ids[count++] = next;
    CHECK(tfmc_detokenize(context, ids + prompt, count - prompt, text,
                          sizeof text, &length));
    if (tfmc_find_stop(context, text, length, &stop)) {
      length = stop;
      break;
    }
    if (i + 1 < steps)
      CHECK(tfmc_decode(context, next, &logits));
  }
  CHECK(tfmc_detokenize(context, ids + prompt, count - prompt, text,
                        sizeof text, &length));
  if (tfmc_find_stop(context, text, length, &stop))
    length = stop;
  printf("%s%.*s\n", argv[2], (int)length, text);
  tfmc_context_free(context);
  return 0;
}
