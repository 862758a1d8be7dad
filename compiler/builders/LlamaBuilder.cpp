//===- LlamaBuilder.cpp - The LLaMA family as tfm ops ------------------------===//
//
// Pre-norm residual blocks: RMSNorm, rotary attention with grouped KV heads,
// SwiGLU feed-forward; final RMSNorm and a tied or separate LM head.
//
//===----------------------------------------------------------------------===//
#include "compiler/builders/NetworkBuilder.h"

#include <string>

using namespace mlir;
using namespace tfmc;

void tfmc::buildLlamaNetwork(NetworkBuilder &net, const ModelSpec &spec) {
  Value embeddings = net.weight("token_embedding");
  Value x = net.embedding(net.tokens(), embeddings);
  for (int64_t layer = 0; layer < spec.config.numLayers; ++layer) {
    std::string p = "layers." + std::to_string(layer) + ".";
    Value h = net.rmsNorm(x, p + "attn_norm");
    Value q = net.rope(net.linear(h, p + "attn.wq"));
    Value k = net.rope(net.linear(h, p + "attn.wk"));
    Value v = net.linear(h, p + "attn.wv");
    Value attended = net.attention(q, k, v);
    x = net.add(x, net.linear(attended, p + "attn.wo"));

    h = net.rmsNorm(x, p + "ffn_norm");
    Value gate = net.silu(net.linear(h, p + "ffn.w_gate"));
    Value up = net.linear(h, p + "ffn.w_up");
    x = net.add(x, net.linear(net.mul(gate, up), p + "ffn.w_down"));
  }
  x = net.rmsNorm(x, "final_norm");
  Value head = spec.config.tiedEmbeddings ? embeddings : net.weight("lm_head");
  net.finish(net.lmHead(x, head));
}
