//===- RandomWeights.h - A weights blob filled from a seed ------*- C++ -*-===//
//
// `tfmc compile --random-weights` writes a package without its weights blob
// (runtime/Package.h): the program fills the blob from a seed when it first
// needs it, so a benchmark of a 1.1B-parameter shape travels as a binary of
// a few MiB. The blob holds values of every element type tfmc stores (f32,
// f16, bf16, block scales, int8 quants, nibbles, k-quant scale bits) at
// offsets only the compiler knows, so the fill is chosen byte by byte so
// that every reading of the bytes is usable: each byte is 0x30-0x3F with a
// random sign bit, which makes every f32, f16 and bf16 a normal finite
// number (magnitudes 2^-31 to 2, 2^-3 to 2 and 2^-31 to 2) and every int8
// quant 48 to 63 or -80 to -65. The values say nothing about a model; the
// speed of the code reading them is what a benchmark measures. Nor do they
// follow the model's tensors: the same bytes mean other values in another
// layout, so two binaries hold the same weights only where `--info` gives
// the same weights layout hash (a CUDA binary's and, with
// --pack-weights=false, a CPU binary's of one model, which is how
// bench/cuda_bench.py checks its CUDA binaries).
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_RUNTIME_RANDOMWEIGHTS_H
#define TFMC_RUNTIME_RANDOMWEIGHTS_H

#include <cstdint>

namespace tfm::rt {

/// Fills [data, data + bytes) from `seed`. Byte i depends only on the seed
/// and i, so the bytes are the same on every machine and however many
/// threads (up to `threads`, at least one) write them.
void fillRandomWeights(uint8_t *data, uint64_t bytes, uint64_t seed,
                       unsigned threads);

} // namespace tfm::rt

#endif // TFMC_RUNTIME_RANDOMWEIGHTS_H
