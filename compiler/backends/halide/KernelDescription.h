//===- KernelDescription.h - One kernel for tfmc-halide-gen -----*- C++ -*-===//
//
// What tfmc tells the Halide generator about a kernel: its kind, static
// shapes, element types, fused prologue / epilogue, the machine it runs on
// and who schedules it. Plain C++ (no MLIR, LLVM or Halide): tfmc, which
// holds LLVM 22, writes descriptions as JSON and runs tfmc-halide-gen, which
// holds Halide's LLVM 14, in its own process (../shared/TOOLCHAIN.md has the
// crash when both share one). docs/halide.md documents the JSON and each
// kind's C ABI.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_COMPILER_BACKENDS_HALIDE_KERNELDESCRIPTION_H
#define TFMC_COMPILER_BACKENDS_HALIDE_KERNELDESCRIPTION_H

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace tfmc::halide {

/// The element type a weight matrix or table is stored in, as in
/// compiler/weights/ElementType.h: f16 and bf16 are passed as their 16-bit
/// patterns, the block-quantized types as GGUF's block bytes, row by row.
enum class WeightType : uint8_t {
  F32,
  F16,
  BF16,
  Q8_0,
  Q4_0,
  Q4_K,
  Q5_K,
  Q6_K
};

/// The element type of a KV cache.
enum class CacheType : uint8_t { F32, F16 };

enum class Activation : uint8_t { None, Relu, Silu, GeluTanh, GeluErf };

enum class NormType : uint8_t { None, RmsNorm, LayerNorm };

enum class MaskKind : uint8_t { Causal, Bidirectional, SlidingWindow };

enum class RopeLayout : uint8_t { Interleaved, HalfSplit };

enum class PositionalOp : uint8_t {
  Rope,            ///< rotary embedding of q or k, in place of its input
  TokenEmbedding,  ///< table[token] * scale
  LearnedPosition, ///< input + table[pos + row]
  Sinusoidal,      ///< input + the original Transformer's sin / cos
};

enum class ElementwiseOp : uint8_t {
  Add,
  Mul,
  Relu,
  Silu,
  GeluTanh,
  GeluErf,
  SwiGlu,  ///< silu(lhs) * rhs
  GeGlu,   ///< gelu_tanh(lhs) * rhs
  SoftCap, ///< cap * tanh(lhs / cap)
};

enum class Routing : uint8_t { TopKSoftmax, SoftmaxTopK };

/// Hand-written schedules, or one of Debian's Halide 14 autoschedulers.
enum class Scheduler : uint8_t { Hand, Adams2019, Mullapudi2016, Li2018 };

/// The accelerator API a kernel's loops run on (the host code is x86-64).
enum class Device : uint8_t { None, Cuda, OpenCL };

/// The machine a kernel is compiled for. Always spelled out: Halide's
/// `host` names this Zen 4 a Sapphire Rapids and enables AMX.
struct TargetDescription {
  /// Halide's x86 feature names ("avx2", "fma", "f16c", "avx512",
  /// "avx512_skylake", ...).
  std::vector<std::string> features;
  Device device = Device::None;
  /// 30, 32, 35, 50, 61, 70, 75, 80 or 86 (Halide 14's capabilities);
  /// CUDA only.
  int64_t cudaCapability = 0;
  /// Threads and last-level cache the autoschedulers plan for.
  int64_t threads = 2;
  int64_t cacheBytes = 32 << 20;
};

/// A normalisation, as a kernel of its own or fused before a projection.
struct NormDescription {
  NormType type = NormType::None;
  double eps = 1e-5;
  /// RMSNorm: scale by (1 + weight) (Gemma).
  bool unitOffset = false;
  /// LayerNorm: add a bias.
  bool bias = false;
};

/// `out = epilogue(prologue(input) * weight^T)` with the weight `[out, in]`
/// (gated: `[2 * out, in]`, gate rows first, as tfm-fuse-ffn stacks them).
struct ProjectionParams {
  int64_t rows = 0, inFeatures = 0, outFeatures = 0;
  WeightType weight = WeightType::F32;
  NormDescription prologue;
  bool bias = false;
  Activation activation = Activation::None;
  /// activation(gate) * up over the two halves (SwiGLU with silu).
  bool gated = false;
  bool residual = false;
};

/// T5's buckets of the distance from a query to a key: bucket of a key
/// `relative` positions after its query (negative: before) is
/// `(bidirectional && relative > 0 ? side : 0) + min(distance, exact)` plus
/// the number of `steps` at or below the distance (|relative|, or
/// max(-relative, 0) when causal), as tfm's RelativeBuckets computes it.
struct RelativeBucketsDescription {
  bool bidirectional = false;
  int64_t side = 0, exact = 0;
  std::vector<int64_t> steps;
  /// Buckets in the table: 2 * side bidirectional, else side.
  int64_t buckets() const { return bidirectional ? 2 * side : side; }
};

/// Scaled dot-product attention of `rows` queries at positions
/// `pos .. pos + rows - 1` over a head-major KV cache
/// `[kv_heads, positions, head_dim]`, flash style: partial softmax sums per
/// block of `block` keys, then one combine step.
struct AttentionParams {
  int64_t rows = 0, heads = 0, kvHeads = 0, headDim = 0, positions = 0;
  MaskKind mask = MaskKind::Causal;
  int64_t window = 0;
  /// The score factor; 1/sqrt(head_dim) when absent.
  std::optional<double> scale;
  /// Scaled scores `s` become `softcap * tanh(s / softcap)` (Gemma 2).
  std::optional<double> softcap;
  /// Head `h` adds `slopes[h] * (key position - query position)`.
  bool alibi = false;
  CacheType cache = CacheType::F32;
  /// The kernel takes the number of keys as an argument, `keys` after
  /// `pos`: the keys end there, wherever the queries are (an encoder's
  /// padded input, a cross-attention's source). Without it the keys end at
  /// pos + rows.
  bool keyCount = false;
  /// A sliding window's rolling cache: `positions` slots, slot j holding
  /// the latest position congruent to j (the query at p reads position
  /// p - ((p - j) mod positions) there); pos is then any position. 0: a
  /// cache of positions.
  bool ring = false;
  /// T5's relative position bias: the kernel takes `relative_bias
  /// [buckets, heads]` after the caches (and slopes) and adds
  /// `relative_bias[bucket(key position - query position), h]`.
  std::optional<RelativeBucketsDescription> relativeBias;
  /// Keys per partial; 0 lets the generator choose.
  int64_t block = 0;
};

struct NormParams {
  int64_t rows = 0, features = 0;
  NormDescription norm;
  /// The weight (and bias) hold this many vectors of `features`; row m is
  /// scaled by vector m % weightGroups. A norm per attention head whose
  /// heads are the rows and whose weights differ per head (StableLM 2
  /// 12B) has one per head; 1: one vector for every row.
  int64_t weightGroups = 1;
};

struct PositionalParams {
  PositionalOp op = PositionalOp::Rope;
  int64_t rows = 0;
  /// Rope: the input is `[rows, heads * head_dim]`; the first `rotary_dim`
  /// features of each head rotate (0: all).
  int64_t heads = 0, headDim = 0, rotaryDim = 0;
  double theta = 10000.0;
  RopeLayout layout = RopeLayout::Interleaved;
  /// A scaled RoPE's frequency per pair, replacing theta^(-2i / rotary_dim)
  /// (empty: unscaled), and the factor on its cos and sin.
  std::vector<double> frequencies;
  double attentionFactor = 1.0;
  /// Embeddings: the table is `[vocab or positions, features]`.
  int64_t vocab = 0, positions = 0, features = 0;
  WeightType table = WeightType::F32;
  /// TokenEmbedding: the factor on every row (Gemma: sqrt(features)).
  double scale = 1.0;
  /// Sinusoidal: the wavelength base.
  double base = 10000.0;
};

struct ElementwiseParams {
  ElementwiseOp op = ElementwiseOp::Add;
  int64_t rows = 0, features = 0;
  /// soft_cap's cap.
  double cap = 0.0;
};

/// Chooses `top_k` of `experts` per row from router logits, the lower
/// index first among equal logits; with `in_features`, computes the logits
/// from the hidden states and the `[experts, in]` router weight first.
struct MoeRoutingParams {
  int64_t rows = 0, experts = 0, topK = 0;
  Routing routing = Routing::TopKSoftmax;
  int64_t inFeatures = 0;
  WeightType router = WeightType::F32;
};

/// The chosen SwiGLU experts of each row, weighed and summed (what
/// MoE routing chose): `sum_c weights[m, c] * down_e(silu(gate_e x) *
/// up_e x)` with `e = experts[m, c]` clamped to [0, experts). The experts'
/// matrices are stacked: gate and up `[experts * hidden, in]`, down
/// `[experts * in, hidden]`, each in its own stored type.
struct MoeExpertsParams {
  int64_t rows = 0, inFeatures = 0, hidden = 0, experts = 0, topK = 0;
  WeightType gate = WeightType::F32, up = WeightType::F32,
             down = WeightType::F32;
};

/// A projection onto the vocabulary: logits, optionally after the final
/// norm.
struct LmHeadParams {
  int64_t rows = 0, inFeatures = 0, vocab = 0;
  WeightType weight = WeightType::F32;
  NormDescription prologue;
};

enum class KernelKind : uint8_t {
  Projection,
  Attention,
  Norm,
  Positional,
  Elementwise,
  MoeRouting,
  LmHead,
  MoeExperts,
};

/// One kernel: the generator writes `<name>.a` (or `.o`) and `<name>.h`
/// declaring `int <name>(halide_buffer_t *, ...)`.
struct KernelDescription {
  std::string name;
  TargetDescription target;
  Scheduler scheduler = Scheduler::Hand;
  /// In KernelKind's order.
  std::variant<ProjectionParams, AttentionParams, NormParams, PositionalParams,
               ElementwiseParams, MoeRoutingParams, LmHeadParams,
               MoeExpertsParams>
      params;

  KernelKind kind() const { return static_cast<KernelKind>(params.index()); }
};

/// Spellings in the JSON ("projection", "q4_k", "gelu_tanh", ...).
const char *kernelKindName(KernelKind kind);
const char *weightTypeName(WeightType type);
const char *schedulerName(Scheduler scheduler);
const char *deviceName(Device device);
std::optional<Scheduler> parseSchedulerName(std::string_view name);
/// "q4_k" -> WeightType::Q4_K: compiler/weights' element type names.
std::optional<WeightType> parseWeightTypeName(std::string_view name);
std::optional<Device> parseDeviceName(std::string_view name);

/// Values per storage block of `type` (1, 32 or 256) and its bytes.
int64_t weightBlockElements(WeightType type);
int64_t weightBlockBytes(WeightType type);
bool isBlockQuantized(WeightType type);

/// Parses a description file: one kernel object, or `{"kernels": [...]}`.
/// Unknown keys are errors (a misspelt option must not vanish). False and
/// `error` naming the kernel and the key on bad input; the descriptions
/// are also verified (verifyKernelDescription).
bool parseKernelDescriptions(std::string_view json,
                             std::vector<KernelDescription> &out,
                             std::string &error);

/// Checks what the JSON types cannot: a C identifier for the name, positive
/// shapes, rows of whole quantization blocks, heads that share key/value
/// heads evenly, options that belong together.
bool verifyKernelDescription(const KernelDescription &kernel,
                             std::string &error);

/// The JSON form, every field spelled out, which parses back to the same
/// descriptions: `{"kernels": [...]}`.
std::string writeKernelDescriptions(const std::vector<KernelDescription> &);

} // namespace tfmc::halide

#endif // TFMC_COMPILER_BACKENDS_HALIDE_KERNELDESCRIPTION_H
