//===- HalideCalls.h - How generated code calls Halide kernels --*- C++ -*-===//
//
// The one adapter between a compiled model's buffers and the Halide
// kernels tfmc-halide-gen generates for it (docs/halide.md): the host code
// passes each call's arguments as a table of words
// (passes/Codegen/Halide/LowerCalls.cpp), the adapter builds the
// halide_buffer_t's, checks them against the kernel's metadata and calls
// it. Linked, as libtfmrt_halide.a, into binaries with Halide kernels
// only; the first call also routes Halide's parallel loops to OpenMP's
// threads (the ones the LLVM kernels use) and its errors to the host
// device's error report.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_RUNTIME_HALIDE_HALIDECALLS_H
#define TFMC_RUNTIME_HALIDE_HALIDECALLS_H

#include <cstdint>

struct halide_filter_metadata_t;

extern "C" {

/// Calls the kernel whose NAME_argv and NAME_metadata are given with the
/// arguments `table` describes:
///   [argument count, then per argument in the kernel's order:
///    0, value                                  an int32_t scalar
///    1, address of the first element, element bytes, rank,
///       sizes[rank], strides[rank]             a buffer, row-major
///                                              (dimension 0 outermost)]
/// Returns 0, or the kernel's (or the adapter's, -1) error code after
/// recording the failure (runtime/device/host/HostKernelErrors.h).
int32_t tfmrt_halide_call(int (*argv)(void **),
                          const halide_filter_metadata_t *(*metadata)(),
                          const int64_t *table);
}

#endif // TFMC_RUNTIME_HALIDE_HALIDECALLS_H
