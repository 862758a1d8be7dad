//===- KQuantPanels.cpp - k-quant weights as column panels ----------------===//
#include "compiler/weights/KQuantPanels.h"

#include "compiler/weights/KQuants.h"

#include <cstring>

using namespace tfmc::weights;

llvm::Error tfmc::weights::appendKQuantRows(const TensorView &matrix,
                                            KQuantRows &out) {
  void (*unpack)(const char *, KQuantSuperBlock &) = nullptr;
  switch (matrix.type()) {
  case ElementType::Q4_K:
    unpack = unpackQ4K;
    break;
  case ElementType::Q5_K:
    unpack = unpackQ5K;
    break;
  case ElementType::Q6_K:
    unpack = unpackQ6K;
    break;
  default:
    return llvm::createStringError(
        llvm::Twine("the kquant layout holds Q4_K, Q5_K and Q6_K tensors, "
                    "not ") +
        elementTypeName(matrix.type()));
  }
  if (matrix.rank() != 2 || matrix.shape()[1] != out.columns ||
      out.columns % kSuperBlockElements != 0)
    return llvm::createStringError(
        llvm::Twine("a ") + elementTypeName(matrix.type()) + " " +
        shapeString(matrix.shape()) + " tensor is not a matrix of " +
        llvm::Twine(out.columns) + " columns of whole super-blocks");
  int64_t rows = matrix.shape()[0];
  int64_t superBlocks = rows * out.columns / kSuperBlockElements;
  uint32_t size = blockBytes(matrix.type());
  KQuantSuperBlock block;
  for (int64_t s = 0; s < superBlocks; ++s) {
    unpack(matrix.data() + s * size, block);
    if (block.subBlock % out.subBlock != 0)
      return llvm::createStringError(
          llvm::Twine(elementTypeName(matrix.type())) + " scales cover " +
          llvm::Twine(block.subBlock) + " values, not " +
          llvm::Twine(out.subBlock));
    out.quants.insert(out.quants.end(), block.quant,
                      block.quant + kSuperBlockElements);
    for (int64_t e = 0; e < kSuperBlockElements; e += out.subBlock) {
      out.scales.push_back(block.scale[e / block.subBlock]);
      out.mins.push_back(block.min[e / block.subBlock]);
      out.subScales.push_back(block.subScale[e / block.subBlock]);
      out.subMins.push_back(block.subMin[e / block.subBlock]);
    }
    out.factors.push_back(block.d);
    out.factors.push_back(block.dmin);
  }
  out.rows += rows;
  return llvm::Error::success();
}

