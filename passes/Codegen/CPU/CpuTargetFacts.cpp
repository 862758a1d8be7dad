//===- CpuTargetFacts.cpp - What CPU codegen reads of a target ------------===//
#include "passes/Codegen/CPU/CpuTargetFacts.h"

#include "dialect/TfmContracts.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::tfm;

cpu::CpuTargetFacts cpu::getCpuTargetFacts(TargetAttr target) {
  CpuTargetFacts facts;
  if (hasTargetFeature(target, "+avx512vnni"))
    facts.byteQuadDotLanes = 16;
  else if (hasTargetFeature(target, "+avxvnni"))
    facts.byteQuadDotLanes = 8;
  facts.avx2 = hasTargetFeature(target, "+avx2");
  facts.avx512bf16 = hasTargetFeature(target, "+avx512bf16");
  CpuTargetAttr cpu = getCpuTarget(target);
  if (!cpu)
    return facts;
  int64_t registersPerRow = std::max<int64_t>(1, 512 / cpu.getVectorBits());
  int64_t rows = cpu.getVectorRegisters() / 2 / registersPerRow;
  facts.accumulators = std::clamp<int64_t>(rows, 1, 8);
  facts.amdZen = cpu.getCpu().starts_with("znver");
  return facts;
}
