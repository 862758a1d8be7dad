//===- CacheLayout.cpp - What the KV cache holds --------------------------===//
#include "passes/Transforms/KVCache/CacheLayout.h"

using namespace mlir;
using namespace mlir::tfm;

LogicalResult CacheContents::addLayer(AttentionOp attention, int64_t slots) {
  int64_t layerKvHeads = attention.getNumKvHeads();
  int64_t layerHeadDim = attention.getHeadDim();
  if (layers() > 0 && (layerKvHeads != kvHeads || layerHeadDim != headDim))
    return attention.emitOpError("has ")
           << layerKvHeads << " key/value heads of " << layerHeadDim
           << " features but an earlier layer has " << kvHeads << " of "
           << headDim << "; one KV cache needs equal layers";
  kvHeads = layerKvHeads;
  headDim = layerHeadDim;
  layerSlots.push_back(slots);
  return success();
}
