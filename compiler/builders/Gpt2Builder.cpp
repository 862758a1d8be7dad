//===- Gpt2Builder.cpp - The GPT-2 family as tfm ops -------------------------===//
//
// Learned positions, pre-LayerNorm blocks with biased projections, GELU (tanh)
// MLP, final LayerNorm and the LM head tied to the token embedding.
//
//===----------------------------------------------------------------------===//
#include "compiler/builders/NetworkBuilder.h"

#include <string>

using namespace mlir;
using namespace tfmc;

void tfmc::buildGpt2Network(NetworkBuilder &net, const ModelSpec &spec) {
  Value embeddings = net.weight("token_embedding");
  Value x = net.embedding(net.tokens(), embeddings);
  x = net.positionEmbedding(x, net.weight("position_embedding"));
  for (int64_t layer = 0; layer < spec.config.numLayers; ++layer) {
    std::string p = "layers." + std::to_string(layer) + ".";
    Value h = net.layerNorm(x, p + "attn_norm");
    Value q = net.linear(h, p + "attn.wq", p + "attn.bq");
    Value k = net.linear(h, p + "attn.wk", p + "attn.bk");
    Value v = net.linear(h, p + "attn.wv", p + "attn.bv");
    Value attended = net.attention(q, k, v);
    x = net.add(x, net.linear(attended, p + "attn.wo", p + "attn.bo"));

    h = net.layerNorm(x, p + "ffn_norm");
    Value up = net.gelu(net.linear(h, p + "ffn.w_up", p + "ffn.b_up"));
    x = net.add(x, net.linear(up, p + "ffn.w_down", p + "ffn.b_down"));
  }
  x = net.layerNorm(x, "final_norm");
  Value head = spec.config.tiedEmbeddings ? embeddings : net.weight("lm_head");
  net.finish(net.lmHead(x, head));
}
