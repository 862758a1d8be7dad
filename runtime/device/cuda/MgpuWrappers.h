//===- MgpuWrappers.h - The mgpu* functions of GPU host code ---*- C++ -*-===//
//
// The functions the host code of `gpu-to-llvm` calls, with the signatures
// MLIR 22 emits, as MgpuWrappers.cpp defines them over the CUDA driver
// (what MLIR's libmlir_cuda_runtime would provide). Declared here for the
// definitions and their tests.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_RUNTIME_DEVICE_CUDA_MGPUWRAPPERS_H
#define TFMC_RUNTIME_DEVICE_CUDA_MGPUWRAPPERS_H

#include <cstddef>
#include <cstdint>

extern "C" {
void *mgpuModuleLoad(void *data, uint64_t bytes);
void *mgpuModuleLoadJIT(void *data, int32_t optLevel, uint64_t bytes);
void mgpuModuleUnload(void *module);
void *mgpuModuleGetFunction(void *module, const char *name);
void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                      intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                      intptr_t blockZ, int32_t sharedBytes, void *stream,
                      void **params, void **extra, size_t paramCount);
void *mgpuStreamCreate();
void mgpuStreamDestroy(void *stream);
void mgpuStreamSynchronize(void *stream);
void mgpuStreamWaitEvent(void *stream, void *event);
void *mgpuEventCreate();
void mgpuEventDestroy(void *event);
void mgpuEventSynchronize(void *event);
void mgpuEventRecord(void *event, void *stream);
void *mgpuMemAlloc(uint64_t bytes, void *stream, bool isHostShared);
void mgpuMemFree(void *pointer, void *stream);
void mgpuMemcpy(void *dst, void *src, size_t bytes, void *stream);
void mgpuMemset32(void *dst, unsigned value, size_t count, void *stream);
void mgpuMemset16(void *dst, unsigned short value, size_t count, void *stream);
void mgpuSetDefaultDevice(int32_t device);
}

#endif // TFMC_RUNTIME_DEVICE_CUDA_MGPUWRAPPERS_H
