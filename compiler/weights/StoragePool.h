//===- StoragePool.h - Reused storage for the tensors a compile makes -----===//
//
// The package writer makes the bytes of one weight slot at a time, of the
// few sizes a layer's weights have, layer after layer. Each fresh buffer of
// that size costs a page fault and a page zeroing per 4 KiB, and returning
// it to the system a munmap: a tenth of the package time of the
// TinyLlama-1.1B shape in f32. Buffers freed here wait for the next tensor
// that fits them instead.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_COMPILER_WEIGHTS_STORAGEPOOL_H
#define TFMC_COMPILER_WEIGHTS_STORAGEPOOL_H

#include <cstdint>
#include <memory>

namespace tfmc::weights {

/// `bytes` bytes of uninitialised storage, a freed buffer when one fits;
/// released to the pool (up to a bound) when the last owner lets go.
std::shared_ptr<char> allocateStorage(uint64_t bytes);

} // namespace tfmc::weights

#endif // TFMC_COMPILER_WEIGHTS_STORAGEPOOL_H
