//===- Family.cpp - What a model family provides --------------------------===//
#include "models/Family.h"

#include "compiler/builders/DecoderSkeleton.h"
#include "compiler/builders/EncoderDecoderSkeleton.h"
#include "compiler/builders/EncoderSkeleton.h"

using namespace tfmc;

ModelFamily::~ModelFamily() = default;

void ModelFamily::buildGraph(NetworkBuilder &net) const {
  switch (net.config().kind) {
  case ModelKind::EncoderOnly:
    return buildEncoderOnly(net);
  case ModelKind::EncoderDecoder:
    return buildEncoderDecoder(net);
  case ModelKind::DecoderOnly:
    return buildDecoderOnly(net);
  }
}

Preset tfmc::sizedPreset(const char *name, DecoderConfig blocks, int64_t dim,
                         int64_t hidden, int64_t layers, int64_t heads,
                         int64_t kvHeads, int64_t headDim, int64_t vocab,
                         int64_t context) {
  blocks.dim = dim;
  blocks.hiddenDim = hidden;
  blocks.numLayers = layers;
  blocks.attention.numHeads = heads;
  blocks.attention.numKVHeads = kvHeads;
  blocks.attention.headDim = headDim;
  blocks.vocabSize = vocab;
  blocks.contextLength = context;
  return {name, blocks};
}
