//===- ModelSpec.cpp - A model as every stage after loading sees it -------===//
#include "compiler/spec/ModelSpec.h"

using namespace tfmc;

weights::ElementType tfmc::storedMatrixType(const ModelSpec &spec) {
  std::optional<weights::ElementType> shared;
  for (const auto &[name, weight] : spec.weights) {
    if (weight.shape().size() != 2)
      continue;
    weights::ElementType type = weight.source().type();
    if (shared && *shared != type)
      return weights::ElementType::F32;
    shared = type;
  }
  // Block-quantized matrices are dequantized exactly, to f32.
  if (!shared || weights::isBlockQuantized(*shared))
    return weights::ElementType::F32;
  return *shared;
}
