//===- KernelDescription.cpp - One kernel for tfmc-halide-gen -------------===//
//
// Each kind's JSON keys are listed once, in a `fields` function that both
// the reader and the writer walk, so the two cannot drift apart.
//
//===----------------------------------------------------------------------===//
#include "compiler/backends/halide/KernelDescription.h"

#include "runtime/hf/Json.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>

using namespace tfmc::halide;
using tfm::rt::hf::JsonReader;
using tfm::rt::hf::JsonValue;

namespace {

template <typename E> struct EnumName {
  E value;
  const char *name;
};

constexpr EnumName<KernelKind> kKinds[] = {
    {KernelKind::Projection, "projection"},
    {KernelKind::Attention, "attention"},
    {KernelKind::Norm, "norm"},
    {KernelKind::Positional, "positional"},
    {KernelKind::Elementwise, "elementwise"},
    {KernelKind::MoeRouting, "moe-routing"},
    {KernelKind::LmHead, "lm-head"},
    {KernelKind::MoeExperts, "moe-experts"},
};
constexpr EnumName<WeightType> kWeightTypes[] = {
    {WeightType::F32, "f32"},   {WeightType::F16, "f16"},
    {WeightType::BF16, "bf16"}, {WeightType::Q8_0, "q8_0"},
    {WeightType::Q4_0, "q4_0"}, {WeightType::Q4_K, "q4_k"},
    {WeightType::Q5_K, "q5_k"}, {WeightType::Q6_K, "q6_k"},
};
constexpr EnumName<CacheType> kCacheTypes[] = {{CacheType::F32, "f32"},
                                               {CacheType::F16, "f16"}};
constexpr EnumName<Activation> kActivations[] = {
    {Activation::None, "none"},        {Activation::Relu, "relu"},
    {Activation::Silu, "silu"},        {Activation::GeluTanh, "gelu_tanh"},
    {Activation::GeluErf, "gelu_erf"},
};
constexpr EnumName<NormType> kNormTypes[] = {
    {NormType::None, "none"},
    {NormType::RmsNorm, "rms_norm"},
    {NormType::LayerNorm, "layer_norm"}};
constexpr EnumName<MaskKind> kMasks[] = {
    {MaskKind::Causal, "causal"},
    {MaskKind::Bidirectional, "bidirectional"},
    {MaskKind::SlidingWindow, "sliding_window"},
};
constexpr EnumName<RopeLayout> kRopeLayouts[] = {
    {RopeLayout::Interleaved, "interleaved"},
    {RopeLayout::HalfSplit, "half_split"},
};
constexpr EnumName<PositionalOp> kPositionalOps[] = {
    {PositionalOp::Rope, "rope"},
    {PositionalOp::TokenEmbedding, "token_embedding"},
    {PositionalOp::LearnedPosition, "learned_position"},
    {PositionalOp::Sinusoidal, "sinusoidal"},
};
constexpr EnumName<ElementwiseOp> kElementwiseOps[] = {
    {ElementwiseOp::Add, "add"},
    {ElementwiseOp::Mul, "mul"},
    {ElementwiseOp::Relu, "relu"},
    {ElementwiseOp::Silu, "silu"},
    {ElementwiseOp::GeluTanh, "gelu_tanh"},
    {ElementwiseOp::GeluErf, "gelu_erf"},
    {ElementwiseOp::SwiGlu, "swiglu"},
    {ElementwiseOp::GeGlu, "geglu"},
    {ElementwiseOp::SoftCap, "soft_cap"},
};
constexpr EnumName<Routing> kRoutings[] = {
    {Routing::TopKSoftmax, "top_k_softmax"},
    {Routing::SoftmaxTopK, "softmax_top_k"},
};
constexpr EnumName<Scheduler> kSchedulers[] = {
    {Scheduler::Hand, "hand"},
    {Scheduler::Adams2019, "adams2019"},
    {Scheduler::Mullapudi2016, "mullapudi2016"},
    {Scheduler::Li2018, "li2018"},
};
constexpr EnumName<Device> kDevices[] = {
    {Device::None, "none"}, {Device::Cuda, "cuda"}, {Device::OpenCL, "opencl"}};

template <typename E, size_t N>
const char *nameOf(const EnumName<E> (&table)[N], E value) {
  for (const EnumName<E> &entry : table)
    if (entry.value == value)
      return entry.name;
  return "?";
}

template <typename E, size_t N>
std::optional<E> valueOf(const EnumName<E> (&table)[N], std::string_view name) {
  for (const EnumName<E> &entry : table)
    if (name == entry.name)
      return entry.value;
  return std::nullopt;
}

/// "'a', 'b' or 'c'" for messages.
template <typename E, size_t N>
std::string alternatives(const EnumName<E> (&table)[N]) {
  std::string out;
  for (size_t i = 0; i < N; ++i) {
    if (i)
      out += i + 1 == N ? " or " : ", ";
    out += "'" + std::string(table[i].name) + "'";
  }
  return out;
}

//===-- Reading -----------------------------------------------------------===//

/// Reads the members of one JSON object into a kind's fields, remembering
/// which keys it read so that the rest can be reported as unknown.
class FieldReader {
public:
  FieldReader(const JsonValue &object, std::string path, std::string &error)
      : reader_(object, std::move(path)), object_(object), error_(error) {}

  bool ok() const { return ok_; }

