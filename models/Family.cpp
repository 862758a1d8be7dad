//===- Family.cpp - What a model family provides --------------------------===//
#include "models/Family.h"

#include "compiler/builders/DecoderSkeleton.h"

using namespace tfmc;

ModelFamily::~ModelFamily() = default;

void ModelFamily::buildGraph(NetworkBuilder &net) const {
  buildDecoderOnly(net);
}
