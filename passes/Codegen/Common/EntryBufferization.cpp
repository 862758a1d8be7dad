//===- EntryBufferization.cpp - Tensors to the buffers the runtime passes -===//
#include "passes/Codegen/Common/EntryBufferization.h"

#include "passes/Codegen/Common/Passes.h"

#include "mlir/Dialect/Bufferization/Transforms/Passes.h"

void mlir::tfm::addEntryBufferizationPasses(OpPassManager &pm) {
  // The cache's chain through all layers would cost the analysis more than
  // the rest of the entry.
  pm.addPass(createTfmCacheToBuffer());
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  pm.addPass(createTfmDropInPlaceResults());
  bufferization::BufferResultsToOutParamsPassOptions outParams;
  outParams.hoistStaticAllocs = true;
  outParams.modifyPublicFunctions = true;
  pm.addPass(bufferization::createBufferResultsToOutParamsPass(outParams));
}