llvm::Expected<std::string>
tfmc::weights::packKQuantPanels(const KQuantRows &rows, int64_t panels,
                                int64_t width, KQuantPart part,
                                int64_t bytesPerLane, int64_t bias) {
  if (rows.subBlock <= 0 || rows.columns % rows.subBlock != 0 ||
      rows.rows > panels * width)
    return llvm::createStringError(
        "a kquant matrix of " + llvm::Twine(rows.rows) + " rows does not fit " +
        llvm::Twine(panels) + " panels of " + llvm::Twine(width) + " rows");
  int64_t rowBlocks = rows.columns / rows.subBlock;
  std::string out;
  if (part == KQuantPart::Nibbles || part == KQuantPart::Quants) {
    bool nibbles = part == KQuantPart::Nibbles;
    if (nibbles && rows.subBlock != 32)
      return llvm::createStringError("kquant4 packs blocks of 32 values, not " +
                                     llvm::Twine(rows.subBlock));
    // Bytes per block and row: a nibble pair or a quant each.
    int64_t blockBytes = nibbles ? 16 : rows.subBlock;
    if (bytesPerLane < 1 || blockBytes % bytesPerLane != 0)
      return llvm::createStringError("a block's " + llvm::Twine(blockBytes) +
                                     " quant bytes do not fill " + "lanes of " +
                                     llvm::Twine(bytesPerLane));
    // Every quant is checked once, so that packing is plain byte copies.
    for (int8_t quant : rows.quants) {
      if (nibbles && (quant < 0 || quant > 15))
        return llvm::createStringError(
            "a kquant4 quant is not a nibble (0..15)");
      int64_t biased = quant + bias;
      if (!nibbles && (biased < -128 || biased > 255))
        return llvm::createStringError(
            "a kquant quant biased by " + llvm::Twine(bias) +
            " is not a byte: " + llvm::Twine(biased));
    }
    // Padding rows: quant 0, scale 0 and min 0, value 0 (a biased quant
    // of the bias, whose offset the kernels take out again).
    int64_t lanes = blockBytes / bytesPerLane;
    out.assign(panels * rowBlocks * blockBytes * width,
               nibbles ? '\0' : static_cast<char>(bias));
    char *next = out.data();
    for (int64_t p = 0; p < panels; ++p)
      for (int64_t b = 0; b < rowBlocks; ++b)
        for (int64_t i = 0; i < lanes; ++i)
          for (int64_t j = 0; j < width; ++j, next += bytesPerLane) {
            int64_t row = p * width + j;
            if (row >= rows.rows)
              continue;
            // The bytes of row `row`, block `b`, from `i * bytesPerLane`.
            const int8_t *block =
                &rows.quants[row * rows.columns + b * rows.subBlock +
                             i * bytesPerLane];
            for (int64_t t = 0; t < bytesPerLane; ++t)
              next[t] = static_cast<char>(
                  nibbles ? block[t] | (block[t + 16] << 4) : block[t] + bias);
          }
    return out;
  }
  if (part == KQuantPart::SubScales || part == KQuantPart::SubMins) {
    const std::vector<int8_t> &values =
        part == KQuantPart::SubScales ? rows.subScales : rows.subMins;
    out.assign(panels * rowBlocks * width, '\0');
    char *next = out.data();
    for (int64_t p = 0; p < panels; ++p)
      for (int64_t b = 0; b < rowBlocks; ++b)
        for (int64_t j = 0; j < width; ++j, ++next) {
          int64_t row = p * width + j;
          if (row < rows.rows)
            *next = static_cast<char>(values[row * rowBlocks + b]);
        }
    return out;
  }
  if (part == KQuantPart::ScaleFactors ||
      part == KQuantPart::ScaleAndMinFactors) {
    if (rows.columns % kSuperBlockElements != 0)
      return llvm::createStringError("a kquant matrix of " +
                                     llvm::Twine(rows.columns) +
                                     " columns is not whole super-blocks");
    int64_t superBlocks = rows.columns / kSuperBlockElements;
    int64_t factors = part == KQuantPart::ScaleFactors ? 1 : 2;
    out.assign(panels * superBlocks * factors * width * sizeof(float), '\0');
    char *next = out.data();
    for (int64_t p = 0; p < panels; ++p)
      for (int64_t k = 0; k < superBlocks; ++k)
        for (int64_t f = 0; f < factors; ++f)
          for (int64_t j = 0; j < width; ++j, next += sizeof(float)) {
            int64_t row = p * width + j;
            if (row < rows.rows)
              std::memcpy(next, &rows.factors[(row * superBlocks + k) * 2 + f],
                          sizeof(float));
          }
    return out;
  }
  const std::vector<float> &values =
      part == KQuantPart::Scales ? rows.scales : rows.mins;
  out.assign(panels * rowBlocks * width * sizeof(float), '\0');
  char *next = out.data();
  for (int64_t p = 0; p < panels; ++p)
    for (int64_t b = 0; b < rowBlocks; ++b)
      for (int64_t j = 0; j < width; ++j, next += sizeof(float)) {
        int64_t row = p * width + j;
        if (row < rows.rows)
          std::memcpy(next, &values[row * rowBlocks + b], sizeof(float));
      }
  return out;
}
