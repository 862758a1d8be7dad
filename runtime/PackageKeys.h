//===- PackageKeys.h - The metadata keys of a model package ---------------===//
//
// The compiler writes these keys into a package (compiler/link) and the
// runtime reads them (Main.cpp, ModelLibrary.cpp): one list for both sides.
// Values are text; lists are comma-separated.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_RUNTIME_PACKAGEKEYS_H
#define TFMC_RUNTIME_PACKAGEKEYS_H

namespace tfm::rt::keys {

inline constexpr const char kTokenizerKind[] = "tokenizer.kind";
inline constexpr const char kTokenizerData[] = "tokenizer.data";
inline constexpr const char kBosToken[] = "token.bos";
inline constexpr const char kEosToken[] = "token.eos";
/// Ids besides EOS that end a generation ("128008,128009").
inline constexpr const char kStopTokens[] = "token.stop";
/// The padding id the model's files name (config.json's pad_token_id, a
/// GGUF's padding_token_id); absent when they name none. Informational: an
/// encoder's sequence is padded with any id (runtime/ModelABI.h).
inline constexpr const char kPadToken[] = "token.pad";
inline constexpr const char kDescription[] = "model.description";
inline constexpr const char kNote[] = "model.note";
/// The network's shapes, which tfm_model_info (vocab, context, an encoder's
/// hidden size) does not carry, for --info: decimal integers. Layers are an
/// encoder-decoder's encoder layers, with its decoder's in
/// model.decoder_layers; the experts keys are present for a mixture of
/// experts only.
inline constexpr const char kLayers[] = "model.layers";
inline constexpr const char kDecoderLayers[] = "model.decoder_layers";
inline constexpr const char kHiddenSize[] = "model.hidden_size";
inline constexpr const char kHeads[] = "model.heads";
inline constexpr const char kKVHeads[] = "model.kv_heads";
inline constexpr const char kHeadDim[] = "model.head_dim";
inline constexpr const char kFfnSize[] = "model.ffn_size";
inline constexpr const char kExperts[] = "model.experts";
inline constexpr const char kExpertsPerToken[] = "model.experts_per_token";
/// The number of model parameters: the elements of the model's tensors as
/// its files hold them (a tied LM head counted once).
inline constexpr const char kParameters[] = "model.parameters";
/// What the weights blob holds, per storage type: "TYPE:TENSORS:BYTES"
/// entries, e.g. "f32:9:41216,q8_0:14:267264". TYPE is an element type
/// ("f32", "q8_0") or a block layout of unpacked k-quants ("kquant");
/// a block-quantized matrix counts once, its scales' bytes with its quants'.
inline constexpr const char kWeightTypes[] = "weights.types";
/// An encoder's `--embed` defaults: "mean", "cls", "max", "mean_sqrt_len"
/// or "last"; "1" to L2-normalise; where they came from.
inline constexpr const char kEmbeddingPooling[] = "embedding.pooling";
inline constexpr const char kEmbeddingNormalize[] = "embedding.normalize";
inline constexpr const char kEmbeddingSource[] = "embedding.source";
/// A generation_config.json's sampling defaults (present when the model
/// has one): "1" when it samples (else greedy), and the fields it set.
inline constexpr const char kSample[] = "generation.do_sample";
inline constexpr const char kTemperature[] = "generation.temperature";
inline constexpr const char kTopK[] = "generation.top_k";
inline constexpr const char kTopP[] = "generation.top_p";
inline constexpr const char kMinP[] = "generation.min_p";
inline constexpr const char kRepetitionPenalty[] =
    "generation.repetition_penalty";
/// An encoder's (and an encoder-decoder's source) encode entries by the
/// rows each computes, increasing, the whole context last ("32,128,512"):
/// a call of n tokens runs the first that holds n (encode buckets).
inline constexpr const char kEncodeRows[] = "encode.rows";
/// The machine the code was generated for: LLVM's CPU name ("znver4") and
/// the features it enabled ("avx2,avx512f,..."), which the runtime checks
/// before running it (CpuFeatures.h). A package for a device has none of
/// them but the device's own.
inline constexpr const char kTargetCpu[] = "target.cpu";
inline constexpr const char kTargetFeatures[] = "target.features";
/// The NVIDIA GPU the kernels were chosen for ("sm_80": its PTX, which the
/// driver compiles for any newer GPU) and the archs of the cubins beside
/// it ("sm_90").
inline constexpr const char kTargetCudaArch[] = "target.cuda_arch";
inline constexpr const char kTargetCudaCubins[] = "target.cuda_cubins";

} // namespace tfm::rt::keys

#endif // TFMC_RUNTIME_PACKAGEKEYS_H
