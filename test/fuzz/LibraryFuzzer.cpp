//===- LibraryFuzzer.cpp - Fuzz the C library's argument checks -----------===//
//
// Input: a sequence of calls of the C API of `tfmc compile --emit=lib`
// (runtime/ModelLibrary.h) on one context of a tiny compiled model (its
// code and package built by this build's tfmc, the runtime around them
// instrumented): each call is an opcode byte and its arguments, counts and
// ids anywhere in int32's range, capacities, texts, sampler settings and
// logits of any bits. Every caller buffer is allocated with exactly the
// elements the call may read, so that a read before a check shows up under
// AddressSanitizer; tokens are read only when they fit the context
// (tfmc_prefill's contract), so a count past it gets a buffer of what fits.
// The context's position must follow the calls: unchanged by a failed
// prefill or decode, advanced by the count of a successful one.
//
//===----------------------------------------------------------------------===//
#include "runtime/ModelLibrary.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace {

/// The input, read front to back; past its end every read is zero.
class CallReader {
public:
  CallReader(const uint8_t *data, size_t size) : data_(data), size_(size) {}

  bool done() const { return next_ >= size_; }

  uint8_t byte() { return next_ < size_ ? data_[next_++] : 0; }

  int32_t int32() {
    uint32_t value = 0;
    for (int shift = 0; shift < 32; shift += 8)
      value |= uint32_t(byte()) << shift;
    return static_cast<int32_t>(value);
  }

  float float32() {
    uint32_t bits = static_cast<uint32_t>(int32());
    float value;
    std::memcpy(&value, &bits, sizeof(value));
    return value;
  }

  /// A count: small (what real callers pass, so that calls succeed) or any
  /// int32, as the next byte says.
  int32_t count() {
    uint8_t mode = byte();
    return mode < 192 ? int32_t(mode % 24) : int32();
  }

  /// A token id: mostly in [-1, vocab], sometimes any int32.
  int32_t token(int32_t vocab) {
    uint8_t mode = byte();
    if (mode < 224)
      return int32_t(int32() % uint32_t(vocab + 2)) - 1;
    return int32();
  }

  /// A text of up to 255 bytes (a length byte first), NUL-free so that its
  /// C string is all of it.
  std::string text() {
    size_t length = byte();
    std::string out;
    for (size_t i = 0; i < length && !done(); ++i)
      out.push_back(char(byte() | 1));
    return out;
  }

private:
  const uint8_t *data_;
  size_t size_;
  size_t next_ = 0;
};

/// An array of exactly `elements` elements on the heap (none: a pointer to
/// no element), so that reading past it is an AddressSanitizer report.
template <typename T> std::unique_ptr<T[]> exactly(size_t elements) {
  return std::unique_ptr<T[]>(new T[std::max<size_t>(elements, 1)]);
}

/// Stops the run: libFuzzer records the input as a crash.
void broken(const char *what) {
  std::fprintf(stderr, "fuzz-library: %s\n", what);
  std::abort();
}

tfmc_context *openContext() {
  tfmc_context *context = nullptr;
  // The package tfmc linked into this binary (tfmc_package.o).
  if (tfmc_context_create(nullptr, &context) != TFMC_OK)
    broken(context ? tfmc_error_message(context) : "no context");
  return context;
}

/// tfmc_prefill of `count` ids, with a buffer of what the call may read:
/// all of them when they fit the context, else only those that fit.
void prefill(tfmc_context *context, CallReader &calls) {
  int32_t vocab = tfmc_vocab_size(context);
  int32_t before = tfmc_position(context);
  int32_t room = tfmc_context_length(context) - before;
  int32_t count = calls.count();
  size_t readable = size_t(std::clamp(count, 0, room));
  auto tokens = exactly<int32_t>(readable);
  for (size_t i = 0; i < readable; ++i)
    tokens[i] = calls.token(vocab);
  const float *logits = nullptr;
  tfmc_status status = tfmc_prefill(context, tokens.get(), count, &logits);
  int32_t after = tfmc_position(context);
  if (status != TFMC_OK && after != before)
    broken("a failed prefill moved the position");
  if (status == TFMC_OK &&
      (count < 1 || count > room || after != before + count || !logits))
    broken("a prefill succeeded outside its contract");
  if (status == TFMC_OK)
    (void)std::count_if(logits, logits + vocab,
                        [](float logit) { return logit != logit; });
}

void decode(tfmc_context *context, CallReader &calls) {
  int32_t before = tfmc_position(context);
  const float *logits = nullptr;
  tfmc_status status =
      tfmc_decode(context, calls.token(tfmc_vocab_size(context)), &logits);
  int32_t after = tfmc_position(context);
  if (status != TFMC_OK && after != before)
    broken("a failed decode moved the position");
  if (status == TFMC_OK && after != before + 1)
    broken("a decode did not take one position");
}

void tokenize(tfmc_context *context, CallReader &calls) {
  std::string text = calls.text();
  int add = calls.byte() & 1;
  int32_t capacity = calls.count();
  // The library may write `capacity` ids: a buffer that large is the
  // caller's, and past 4096 there is nothing to learn from it.
  if (capacity > 4096)
    return;
  auto tokens = exactly<int32_t>(size_t(std::max(capacity, 0)));
  int32_t count = -1;
  tfmc_status status =
      tfmc_tokenize(context, text.c_str(), add, tokens.get(), capacity, &count);
  if (status == TFMC_OK && (count < 0 || count > capacity))
    broken("tokenize stored more tokens than its capacity");
}

