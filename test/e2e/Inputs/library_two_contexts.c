/* Two contexts of a --emit=lib model, each on its own thread, must produce
 * the text one context produces alone: greedy, and seeded sampling.
 *
 *   library_two_contexts PACKAGE PROMPT STEPS
 *
 * Context 1 is created from the embedded package, context 2 from PACKAGE.
 * Prints the single-context greedy text (prompt included, as the
 * executables print it) and one line per check; exits non-zero on any
 * difference or error. Built as plain C99 against the generated header. */
#include MODEL_HEADER

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TOKENS 512
#define ROUNDS 3

typedef struct run {
  tfmc_context *context;
  const char *prompt;
  int steps;
  tfmc_sampler_options sampler;
  int32_t tokens[MAX_TOKENS];
  int32_t count; /* prompt and generated ids */
  int differs;   /* a later round produced other ids than the first */
  tfmc_status status;
} run;

static void report(const char *what, tfmc_context *context,
                   tfmc_status status) {
  fprintf(stderr, "%s failed (%d): %s\n", what, (int)status,
          tfmc_error_message(context));
}

/* Prompt, then `steps` sampled ids (fewer at EOS/BOS or a full context). */
static tfmc_status generate(run *r) {
  int32_t prompt = 0, step;
  const float *logits;
  tfmc_status status;
  tfmc_reset(r->context);
  if ((status = tfmc_set_sampler(r->context, &r->sampler)) != TFMC_OK ||
      (status = tfmc_tokenize(r->context, r->prompt, 1, r->tokens, MAX_TOKENS,
                              &prompt)) != TFMC_OK ||
      (status = tfmc_prefill(r->context, r->tokens, prompt, &logits)) !=
          TFMC_OK)
    return status;
  r->count = prompt;
  for (step = 0; step < r->steps && r->count < MAX_TOKENS; ++step) {
    int32_t next;
    if ((status = tfmc_sample(r->context, logits, &next)) != TFMC_OK)
      return status;
    if (next == tfmc_eos_token(r->context) ||
        next == tfmc_bos_token(r->context))
      break;
    r->tokens[r->count++] = next;
    if (step + 1 == r->steps ||
        tfmc_position(r->context) >= tfmc_context_length(r->context))
      break;
    if ((status = tfmc_decode(r->context, next, &logits)) != TFMC_OK)
      return status;
  }
  return TFMC_OK;
}

/* Several rounds, so that the two threads' calls overlap many times. */
static void *generate_rounds(void *argument) {
  run *r = argument;
  int32_t first[MAX_TOKENS];
  int32_t first_count = 0;
  int round;
  for (round = 0; round < ROUNDS; ++round) {
    r->status = generate(r);
    if (r->status != TFMC_OK)
      return NULL;
    if (round == 0) {
      memcpy(first, r->tokens, sizeof(first));
      first_count = r->count;
    } else if (r->count != first_count ||
               memcmp(first, r->tokens, sizeof(int32_t) * r->count) != 0) {
      r->differs = 1;
    }
  }
  return NULL;
}

static int same(const run *a, const run *b) {
  return a->count == b->count &&
         memcmp(a->tokens, b->tokens, sizeof(int32_t) * a->count) == 0;
}

/* Runs `options` alone on context 1, then on both contexts at once. */
static int check(tfmc_context *one, tfmc_context *two, const char *prompt,
                 int steps, tfmc_sampler_options options, const char *name) {
  static run alone, first, second; /* large; main's thread only */
  pthread_t threads[2];
  int ok;
  memset(&alone, 0, sizeof(alone));
  alone.context = one;
  alone.prompt = prompt;
  alone.steps = steps;
  alone.sampler = options;
  first = second = alone;
  second.context = two;
  if ((alone.status = generate(&alone)) != TFMC_OK) {
    report("generation", one, alone.status);
    return 0;
  }
  if (pthread_create(&threads[0], NULL, generate_rounds, &first) != 0 ||
      pthread_create(&threads[1], NULL, generate_rounds, &second) != 0) {
    fprintf(stderr, "cannot start threads\n");
    return 0;
  }
  pthread_join(threads[0], NULL);
  pthread_join(threads[1], NULL);
  if (first.status != TFMC_OK || second.status != TFMC_OK) {
    report("threaded generation", first.status ? one : two,
           first.status ? first.status : second.status);
    return 0;
  }
  ok = same(&alone, &first) && same(&alone, &second) && !first.differs &&
       !second.differs;
  printf("%s: %d ids, two threads %s\n", name, alone.count,
         ok ? "identical" : "DIFFER");
  if (ok && options.temperature == 0.0f) {
    char text[4 * MAX_TOKENS];
    size_t length;
    tfmc_status status = tfmc_detokenize(one, alone.tokens, alone.count, text,
                                         sizeof(text), &length);
    if (status != TFMC_OK) {
      report("tfmc_detokenize", one, status);
      return 0;
    }
    printf("text: %s\n", text);
  }
  return ok;
}

int main(int argc, char **argv) {
  tfmc_context *one = NULL, *two = NULL;
  tfmc_sampler_options sampled = tfmc_sampler_defaults();
  tfmc_status status;
  int ok;
  if (argc != 4) {
    fprintf(stderr, "usage: %s PACKAGE PROMPT STEPS\n", argv[0]);
    return 2;
  }
  if ((status = tfmc_context_create(NULL, &one)) != TFMC_OK) {
    report("tfmc_context_create(NULL)", one, status);
    return 1;
  }
  if ((status = tfmc_context_create(argv[1], &two)) != TFMC_OK) {
    report("tfmc_context_create(PACKAGE)", two, status);
    return 1;
  }
  sampled.temperature = 0.8f;
  sampled.top_k = 20;
  sampled.top_p = 0.9f;
  sampled.seed = 7;
  ok = check(one, two, argv[2], atoi(argv[3]), tfmc_sampler_defaults(),
             "greedy");
  ok = check(one, two, argv[2], atoi(argv[3]), sampled, "sampled") && ok;
  tfmc_context_free(one);
  tfmc_context_free(two);
  return ok ? 0 : 1;
}