  void integer(const char *key, int64_t &out, bool required = false) {
    seen_.insert(key);
    if (ok_ && !reader_.readInteger(key, out, error_, required))
      ok_ = false;
  }
  /// An integer whose absence means `fallback` (the field's initial value).
  void defaultedInteger(const char *key, int64_t &out, int64_t) {
    integer(key, out);
  }
  void number(const char *key, double &out) {
    seen_.insert(key);
    if (ok_ && !reader_.readNumber(key, out, error_))
      ok_ = false;
  }
  void optionalNumber(const char *key, std::optional<double> &out) {
    seen_.insert(key);
    if (!ok_ || !reader_.get(key))
      return;
    double value = 0;
    if (!reader_.readNumber(key, value, error_)) {
      ok_ = false;
      return;
    }
    out = value;
  }
  void boolean(const char *key, bool &out) {
    seen_.insert(key);
    if (ok_ && !reader_.readBool(key, out, error_))
      ok_ = false;
  }
  template <typename E, size_t N>
  void enumeration(const char *key, E &out, const EnumName<E> (&table)[N],
                   bool required = false) {
    seen_.insert(key);
    std::string name;
    if (!ok_ || !reader_.readString(key, name, error_, required)) {
      ok_ = false;
      return;
    }
    if (!reader_.get(key))
      return;
    if (std::optional<E> value = valueOf(table, name)) {
      out = *value;
      return;
    }
    error_ = "'" + reader_.pathOf(key) + "' must be " + alternatives(table) +
             ", not '" + name + "'";
    ok_ = false;
  }
  void norm(const char *key, NormDescription &out) {
    object(key, [&](FieldReader &nested) {
      nested.enumeration("type", out.type, kNormTypes, /*required=*/true);
      nested.number("eps", out.eps);
      nested.boolean("unit_offset", out.unitOffset);
      nested.boolean("bias", out.bias);
    });
  }
  void buckets(const char *key,
               std::optional<RelativeBucketsDescription> &out) {
    RelativeBucketsDescription buckets;
    if (object(key, [&](FieldReader &nested) {
          nested.boolean("bidirectional", buckets.bidirectional);
          nested.integer("side", buckets.side, /*required=*/true);
          nested.integer("exact", buckets.exact, /*required=*/true);
          nested.integers("steps", buckets.steps);
        }))
      out = std::move(buckets);
  }
  /// Reads the object member `key` with `read` on a reader of its own;
  /// whether it was there and read.
  template <typename F> bool object(const char *key, F &&read) {
    seen_.insert(key);
    if (!ok_)
      return false;
    const JsonValue *member = reader_.get(key);
    if (!member)
      return false;
    if (member->kind != JsonValue::Kind::Object) {
      error_ = reader_.typeError(key, "an object");
      return ok_ = false;
    }
    FieldReader nested(*member, reader_.pathOf(key), error_);
    read(nested);
    return ok_ = nested.finish();
  }
  void numbers(const char *key, std::vector<double> &out) {
    readArray(key, out, "numbers", [](const JsonValue &item, double &value) {
      value = item.number;
      return item.kind == JsonValue::Kind::Number;
    });
  }
  void integers(const char *key, std::vector<int64_t> &out) {
    readArray(key, out, "integers", [](const JsonValue &item, int64_t &value) {
      value = static_cast<int64_t>(item.number);
      return item.kind == JsonValue::Kind::Number &&
             static_cast<double>(value) == item.number;
    });
  }

  /// Fails on members no field read.
  bool finish() {
    if (!ok_)
      return false;
    for (const auto &member : object_.object)
      if (!seen_.count(member.first)) {
        error_ = "unknown key '" + reader_.pathOf(member.first) + "'";
        return ok_ = false;
      }
    return true;
  }

private:
  /// Reads the array `key` (absent: nothing) into `out`, each item by
  /// `convert`, which says whether it is one of the `what` the key holds.
  template <typename T, typename F>
  void readArray(const char *key, std::vector<T> &out, const char *what,
                 F &&convert) {
    seen_.insert(key);
    const JsonValue *array = nullptr;
    if (!ok_ || !reader_.readArray(key, array, error_)) {
      ok_ = false;
      return;
    }
    if (!array)
      return;
    for (const JsonValue &item : array->array) {
      T value{};
      if (!convert(item, value)) {
        error_ = "'" + reader_.pathOf(key) + "' must hold " + what;
        ok_ = false;
        return;
      }
      out.push_back(value);
    }
  }

  JsonReader reader_;
  const JsonValue &object_;
  std::string &error_;
  std::set<std::string, std::less<>> seen_;
  bool ok_ = true;
};

//===-- Writing -----------------------------------------------------------===//

/// The shortest text that reads back as the same double, and as a JSON
/// number that reads back as a number, not an integer.
std::string shortestNumber(double value) {
  char text[40];
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(text, sizeof(text), "%.*g", digits, value);
    if (std::strtod(text, nullptr) == value)
      break;
  }
  std::string out = text;
  if (out.find_first_of(".eEn") == std::string::npos)
    out += ".0";
  return out;
}

/// Writes fields as `"key": value` members of one JSON object.
class FieldWriter {
public:
  explicit FieldWriter(std::string &out, int indent)
      : out_(out), indent_(indent) {}

