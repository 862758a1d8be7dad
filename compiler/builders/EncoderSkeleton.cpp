//===- EncoderSkeleton.cpp - The encoder-only transformer -----------------===//
#include "compiler/builders/EncoderSkeleton.h"

#include "compiler/builders/Blocks.h"

using namespace mlir;
using namespace tfmc;

void tfmc::buildEncoderOnly(NetworkBuilder &net) {
  Value table;
  Value x = embedTokens(net, table);
  for (int64_t layer = 0; layer < net.config().numLayers; ++layer) {
    net.setLayer(layer);
    x = residual(net, x, NormSite::Attention, "attn",
                 [&](Value h) { return attentionBlock(net, h); });
    x = residual(net, x, NormSite::Mlp, "ffn",
                 [&](Value h) { return mlpBlock(net, h); });
  }
  net.setLayer(-1);
  if (net.config().normPlacement == NormPlacement::PreNorm)
    x = norm(net, x, NormSite::Final);
  if (!net.config().maskedLmHead) {
    net.finish(net.at("hidden_states"), x);
    return;
  }
  net.finish(net.at("outputs"), {x, maskedLmHead(net, x, table)});
}
