// main() of a test/halide harness, compiled per test with the generated
// headers of its kernels included on the command line (-include NAME.h)
// and -DKERNELS='X(a) X(b) ...' naming them (Inputs/build-harness.py).
#include "test/halide/harness/Harness.h"

#define X(name) {name##_argv, name##_metadata},
static const tfmc::halide::harness::KernelEntry kKernels[] = {KERNELS};
#undef X

int main(int argc, char **argv) {
  return tfmc::halide::harness::run(
      argc, argv, kKernels,
      static_cast<int>(sizeof(kKernels) / sizeof(kKernels[0])));
}