  void integer(const char *key, const int64_t &value, bool = false) {
    member(key) += std::to_string(value);
  }
  /// Left out at its default, so descriptions without it stay as they were.
  void defaultedInteger(const char *key, const int64_t &value,
                        int64_t fallback) {
    if (value != fallback)
      integer(key, value);
  }
  void number(const char *key, const double &value) {
    member(key) += shortestNumber(value);
  }
  void optionalNumber(const char *key, const std::optional<double> &value) {
    if (value)
      number(key, *value);
  }
  /// An empty list is left out, as the reader reads a missing one.
  void numbers(const char *key, const std::vector<double> &values) {
    if (values.empty())
      return;
    std::string &out = member(key);
    out += "[";
    for (size_t i = 0; i < values.size(); ++i) {
      if (i)
        out += ", ";
      out += shortestNumber(values[i]);
    }
    out += "]";
  }
  void boolean(const char *key, const bool &value) {
    member(key) += value ? "true" : "false";
  }
  template <typename E, size_t N>
  void enumeration(const char *key, const E &value,
                   const EnumName<E> (&table)[N], bool = false) {
    tfm::rt::hf::appendJsonString(member(key), nameOf(table, value));
  }
  void norm(const char *key, const NormDescription &value) {
    if (value.type == NormType::None)
      return;
    std::string &out = member(key);
    out += "{";
    FieldWriter nested(out, -1);
    nested.enumeration("type", value.type, kNormTypes);
    nested.number("eps", value.eps);
    nested.boolean("unit_offset", value.unitOffset);
    nested.boolean("bias", value.bias);
    out += "}";
  }
  void buckets(const char *key,
               const std::optional<RelativeBucketsDescription> &value) {
    if (!value)
      return;
    std::string &out = member(key);
    out += "{";
    FieldWriter nested(out, -1);
    nested.boolean("bidirectional", value->bidirectional);
    nested.integer("side", value->side);
    nested.integer("exact", value->exact);
    std::string &steps = nested.member("steps");
    steps += "[";
    for (size_t i = 0; i < value->steps.size(); ++i)
      steps += (i ? ", " : "") + std::to_string(value->steps[i]);
    steps += "]";
    out += "}";
  }

private:
  /// Starts a member; indent < 0 writes it on one line.
  std::string &member(const char *key) {
    if (!first_)
      out_ += indent_ < 0 ? ", " : ",";
    first_ = false;
    if (indent_ >= 0)
      out_ += "\n" + std::string(indent_, ' ');
    tfm::rt::hf::appendJsonString(out_, key);
    out_ += ": ";
    return out_;
  }

  std::string &out_;
  int indent_;
  bool first_ = true;
};

//===-- The keys of each kind ---------------------------------------------===//

template <typename V, typename P> void fields(V &v, P &p);

template <typename V> void fields(V &v, ProjectionParams &p) {
  v.integer("rows", p.rows, true);
  v.integer("in_features", p.inFeatures, true);
  v.integer("out_features", p.outFeatures, true);
  v.enumeration("weight", p.weight, kWeightTypes);
  v.norm("prologue", p.prologue);
  v.boolean("bias", p.bias);
  v.enumeration("activation", p.activation, kActivations);
  v.boolean("gated", p.gated);
  v.boolean("residual", p.residual);
}

template <typename V> void fields(V &v, AttentionParams &p) {
  v.integer("rows", p.rows, true);
  v.integer("heads", p.heads, true);
  v.integer("kv_heads", p.kvHeads, true);
  v.integer("head_dim", p.headDim, true);
  v.integer("positions", p.positions, true);
  v.enumeration("mask", p.mask, kMasks);
  v.integer("window", p.window);
  v.optionalNumber("scale", p.scale);
  v.optionalNumber("softcap", p.softcap);
  v.boolean("alibi", p.alibi);
  v.enumeration("cache", p.cache, kCacheTypes);
  v.boolean("key_count", p.keyCount);
  v.boolean("ring", p.ring);
  v.buckets("relative_bias", p.relativeBias);
  v.integer("block", p.block);
}

template <typename V> void fields(V &v, NormParams &p) {
  v.integer("rows", p.rows, true);
  v.integer("features", p.features, true);
  v.enumeration("norm", p.norm.type, kNormTypes, true);
  v.number("eps", p.norm.eps);
  v.boolean("unit_offset", p.norm.unitOffset);
  v.boolean("bias", p.norm.bias);
  v.defaultedInteger("weight_groups", p.weightGroups, 1);
}

template <typename V> void fields(V &v, PositionalParams &p) {
  v.enumeration("op", p.op, kPositionalOps, true);
  v.integer("rows", p.rows, true);
  switch (p.op) {
  case PositionalOp::Rope:
    v.integer("heads", p.heads, true);
    v.integer("head_dim", p.headDim, true);
    v.integer("rotary_dim", p.rotaryDim);
    v.number("theta", p.theta);
    v.enumeration("layout", p.layout, kRopeLayouts);
    v.numbers("frequencies", p.frequencies);
    v.number("attention_factor", p.attentionFactor);
    return;
  case PositionalOp::TokenEmbedding:
    v.integer("vocab", p.vocab, true);
    v.integer("features", p.features, true);
    v.enumeration("table", p.table, kWeightTypes);
    v.number("scale", p.scale);
    return;
  case PositionalOp::LearnedPosition:
    v.integer("positions", p.positions, true);
    v.integer("features", p.features, true);
    v.enumeration("table", p.table, kWeightTypes);
    return;
  case PositionalOp::Sinusoidal:
    v.integer("features", p.features, true);
    v.number("base", p.base);
    return;
  }
}

