//===- Family.cpp - What a model family provides --------------------------===//
#include "models/Family.h"

#include "compiler/builders/DecoderSkeleton.h"
#include "compiler/builders/EncoderSkeleton.h"

using namespace tfmc;

ModelFamily::~ModelFamily() = default;

void ModelFamily::buildGraph(NetworkBuilder &net) const {
  if (net.config().kind == ModelKind::EncoderOnly)
    buildEncoderOnly(net);
  else
    buildDecoderOnly(net);
}
