//===- TensorMap.cpp - File tensor names -> canonical weights -------------===//
#include "models/TensorMap.h"

using namespace tfmc;
using tfmc::weights::Transform;
using tfmc::weights::Weight;

std::string tfmc::tensorName(llvm::StringRef pattern, int64_t layer) {
  auto [before, after] = pattern.split("{layer}");
  if (before.size() == pattern.size())
    return pattern.str();
  return before.str() + std::to_string(layer) + after.str();
}

llvm::Error tfmc::takeWeights(TensorTable &table, const DecoderConfig &config,
                              llvm::ArrayRef<TensorMapping> mappings,
                              int64_t layer, WeightMap &weights,
                              llvm::StringRef prefix) {
  for (const TensorMapping &mapping : mappings) {
    // The stored shape: the roles' canonical shapes stacked along dim 0.
    weights::Shape shape = weightShape(config, mapping.roles.front());
    std::vector<int64_t> rows;
    shape[0] = 0;
    for (WeightRole role : mapping.roles) {
      rows.push_back(weightShape(config, role)[0]);
      shape[0] += rows.back();
    }
    shape[0] += mapping.skippedRows;
    if (mapping.headRows)
      shape = {shape[0] / config.attention.headDim, config.attention.headDim};
    if (mapping.transposed)
      std::swap(shape[0], shape[1]);
    if (mapping.stackedOverLayers)
      shape.insert(shape.begin(), config.numLayers);

    std::string name = prefix.str() + tensorName(mapping.source, layer);
    auto view = table.take(name, shape);
    if (!view)
      return view.takeError();
    weights::TensorView source =
        mapping.stackedOverLayers ? view->select(layer) : *view;
    if (mapping.headRows)
      source = source.reshaped({source.shape()[0] * source.shape()[1]});
    Weight stored(source, name);
    if (mapping.transposed)
      stored = stored.then(Transform::transpose());
    int64_t begin = mapping.skippedRows;
    int64_t headDim = config.attention.headDim;
    int64_t headRows = headDim * int64_t(mapping.roles.size());
    // Per KV group: heads / kv_heads query heads, then a key and a value.
    const AttentionSettings &a = config.attention;
    int64_t groupQueries = a.numHeads / a.numKVHeads;
    int64_t groupRows = (groupQueries + 2) * headDim;
    int64_t groupBegin = 0;
    for (size_t i = 0; i < mapping.roles.size(); ++i) {
      WeightRole role = mapping.roles[i];
      Weight weight = stored;
      if (mapping.perHead) {
        weight = stored.then(
            Transform::rowGroups(int64_t(i) * headDim, headDim, headRows));
      } else if (mapping.perKvGroup) {
        int64_t count = i == 0 ? groupQueries * headDim : headDim;
        weight =
            stored.then(Transform::rowGroups(groupBegin, count, groupRows));
        groupBegin += count;
      } else if (mapping.roles.size() > 1 || mapping.skippedRows > 0) {
        weight = stored.then(Transform::rows(begin, rows[i]));
      }
      begin += rows[i];
      weights[weightName(role, isLayerRole(role) ? layer : -1)] =
          std::move(weight);
    }
  }
  return llvm::Error::success();
}

llvm::Error tfmc::takeHeadParts(TensorTable &table, const DecoderConfig &config,
                                llvm::StringRef pattern, WeightRole role,
                                int64_t layer, WeightMap &weights) {
  weights::Shape shape = weightShape(config, role);
  assert(shape.size() == 1 && "a vector of every head's values");
  int64_t headDim = config.attention.headDim, heads = shape[0] / headDim;
  std::string layerPattern = tensorName(pattern, layer);
  auto partName = [&](int64_t head) {
    std::string name = layerPattern;
    size_t at = name.find("{head}");
    assert(at != std::string::npos && "the pattern names the head");
    return name.replace(at, 6, std::to_string(head));
  };
  // Norm weights are f32 in the network whatever the file stores, so the
  // heads are joined as f32 values (exact from f16 and bf16), also when
  // they are stored in different types.
  std::vector<float> values;
  values.reserve(size_t(shape[0]));
  for (int64_t head = 0; head < heads; ++head) {
    auto part = table.take(partName(head), {headDim});
    if (!part)
      return part.takeError();
    for (uint64_t i = 0; i < part->numElements(); ++i)
      values.push_back(weights::elementAsFloat(*part, i));
  }
  weights::TensorView joined =
      weights::TensorView::fromF32(shape, std::move(values));
  std::string origin = layerPattern;
  origin.replace(origin.find("{head}"), 6,
                 "{0.." + std::to_string(heads - 1) + "}");
  weights[weightName(role, layer)] = Weight(joined, origin);
  return llvm::Error::success();
}

llvm::Error tfmc::takeLmHead(TensorTable &table, const DecoderConfig &config,
                             WeightMap &weights) {
  if (config.tiedEmbeddings) {
    table.ignore("lm_head.weight");
    return llvm::Error::success();
  }
  return takeWeights(table, config, {{"lm_head.weight", {WeightRole::LmHead}}},
                     -1, weights);
}

void tfmc::ignoreTensors(TensorTable &table,
                         llvm::ArrayRef<const char *> sources, int64_t layer,
                         llvm::StringRef prefix) {
  for (const char *source : sources)
    table.ignore(prefix.str() + tensorName(source, layer));
}