template <typename V> void fields(V &v, ElementwiseParams &p) {
  v.enumeration("op", p.op, kElementwiseOps, true);
  v.integer("rows", p.rows, true);
  v.integer("features", p.features, true);
  if (p.op == ElementwiseOp::SoftCap)
    v.number("cap", p.cap);
}

template <typename V> void fields(V &v, MoeRoutingParams &p) {
  v.integer("rows", p.rows, true);
  v.integer("experts", p.experts, true);
  v.integer("top_k", p.topK, true);
  v.enumeration("routing", p.routing, kRoutings);
  v.integer("in_features", p.inFeatures);
  v.enumeration("router", p.router, kWeightTypes);
}

template <typename V> void fields(V &v, MoeExpertsParams &p) {
  v.integer("rows", p.rows, true);
  v.integer("in_features", p.inFeatures, true);
  v.integer("hidden", p.hidden, true);
  v.integer("experts", p.experts, true);
  v.integer("top_k", p.topK, true);
  v.enumeration("gate", p.gate, kWeightTypes);
  v.enumeration("up", p.up, kWeightTypes);
  v.enumeration("down", p.down, kWeightTypes);
}

template <typename V> void fields(V &v, LmHeadParams &p) {
  v.integer("rows", p.rows, true);
  v.integer("in_features", p.inFeatures, true);
  v.integer("vocab", p.vocab, true);
  v.enumeration("weight", p.weight, kWeightTypes);
  v.norm("prologue", p.prologue);
}

/// The writer walks const descriptions through the same functions.
template <typename P> void writeFields(FieldWriter &w, const P &p) {
  fields(w, const_cast<P &>(p));
}

bool readTarget(const JsonValue &value, const std::string &path,
                TargetDescription &target, std::string &error) {
  if (value.kind != JsonValue::Kind::Object) {
    error = "'" + path + "' must be an object, not " + value.kindName();
    return false;
  }
  JsonReader reader(value, path);
  const JsonValue *features = nullptr;
  if (!reader.readArray("features", features, error))
    return false;
  if (features)
    for (const JsonValue &feature : features->array) {
      if (feature.kind != JsonValue::Kind::String) {
        error = "'" + reader.pathOf("features") + "' must hold strings, not " +
                feature.kindName();
        return false;
      }
      target.features.push_back(feature.string);
    }
  FieldReader fieldsReader(value, path, error);
  fieldsReader.integer("cuda_capability", target.cudaCapability);
  fieldsReader.enumeration("device", target.device, kDevices);
  fieldsReader.integer("threads", target.threads);
  fieldsReader.integer("cache_bytes", target.cacheBytes);
  if (!fieldsReader.ok())
    return false;
  for (const auto &member : value.object)
    if (member.first != "features" && member.first != "cuda_capability" &&
        member.first != "device" && member.first != "threads" &&
        member.first != "cache_bytes") {
      error = "unknown key '" + reader.pathOf(member.first) + "'";
      return false;
    }
  return true;
}

bool checkUnknownKeys(const JsonValue &value, const std::string &path,
                      const std::set<std::string> &known, std::string &error) {
  for (const auto &member : value.object)
    if (!known.count(member.first)) {
      error = "unknown key '" + path + "." + member.first + "'";
      return false;
    }
  return true;
}

/// Collects the keys a kind's `fields` names.
class KeyCollector {
public:
  std::set<std::string> keys;
  void integer(const char *key, int64_t &, bool = false) { keys.insert(key); }
  void defaultedInteger(const char *key, int64_t &, int64_t) {
    keys.insert(key);
  }
  void number(const char *key, double &) { keys.insert(key); }
  void numbers(const char *key, std::vector<double> &) { keys.insert(key); }
  void optionalNumber(const char *key, std::optional<double> &) {
    keys.insert(key);
  }
  void boolean(const char *key, bool &) { keys.insert(key); }
  template <typename E, size_t N>
  void enumeration(const char *key, E &, const EnumName<E> (&)[N],
                   bool = false) {
    keys.insert(key);
  }
  void norm(const char *key, NormDescription &) { keys.insert(key); }
  void buckets(const char *key, std::optional<RelativeBucketsDescription> &) {
    keys.insert(key);
  }
};

template <typename P>
bool readKind(const JsonValue &value, const std::string &path,
              KernelDescription &kernel, std::string &error) {
  P params;
  FieldReader reader(value, path, error);
  fields(reader, params);
  if (!reader.ok())
    return false;
  KeyCollector collector;
  fields(collector, params);
  collector.keys.insert({"name", "kind", "target", "schedule"});
  if (!checkUnknownKeys(value, path, collector.keys, error))
    return false;
  kernel.params = params;
  return true;
}

