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
