//===- HalideCalls.cpp - How generated code calls Halide kernels ----------===//
#include "runtime/halide/HalideCalls.h"

#include "runtime/device/host/HostKernelErrors.h"

#include "HalideRuntime.h"

#include <atomic>
#include <mutex>
#include <omp.h>
#include <string>

namespace {

constexpr int kMaxArguments = 16;
constexpr int kMaxRank = 4;

/// The message of the last halide_error on this thread.
thread_local std::string lastHalideError;

void recordHalideError(void *, const char *message) {
  lastHalideError = message ? message : "";
}

/// halide_do_par_for on OpenMP's threads: the LLVM kernels' team, so that
/// Halide's own pool never spins beside it on the same cores. Tasks are
/// dealt out one at a time (their costs differ: attention rows see
/// different numbers of keys).
int parallelForOnOpenMP(void *userContext, halide_task_t task, int min,
                        int size, uint8_t *closure) {
  if (size <= 0)
    return 0;
  if (size == 1 || omp_in_parallel()) {
    for (int i = min; i < min + size; ++i)
      if (int status = task(userContext, i, closure))
        return status;
    return 0;
  }
  std::atomic<int> next{min};
  std::atomic<int> failure{0};
#pragma omp parallel
  {
    for (int i = next++; i < min + size && failure.load() == 0; i = next++)
      if (int status = task(userContext, i, closure)) {
        int expected = 0;
        failure.compare_exchange_strong(expected, status);
      }
  }
  return failure.load();
}

void installHandlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    halide_set_custom_do_par_for(parallelForOnOpenMP);
    halide_set_error_handler(recordHalideError);
  });
}

int32_t fail(const halide_filter_metadata_t *kernel, const std::string &why,
             int32_t status = -1) {
  tfm::rt::reportHostKernelError(std::string("Halide kernel '") +
                                 (kernel && kernel->name ? kernel->name : "?") +
                                 "' failed: " + why);
  return status;
}

} // namespace

extern "C" int32_t
tfmrt_halide_call(int (*argv)(void **),
                  const halide_filter_metadata_t *(*metadata)(),
                  const int64_t *table) {
  installHandlers();
  const halide_filter_metadata_t *kernel = metadata();
  int64_t count = table[0];
  if (count != kernel->num_arguments || count > kMaxArguments)
    return fail(kernel, "called with " + std::to_string(count) +
                            " arguments, it takes " +
                            std::to_string(kernel->num_arguments));
  halide_buffer_t buffers[kMaxArguments] = {};
  halide_dimension_t dimensions[kMaxArguments][kMaxRank] = {};
  int32_t scalars[kMaxArguments] = {};
  void *arguments[kMaxArguments] = {};
  const int64_t *word = table + 1;
  for (int64_t i = 0; i < count; ++i) {
    const halide_filter_argument_t &expected = kernel->arguments[i];
    std::string which = std::string("argument '") + expected.name + "'";
    if (*word++ == 0) {
      int64_t value = *word++;
      if (expected.kind != halide_argument_kind_input_scalar ||
          expected.type.code != halide_type_int || expected.type.bits != 32)
        return fail(kernel, which + " is no int32 scalar");
      if (value < INT32_MIN || value > INT32_MAX)
        return fail(kernel, which + " " + std::to_string(value) +
                                " does not fit in 32 bits");
      scalars[i] = static_cast<int32_t>(value);
      arguments[i] = &scalars[i];
      continue;
    }
    auto *host = reinterpret_cast<uint8_t *>(static_cast<intptr_t>(word[0]));
    int64_t elementBytes = word[1], rank = word[2];
    const int64_t *sizes = word + 3, *strides = word + 3 + rank;
    word += 3 + 2 * rank;
    if (expected.kind == halide_argument_kind_input_scalar ||
        expected.dimensions != rank || rank > kMaxRank ||
        expected.type.bits * expected.type.lanes != elementBytes * 8)
      return fail(kernel, which + " is no buffer of rank " +
                              std::to_string(rank) + " and " +
                              std::to_string(elementBytes) + "-byte elements");
    halide_buffer_t &buffer = buffers[i];
    buffer.host = host;
    buffer.type = expected.type;
    buffer.dimensions = static_cast<int32_t>(rank);
    buffer.dim = dimensions[i];
    // Halide's dimension 0 is the innermost. A dimension of one element
    // takes the stride of a dense buffer, which the kernel expects: its
    // own stride (a view's) never multiplies an index but 0.
    int64_t dense = 1;
    for (int64_t d = 0; d < rank; ++d) {
      int64_t size = sizes[rank - 1 - d];
      buffer.dim[d].min = 0;
      buffer.dim[d].extent = static_cast<int32_t>(size);
      buffer.dim[d].stride =
          static_cast<int32_t>(size == 1 ? dense : strides[rank - 1 - d]);
      dense *= size;
    }
    arguments[i] = &buffer;
  }
  lastHalideError.clear();
  int status = argv(arguments);
  if (status != 0)
    return fail(kernel,
                lastHalideError.empty() ? "error " + std::to_string(status)
                                        : lastHalideError,
                status);
  return 0;
}
