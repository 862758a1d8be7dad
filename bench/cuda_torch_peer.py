#!/usr/bin/env python3
"""PyTorch + transformers on an NVIDIA GPU as tfmc's CUDA peer: a LLaMA shape
with random weights (LlamaForCausalLM's own initialisation), batch 1, timed
as the produced binary's --bench times itself: a prefill of P synthetic ids,
then N greedy decode steps through the KV cache, one warm-up and the best of
three, with the GPU synchronised before each clock read. Prints one JSON
line per dtype. Runs where torch has CUDA and transformers is installed (the
GPU machine), never in a test.

  cuda_torch_peer.py --dim D --hidden H --layers L --heads N --kv-heads K
                     --vocab V [--untied] [--prompt-tokens P] [-n N]
                     [--dtypes float32,bfloat16]
"""
import argparse
import json
import time

import torch
from transformers import LlamaConfig, LlamaForCausalLM


def bench(model, vocab, prompt, steps):
    ids = [(i * 7919 + 13) % vocab for i in range(prompt)]
    prompt_ids = torch.tensor([ids], device="cuda")
    best_prefill = best_decode = float("inf")
    with torch.no_grad():
        for run in range(4):
            torch.cuda.synchronize()
            start = time.perf_counter()
            out = model(prompt_ids, use_cache=True)
            torch.cuda.synchronize()
            prefill = time.perf_counter() - start
            cache = out.past_key_values
            token = out.logits[:, -1:].argmax(-1)
            start = time.perf_counter()
            for _ in range(steps):
                out = model(token, past_key_values=cache, use_cache=True)
                cache = out.past_key_values
                token = out.logits[:, -1:].argmax(-1)
            torch.cuda.synchronize()
            decode = time.perf_counter() - start
            if run:
                best_prefill = min(best_prefill, prefill)
                best_decode = min(best_decode, decode)
    return prompt / best_prefill, steps / best_decode


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    for name in ("dim", "hidden", "layers", "heads", "kv-heads", "vocab"):
        parser.add_argument("--" + name, type=int, required=True)
    parser.add_argument("--untied", action="store_true")
    parser.add_argument("--prompt-tokens", type=int, default=128)
    parser.add_argument("-n", type=int, default=128)
    parser.add_argument("--dtypes", default="float32,bfloat16")
    args = parser.parse_args()
    # f32 stays f32: no TF32 in matmuls, as tfmc's f32 kernels.
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    config = LlamaConfig(
        hidden_size=args.dim, intermediate_size=args.hidden,
        num_hidden_layers=args.layers, num_attention_heads=args.heads,
        num_key_value_heads=args.kv_heads, vocab_size=args.vocab,
        max_position_embeddings=args.prompt_tokens + args.n + 1,
        tie_word_embeddings=not args.untied)
    torch.manual_seed(0)
    for name in args.dtypes.split(","):
        dtype = getattr(torch, name)
        with torch.device("cuda"):
            model = LlamaForCausalLM(config).to(dtype).eval()
        prefill, decode = bench(model, args.vocab, args.prompt_tokens, args.n)
        weights = sum(p.numel() * p.element_size() for p in model.parameters())
        if args.untied:
            # A step reads one row of a table apart from the classifier.
            table = model.get_input_embeddings().weight
            weights -= (args.vocab - 1) * args.dim * table.element_size()
        print(json.dumps({"dtype": name,
                          "prefill_tokens_per_s": round(prefill, 3),
                          "decode_tokens_per_s": round(decode, 3),
                          "weights_bytes": weights,
                          "torch": torch.__version__}), flush=True)
        del model
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