void detokenize(tfmc_context *context, CallReader &calls) {
  int32_t vocab = tfmc_vocab_size(context);
  int32_t count = calls.count();
  // A detokenize reads all `count` ids: a negative count reads none.
  size_t readable = size_t(std::max(count, 0));
  if (readable > 4096)
    return; // The caller's buffer would be as large: nothing to learn.
  auto tokens = exactly<int32_t>(readable);
  for (size_t i = 0; i < readable; ++i)
    tokens[i] = calls.token(vocab);
  size_t capacity = calls.byte();
  auto text = exactly<char>(capacity);
  size_t length = 0;
  tfmc_status status = tfmc_detokenize(context, tokens.get(), count, text.get(),
                                       capacity, &length);
  if (status == TFMC_OK && length >= capacity)
    broken("detokenize wrote past its capacity");
}

void tokenString(tfmc_context *context, CallReader &calls) {
  int32_t token = calls.token(tfmc_vocab_size(context));
  size_t capacity = calls.byte();
  auto text = exactly<char>(capacity);
  size_t length = 0;
  tfmc_status status =
      tfmc_token_string(context, token, text.get(), capacity, &length);
  if (status == TFMC_OK && length >= capacity)
    broken("token_string wrote past its capacity");
}

void setSampler(tfmc_context *context, CallReader &calls) {
  tfmc_sampler_options options = tfmc_sampler_defaults();
  options.temperature = calls.float32();
  options.top_k = calls.count();
  options.top_p = calls.float32();
  options.seed = uint64_t(uint32_t(calls.int32()));
  options.min_p = calls.float32();
  options.repetition_penalty = calls.float32();
  if (calls.byte() & 1)
    options = tfmc_model_sampler(context);
  (void)tfmc_set_sampler(context, &options);
}

void sample(tfmc_context *context, CallReader &calls) {
  int32_t vocab = tfmc_vocab_size(context);
  auto logits = exactly<float>(size_t(vocab));
  float fill = calls.float32();
  for (int32_t i = 0; i < vocab; ++i)
    logits[i] = (calls.byte() & 7) ? fill * float(i % 13) : calls.float32();
  int32_t token = -1;
  tfmc_status status = tfmc_sample(context, logits.get(), &token);
  if (status == TFMC_OK && (token < 0 || token >= vocab))
    broken("sample drew an id outside the vocabulary");
}

void stopStrings(tfmc_context *context, CallReader &calls) {
  int32_t count = calls.count();
  size_t readable = size_t(std::clamp(count, 0, 16));
  if (count > 16)
    return; // tfmc_set_stop_strings reads all `count` strings.
  std::vector<std::string> strings;
  for (size_t i = 0; i < readable; ++i)
    strings.push_back(calls.text());
  auto pointers = exactly<const char *>(readable);
  for (size_t i = 0; i < readable; ++i)
    pointers[i] = strings[i].c_str();
  (void)tfmc_set_stop_strings(context, pointers.get(), count);
  std::string text = calls.text();
  size_t position = 0;
  if (tfmc_find_stop(context, text.data(), text.size(), &position) &&
      position >= text.size())
    broken("find_stop reported a position past the text");
}

/// The other kinds' calls, which a decoder's context refuses.
void otherKinds(tfmc_context *context, CallReader &calls) {
  int32_t vocab = tfmc_vocab_size(context);
  // A decoder refuses these before reading its ids: a count past 64 gets a
  // buffer of 64.
  int32_t count = calls.count();
  size_t readable = size_t(std::clamp(count, 0, 64));
  auto tokens = exactly<int32_t>(readable);
  for (size_t i = 0; i < readable; ++i)
    tokens[i] = calls.token(vocab);
  if (tfmc_encode_source(context, tokens.get(), count) == TFMC_OK)
    broken("a decoder encoded a source");
  tfmc_embedding_options options = tfmc_model_embedding(context);
  auto embedding =
      exactly<float>(size_t(std::max(tfmc_embedding_size(context), 0)));
  if (tfmc_embed(context, tokens.get(), count, &options, embedding.get()) ==
      TFMC_OK)
    broken("a decoder embedded tokens");
  tfmc_prediction predictions[4];
  int32_t stored = 0;
  if (tfmc_fill_mask(context, tokens.get(), count, 1, predictions, 4,
                     &stored) == TFMC_OK)
    broken("a decoder filled masks");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static tfmc_context *context = openContext();
  tfmc_reset(context);
  tfmc_sampler_options greedy = tfmc_sampler_defaults();
  (void)tfmc_set_sampler(context, &greedy);
  (void)tfmc_set_stop_strings(context, nullptr, 0);
  CallReader calls(data, size);
  for (int call = 0; call < 64 && !calls.done(); ++call) {
    switch (calls.byte() % 11) {
    case 0:
    case 1:
      prefill(context, calls);
      break;
    case 2:
      decode(context, calls);
      break;
    case 3:
      tokenize(context, calls);
      break;
    case 4:
      detokenize(context, calls);
      break;
    case 5:
      tokenString(context, calls);
      break;
    case 6:
      setSampler(context, calls);
      break;
    case 7:
      sample(context, calls);
      break;
    case 8:
      stopStrings(context, calls);
      break;
    case 9:
      otherKinds(context, calls);
      break;
    default:
      tfmc_reset(context);
      if (tfmc_position(context) != 0)
        broken("reset left a position");
    }
  }
  return 0;
}
