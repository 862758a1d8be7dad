// Calls an RMS norm kernel of 2 rows of 8 features (-DKERNEL, its header
// included) through the runtime's adapter, tfmrt_halide_call, with tables
// as tfm-halide-lower-calls writes them: one right, then wrong ones, each
// of which must fail with the reason recorded for the host device.
#include "runtime/device/host/HostKernelErrors.h"
#include "runtime/halide/HalideCalls.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#define CONCAT2(a, b) a##b
#define CONCAT(a, b) CONCAT2(a, b)

namespace {

int64_t address(const void *pointer) {
  return static_cast<int64_t>(reinterpret_cast<intptr_t>(pointer));
}

/// A row-major buffer's words: 1, address, element bytes, rank, sizes,
/// strides.
void addBuffer(std::vector<int64_t> &table, const float *data,
               std::vector<int64_t> sizes) {
  table.insert(table.end(),
               {1, address(data), 4, static_cast<int64_t>(sizes.size())});
  table.insert(table.end(), sizes.begin(), sizes.end());
  std::vector<int64_t> strides(sizes.size(), 1);
  for (size_t d = sizes.size() - 1; d > 0; --d)
    strides[d - 1] = strides[d] * sizes[d];
  table.insert(table.end(), strides.begin(), strides.end());
}

int call(const char *what, const std::vector<int64_t> &table) {
  int status = tfmrt_halide_call(CONCAT(KERNEL, _argv),
                                 CONCAT(KERNEL, _metadata), table.data());
  std::string error;
  bool failed = tfm::rt::takeHostKernelError(error);
  std::printf("%s: status %s, %s\n", what, status == 0 ? "0" : "nonzero",
              failed ? error.c_str() : "no error");
  return status;
}

} // namespace

int main() {
  std::vector<float> input(16), weight(8, 2.0f), output(16, 0.0f);
  for (int i = 0; i < 16; ++i)
    input[i] = static_cast<float>(i % 8) - 3.5f;

  std::vector<int64_t> table = {3};
  addBuffer(table, input.data(), {2, 8});
  addBuffer(table, weight.data(), {8});
  addBuffer(table, output.data(), {2, 8});
  call("right", table);
  double worst = 0;
  for (int r = 0; r < 2; ++r) {
    double squares = 0;
    for (int k = 0; k < 8; ++k)
      squares += double(input[r * 8 + k]) * input[r * 8 + k];
    double scale = 1.0 / std::sqrt(squares / 8 + 1e-5);
    for (int k = 0; k < 8; ++k)
      worst = std::fmax(
          worst, std::fabs(output[r * 8 + k] - input[r * 8 + k] * scale * 2.0));
  }
  std::printf("output within 1e-5: %s\n", worst < 1e-5 ? "yes" : "no");

  std::vector<int64_t> rank = {3};
  addBuffer(rank, input.data(), {2, 8, 1});
  addBuffer(rank, weight.data(), {8});
  addBuffer(rank, output.data(), {2, 8});
  call("rank", rank);

  std::vector<int64_t> extent = {3};
  addBuffer(extent, input.data(), {1, 8});
  addBuffer(extent, weight.data(), {8});
  addBuffer(extent, output.data(), {2, 8});
  call("extent", extent);

  std::vector<int64_t> count = {2};
  addBuffer(count, input.data(), {2, 8});
  addBuffer(count, weight.data(), {8});
  call("count", count);

  std::vector<int64_t> scalar = {3, 0, 5};
  addBuffer(scalar, weight.data(), {8});
  addBuffer(scalar, output.data(), {2, 8});
  call("scalar", scalar);
  return 0;
}
