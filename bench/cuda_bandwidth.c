/* cuda_bandwidth.c - an NVIDIA GPU's sustained device-memory bandwidth.
 *
 * Decode reads every weight once per token, so the memory bandwidth is its
 * roofline on a GPU as on the CPU (bandwidth.c). This times device-to-device
 * copies of a buffer far beyond the L2 cache with the driver's own copy
 * engine path (no kernel of ours): each copied byte is read once and written
 * once, and the rate printed counts both, best of 20 copies, in GB/s (1e9
 * bytes/s), as JSON on the last line. The driver is opened at run time, so
 * this builds without the CUDA toolkit:
 *
 *   gcc -O2 bench/cuda_bandwidth.c -o cuda_bandwidth -ldl
 *   ./cuda_bandwidth [MiB]
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef int CUresult;
typedef int CUdevice;
typedef void *CUcontext;
typedef unsigned long long CUdeviceptr;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static void *symbol(void *driver, const char *name) {
  void *address = dlsym(driver, name);
  if (!address) {
    fprintf(stderr, "libcuda.so.1 has no %s\n", name);
    exit(1);
  }
  return address;
}

#define CHECK(call)                                                            \
  do {                                                                         \
    CUresult status = (call);                                                  \
    if (status != 0) {                                                         \
      fprintf(stderr, "%s failed: CUDA error %d\n", #call, status);            \
      return 1;                                                                \
    }                                                                          \
  } while (0)

int main(int argc, char **argv) {
  size_t mib = argc > 1 ? (size_t)atol(argv[1]) : 1024;
  size_t bytes = mib * 1024 * 1024;
  void *driver = dlopen("libcuda.so.1", RTLD_NOW);
  if (!driver) {
    fprintf(stderr, "no CUDA driver: %s\n", dlerror());
    return 1;
  }
  CUresult (*cuInit)(unsigned) = symbol(driver, "cuInit");
  CUresult (*cuDeviceGet)(CUdevice *, int) = symbol(driver, "cuDeviceGet");
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice) =
      symbol(driver, "cuDevicePrimaryCtxRetain");
  CUresult (*cuCtxSetCurrent)(CUcontext) = symbol(driver, "cuCtxSetCurrent");
  CUresult (*cuMemAlloc)(CUdeviceptr *, size_t) =
      symbol(driver, "cuMemAlloc_v2");
  CUresult (*cuMemFree)(CUdeviceptr) = symbol(driver, "cuMemFree_v2");
  CUresult (*cuMemsetD8)(CUdeviceptr, unsigned char, size_t) =
      symbol(driver, "cuMemsetD8_v2");
  CUresult (*cuMemcpyDtoD)(CUdeviceptr, CUdeviceptr, size_t) =
      symbol(driver, "cuMemcpyDtoD_v2");
  CUresult (*cuCtxSynchronize)(void) = symbol(driver, "cuCtxSynchronize");

  CUdevice device;
  CUcontext context;
  CUdeviceptr from, to;
  CHECK(cuInit(0));
  CHECK(cuDeviceGet(&device, 0));
  CHECK(cuDevicePrimaryCtxRetain(&context, device));
  CHECK(cuCtxSetCurrent(context));
  CHECK(cuMemAlloc(&from, bytes));
  CHECK(cuMemAlloc(&to, bytes));
  CHECK(cuMemsetD8(from, 1, bytes));
  CHECK(cuCtxSynchronize());
  double best = 1e30;
  for (int pass = 0; pass < 20; ++pass) {
    double start = now();
    CHECK(cuMemcpyDtoD(to, from, bytes));
    CHECK(cuCtxSynchronize());
    double seconds = now() - start;
    if (seconds < best)
      best = seconds;
  }
  CHECK(cuMemFree(from));
  CHECK(cuMemFree(to));
  printf("{\"copy_mib\": %zu, \"moved_gb_per_s\": %.1f}\n", mib,
         2.0 * bytes / best / 1e9);
  return 0;
}