bool readKernel(const JsonValue &value, const std::string &path,
                KernelDescription &kernel, std::string &error) {
  if (value.kind != JsonValue::Kind::Object) {
    error = "'" + path + "' must be an object, not " + value.kindName();
    return false;
  }
  JsonReader reader(value, path);
  if (!reader.readString("name", kernel.name, error, /*required=*/true))
    return false;
  // Name the kernel in every later message.
  std::string named = path + " ('" + kernel.name + "')";
  JsonReader namedReader(value, named);
  std::string kindName;
  if (!namedReader.readString("kind", kindName, error, /*required=*/true))
    return false;
  std::optional<KernelKind> kind = valueOf(kKinds, kindName);
  if (!kind) {
    error = "'" + namedReader.pathOf("kind") + "' must be " +
            alternatives(kKinds) + ", not '" + kindName + "'";
    return false;
  }
  std::string scheduler;
  if (!namedReader.readString("schedule", scheduler, error))
    return false;
  if (!scheduler.empty()) {
    std::optional<Scheduler> parsed = parseSchedulerName(scheduler);
    if (!parsed) {
      error = "'" + namedReader.pathOf("schedule") + "' must be " +
              alternatives(kSchedulers) + ", not '" + scheduler + "'";
      return false;
    }
    kernel.scheduler = *parsed;
  }
  const JsonValue *target = namedReader.get("target");
  if (!target) {
    error = "'" + namedReader.pathOf("target") +
            "' is missing: kernels name their target (never Halide's host)";
    return false;
  }
  if (!readTarget(*target, namedReader.pathOf("target"), kernel.target, error))
    return false;
  switch (*kind) {
  case KernelKind::Projection:
    return readKind<ProjectionParams>(value, named, kernel, error);
  case KernelKind::Attention:
    return readKind<AttentionParams>(value, named, kernel, error);
  case KernelKind::Norm:
    return readKind<NormParams>(value, named, kernel, error);
  case KernelKind::Positional:
    return readKind<PositionalParams>(value, named, kernel, error);
  case KernelKind::Elementwise:
    return readKind<ElementwiseParams>(value, named, kernel, error);
  case KernelKind::MoeRouting:
    return readKind<MoeRoutingParams>(value, named, kernel, error);
  case KernelKind::LmHead:
    return readKind<LmHeadParams>(value, named, kernel, error);
  case KernelKind::MoeExperts:
    return readKind<MoeExpertsParams>(value, named, kernel, error);
  }
  return false;
}

//===-- Verification ------------------------------------------------------===//

bool isIdentifier(const std::string &name) {
  if (name.empty() || name.size() > 200 ||
      !(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_'))
    return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

/// Collects the first failed check of one kernel as "kernel 'NAME': ...".
class Checker {
public:
  Checker(const KernelDescription &kernel, std::string &error)
      : kernel_(kernel), error_(error) {}

  bool ok() const { return ok_; }
  Checker &require(bool condition, const std::string &message) {
    if (ok_ && !condition) {
      error_ = "kernel '" + kernel_.name + "': " + message;
      ok_ = false;
    }
    return *this;
  }
  /// Sizes are bounded so that every index and byte offset fits in int32,
  /// Halide's index type.
  Checker &positive(const char *key, int64_t value) {
    return require(value > 0 && value <= (int64_t(1) << 24),
                   std::string(key) + " must be in [1, 16777216], not " +
                       std::to_string(value));
  }
  Checker &wholeBlocks(const char *key, int64_t features, WeightType type) {
    int64_t block = weightBlockElements(type);
    return require(features % block == 0,
                   std::string(key) + " (" + std::to_string(features) +
                       ") must be a multiple of " + std::to_string(block) +
                       " for " + weightTypeName(type) + " weights");
  }
  Checker &fitsInt32(const char *what, int64_t elements, int64_t bytes) {
    return require(elements * bytes < (int64_t(1) << 31),
                   std::string(what) + " exceeds 2 GiB, Halide's buffer limit");
  }
  Checker &norm(const NormDescription &norm, bool required) {
    require(!required || norm.type != NormType::None,
            "'norm' must be 'rms_norm' or 'layer_norm'");
    if (norm.type == NormType::None)
      return *this;
    require(std::isfinite(norm.eps) && norm.eps >= 0,
            "eps must be a finite number >= 0");
    require(!norm.unitOffset || norm.type == NormType::RmsNorm,
            "unit_offset applies to rms_norm only");
    return require(!norm.bias || norm.type == NormType::LayerNorm,
                   "bias applies to layer_norm only");
  }

private:
  const KernelDescription &kernel_;
  std::string &error_;
  bool ok_ = true;
};

int64_t rowBytes(WeightType type, int64_t features) {
  return features / weightBlockElements(type) * weightBlockBytes(type);
}

void verifyTarget(Checker &check, const TargetDescription &target,
                  Scheduler scheduler) {
  static const char *kFeatures[] = {
      "sse41",
      "avx",
      "avx2",
      "fma",
      "f16c",
      "avx512",
      "avx512_knl",
      "avx512_skylake",
      "avx512_cannonlake",
      "avx512_sapphirerapids",
      "avx_vnni",
      "debug",
      "no_asserts",
      "no_bounds_query",
      "strict_float",
      "profile",
  };
  for (const std::string &feature : target.features) {
    if (feature == "host") {
      check.require(false, "the target must spell out its features, never "
                           "'host' (Halide 14 names Zen 4 a Sapphire Rapids "
                           "and enables AMX)");
      return;
    }
    bool known = std::any_of(std::begin(kFeatures), std::end(kFeatures),
                             [&](const char *f) { return feature == f; });
    check.require(known, "unknown target feature '" + feature +
                             "' (x86 features as Halide 14 names them: avx2, "
                             "fma, f16c, avx512, avx512_skylake, ...)");
  }
  static const int64_t kCapabilities[] = {30, 32, 35, 50, 61, 70, 75, 80, 86};
  if (target.device == Device::Cuda)
    check.require(std::find(std::begin(kCapabilities), std::end(kCapabilities),
                            target.cudaCapability) != std::end(kCapabilities),
                  "cuda_capability must be one of Halide 14's 30, 32, 35, "
                  "50, 61, 70, 75, 80, 86, not " +
                      std::to_string(target.cudaCapability));
  else
    check.require(target.cudaCapability == 0,
                  "cuda_capability needs device 'cuda'");
  check.require(target.threads > 0 && target.threads <= 4096,
                "threads must be in [1, 4096]");
  check.require(target.cacheBytes > 0, "cache_bytes must be positive");
  bool gpu = target.device != Device::None;
  check.require(!gpu || scheduler == Scheduler::Hand ||
                    scheduler == Scheduler::Li2018,
                std::string("the ") + schedulerName(scheduler) +
                    " autoscheduler schedules CPUs only in Halide 14: use "
                    "'li2018' or 'hand' for device '" +
                    deviceName(target.device) + "'");
}

void verify(Checker &check, const ProjectionParams &p) {
  check.positive("rows", p.rows)
      .positive("in_features", p.inFeatures)
      .positive("out_features", p.outFeatures);
  if (!check.ok())
    return;
  check.wholeBlocks("in_features", p.inFeatures, p.weight)
      .fitsInt32("the weight", (p.gated ? 2 : 1) * p.outFeatures,
                 rowBytes(p.weight, p.inFeatures))
      .fitsInt32("the input", p.rows * p.inFeatures, 4)
      .fitsInt32("the output", p.rows * p.outFeatures, 4)
      .norm(p.prologue, false)
      .require(!p.gated || p.activation != Activation::None,
               "a gated projection needs an activation for its gate (silu: "
               "SwiGLU)");
}

void verify(Checker &check, const LmHeadParams &p) {
  check.positive("rows", p.rows)
      .positive("in_features", p.inFeatures)
      .positive("vocab", p.vocab);
  if (!check.ok())
    return;
  check.wholeBlocks("in_features", p.inFeatures, p.weight)
      .fitsInt32("the weight", p.vocab, rowBytes(p.weight, p.inFeatures))
      .fitsInt32("the logits", p.rows * p.vocab, 4)
      .norm(p.prologue, false);
}

void verify(Checker &check, const AttentionParams &p) {
  check.positive("rows", p.rows)
      .positive("heads", p.heads)
      .positive("kv_heads", p.kvHeads)
      .positive("head_dim", p.headDim)
      .positive("positions", p.positions);
  if (!check.ok())
    return;
  check
      .require(p.heads % p.kvHeads == 0,
               "heads (" + std::to_string(p.heads) +
                   ") must be a multiple of kv_heads (" +
                   std::to_string(p.kvHeads) + ")")
      .require(p.rows <= p.positions,
               "rows (" + std::to_string(p.rows) +
                   ") must not exceed the cache's positions (" +
                   std::to_string(p.positions) + ")")
      .fitsInt32("the KV cache", p.kvHeads * p.positions * p.headDim, 4)
      .require(p.mask == MaskKind::SlidingWindow ? p.window > 0 : p.window == 0,
               "window (" + std::to_string(p.window) +
                   ") must be positive with mask 'sliding_window' and absent "
                   "otherwise")
      .require(!p.ring || (p.mask == MaskKind::SlidingWindow &&
                           p.positions >= p.window + p.rows - 1),
               "ring needs mask 'sliding_window' and positions of at least "
               "window + rows - 1 (" +
                   std::to_string(p.window + p.rows - 1) +
                   "): a row's window must still be in the ring")
      .require(!(p.ring && p.keyCount), "ring and key_count exclude each other")
      .require(!p.relativeBias ||
                   (p.relativeBias->exact >= 1 &&
                    p.relativeBias->exact <= p.relativeBias->side &&
                    p.relativeBias->steps.size() <=
                        static_cast<size_t>(p.relativeBias->side)),
               "relative_bias needs 1 <= exact <= side and at most side steps")
      .require(!p.scale || (std::isfinite(*p.scale) && *p.scale > 0),
               "scale must be a positive finite number")
      .require(!p.softcap || (std::isfinite(*p.softcap) && *p.softcap > 0),
               "softcap must be a positive finite number")
      .require(p.block >= 0 && p.block <= 4096,
               "block must be in [0, 4096] keys (0: chosen)");
}

void verify(Checker &check, const NormParams &p) {
  check.positive("rows", p.rows).positive("features", p.features);
  check.positive("weight_groups", p.weightGroups)
      .require(p.weightGroups <= 0 || p.rows % p.weightGroups == 0,
               "rows (" + std::to_string(p.rows) +
                   ") must be a multiple of weight_groups (" +
                   std::to_string(p.weightGroups) + ")");
  check.norm(p.norm, true).fitsInt32("the input", p.rows * p.features, 4);
}

void verify(Checker &check, const PositionalParams &p) {
  check.positive("rows", p.rows);
  switch (p.op) {
  case PositionalOp::Rope: {
    check.positive("heads", p.heads).positive("head_dim", p.headDim);
    int64_t rotary = p.rotaryDim ? p.rotaryDim : p.headDim;
    check
        .require(rotary > 0 && rotary <= p.headDim && rotary % 2 == 0,
                 "rotary_dim (" + std::to_string(rotary) +
                     ") must be even and in [2, head_dim]")
        .require(std::isfinite(p.theta) && p.theta > 1,
                 "theta must be a finite number > 1")
        .require(p.frequencies.empty() ||
                     static_cast<int64_t>(p.frequencies.size()) == rotary / 2,
                 "frequencies must hold one number per pair (" +
                     std::to_string(rotary / 2) + ")")
        .require(
            std::all_of(p.frequencies.begin(), p.frequencies.end(),
                        [](double f) { return std::isfinite(f) && f >= 0; }),
            "frequencies must be finite numbers >= 0")
        .require(std::isfinite(p.attentionFactor) && p.attentionFactor > 0,
                 "attention_factor must be a finite number > 0")
        .fitsInt32("the input", p.rows * p.heads * p.headDim, 4);
    return;
  }
  case PositionalOp::TokenEmbedding:
    check.positive("vocab", p.vocab).positive("features", p.features);
    if (!check.ok())
      return;
    check.wholeBlocks("features", p.features, p.table)
        .fitsInt32("the table", p.vocab, rowBytes(p.table, p.features))
        .require(std::isfinite(p.scale), "scale must be finite");
    return;
  case PositionalOp::LearnedPosition:
    check.positive("positions", p.positions).positive("features", p.features);
    if (!check.ok())
      return;
    check.wholeBlocks("features", p.features, p.table)
        .fitsInt32("the table", p.positions, rowBytes(p.table, p.features))
        .require(p.rows <= p.positions, "rows (" + std::to_string(p.rows) +
                                            ") must not exceed positions (" +
                                            std::to_string(p.positions) + ")");
    return;
  case PositionalOp::Sinusoidal:
    check.positive("features", p.features)
        .require(p.features % 2 == 0,
                 "features must be even (sin and cos alternate)")
        .require(std::isfinite(p.base) && p.base > 1,
                 "base must be a finite number > 1");
    return;
  }
}

void verify(Checker &check, const ElementwiseParams &p) {
  check.positive("rows", p.rows).positive("features", p.features);
  check.fitsInt32("the input", p.rows * p.features, 4);
  check.require(p.op != ElementwiseOp::SoftCap ||
                    (std::isfinite(p.cap) && p.cap > 0),
                "soft_cap needs a positive finite cap");
}

void verify(Checker &check, const MoeRoutingParams &p) {
  check.positive("rows", p.rows).positive("experts", p.experts);
  if (!check.ok())
    return;
  check.require(p.experts <= 1024, "experts must be at most 1024")
      .require(p.topK > 0 && p.topK <= p.experts,
               "top_k (" + std::to_string(p.topK) + ") must be in [1, " +
                   std::to_string(p.experts) + "]")
      .require(p.inFeatures >= 0, "in_features must not be negative");
  if (check.ok() && p.inFeatures > 0)
    check.wholeBlocks("in_features", p.inFeatures, p.router);
}

void verify(Checker &check, const MoeExpertsParams &p) {
  check.positive("rows", p.rows)
      .positive("in_features", p.inFeatures)
      .positive("hidden", p.hidden)
      .positive("experts", p.experts);
  if (!check.ok())
    return;
  check.require(p.experts <= 1024, "experts must be at most 1024")
      .require(p.topK > 0 && p.topK <= p.experts,
               "top_k (" + std::to_string(p.topK) + ") must be in [1, " +
                   std::to_string(p.experts) + "]")
      .wholeBlocks("in_features", p.inFeatures, p.gate)
      .wholeBlocks("in_features", p.inFeatures, p.up)
      .wholeBlocks("hidden", p.hidden, p.down);
  if (!check.ok())
    return;
  check.fitsInt32("gate", p.experts * p.hidden, rowBytes(p.gate, p.inFeatures))
      .fitsInt32("up", p.experts * p.hidden, rowBytes(p.up, p.inFeatures))
      .fitsInt32("down", p.experts * p.inFeatures, rowBytes(p.down, p.hidden))
      .fitsInt32("the input", p.rows * p.inFeatures, 4);
}

} // namespace

//===-- Public API --------------------------------------------------------===//

const char *tfmc::halide::kernelKindName(KernelKind kind) {
  return nameOf(kKinds, kind);
}
const char *tfmc::halide::weightTypeName(WeightType type) {
  return nameOf(kWeightTypes, type);
}
const char *tfmc::halide::schedulerName(Scheduler scheduler) {
  return nameOf(kSchedulers, scheduler);
}
const char *tfmc::halide::deviceName(Device device) {
  return nameOf(kDevices, device);
}
std::optional<WeightType>
tfmc::halide::parseWeightTypeName(std::string_view name) {
  return valueOf(kWeightTypes, name);
}

std::optional<Scheduler>
tfmc::halide::parseSchedulerName(std::string_view name) {
  return valueOf(kSchedulers, name);
}

std::optional<Device> tfmc::halide::parseDeviceName(std::string_view name) {
  return valueOf(kDevices, name);
}

int64_t tfmc::halide::weightBlockElements(WeightType type) {
  switch (type) {
  case WeightType::Q8_0:
  case WeightType::Q4_0:
    return 32;
  case WeightType::Q4_K:
  case WeightType::Q5_K:
  case WeightType::Q6_K:
    return 256;
  case WeightType::F32:
  case WeightType::F16:
  case WeightType::BF16:
    break;
  }
  return 1;
}

int64_t tfmc::halide::weightBlockBytes(WeightType type) {
  switch (type) {
  case WeightType::F32:
    return 4;
  case WeightType::F16:
  case WeightType::BF16:
    return 2;
  case WeightType::Q8_0:
    return 34;
  case WeightType::Q4_0:
    return 18;
  case WeightType::Q4_K:
    return 144;
  case WeightType::Q5_K:
    return 176;
  case WeightType::Q6_K:
    return 210;
  }
  return 0;
}

bool tfmc::halide::isBlockQuantized(WeightType type) {
  return weightBlockElements(type) > 1;
}

bool tfmc::halide::verifyKernelDescription(const KernelDescription &kernel,
                                           std::string &error) {
  if (!isIdentifier(kernel.name)) {
    error = "kernel name '" + kernel.name +
            "' must be a C identifier (it names the function)";
    return false;
  }
  Checker check(kernel, error);
  verifyTarget(check, kernel.target, kernel.scheduler);
  if (!check.ok())
    return false;
  std::visit([&](const auto &params) { verify(check, params); }, kernel.params);
  if (!check.ok())
    return false;
  // Halide 14's Mullapudi2016 splits a GEMM's outputs with a guarded tail
  // that its lowering then drops: a 32 x 288 -> 864 projection writes past
  // its accumulator (heap corruption). GEMVs (one row) are not split so.
  int64_t productRows = 0;
  if (const auto *projection = std::get_if<ProjectionParams>(&kernel.params))
    productRows = projection->rows;
  else if (const auto *head = std::get_if<LmHeadParams>(&kernel.params))
    productRows = head->rows;
  if (kernel.scheduler == Scheduler::Mullapudi2016 && productRows > 1) {
    error = "kernel '" + kernel.name + "': Halide 14's mullapudi2016 " +
            "schedules of a " + kernelKindName(kernel.kind()) +
            " over several rows write past their buffers (a split's tail "
            "loses its guard): schedule it by hand, with adams2019 or with "
            "li2018";
    return false;
  }
  return true;
}

bool tfmc::halide::parseKernelDescriptions(std::string_view json,
                                           std::vector<KernelDescription> &out,
                                           std::string &error) {
  JsonValue root;
  if (!tfm::rt::hf::parseJson(json, root, error))
    return false;
  if (root.kind != JsonValue::Kind::Object) {
    error = "a kernel description must be an object, not " +
            std::string(root.kindName());
    return false;
  }
  std::vector<const JsonValue *> kernels;
  std::vector<std::string> paths;
  if (const JsonValue *list = root.find("kernels")) {
    if (root.object.size() != 1) {
      error = "a file with 'kernels' holds nothing else";
      return false;
    }
    if (list->kind != JsonValue::Kind::Array || list->array.empty()) {
      error = "'kernels' must be a non-empty array";
      return false;
    }
    for (size_t i = 0; i < list->array.size(); ++i) {
      kernels.push_back(&list->array[i]);
      paths.push_back("kernels[" + std::to_string(i) + "]");
    }
  } else {
    kernels.push_back(&root);
    paths.push_back("kernel");
  }
  std::set<std::string> names;
  for (size_t i = 0; i < kernels.size(); ++i) {
    KernelDescription kernel;
    if (!readKernel(*kernels[i], paths[i], kernel, error) ||
        !verifyKernelDescription(kernel, error))
      return false;
    if (!names.insert(kernel.name).second) {
      error = "two kernels are named '" + kernel.name + "'";
      return false;
    }
    out.push_back(std::move(kernel));
  }
  return true;
}

std::string tfmc::halide::writeKernelDescriptions(
    const std::vector<KernelDescription> &kernels) {
  std::string out = "{\n  \"kernels\": [";
  for (size_t i = 0; i < kernels.size(); ++i) {
    const KernelDescription &kernel = kernels[i];
    out += i ? ",\n    {" : "\n    {";
    FieldWriter writer(out, 6);
    writer.enumeration("kind", kernel.kind(), kKinds);
    // The name is free text, not an enumeration.
    out += ",\n      \"name\": ";
    tfm::rt::hf::appendJsonString(out, kernel.name);
    writer.enumeration("schedule", kernel.scheduler, kSchedulers);
    out += ",\n      \"target\": {\"features\": [";
    for (size_t f = 0; f < kernel.target.features.size(); ++f) {
      if (f)
        out += ", ";
      tfm::rt::hf::appendJsonString(out, kernel.target.features[f]);
    }
    out += "], ";
    tfm::rt::hf::appendJsonString(out, "device");
    out += ": ";
    tfm::rt::hf::appendJsonString(out, deviceName(kernel.target.device));
    if (kernel.target.device == Device::Cuda)
      out += ", \"cuda_capability\": " +
             std::to_string(kernel.target.cudaCapability);
    out += ", \"threads\": " + std::to_string(kernel.target.threads);
    out += ", \"cache_bytes\": " + std::to_string(kernel.target.cacheBytes);
    out += "}";
    std::visit([&](const auto &params) { writeFields(writer, params); },
               kernel.params);
    out += "\n    }";
  }
  out += "\n  ]\n}\n";
  return out;
}
