//===- PanelLayout.cpp - The panel layouts of projection weights ----------===//
#include "compiler/weights/PanelLayout.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSwitch.h"

using namespace tfmc::weights;

// stringifyPanelFormat, symbolizePanelFormat, and PanelPart's.
#include "compiler/weights/PanelLayout.cpp.inc"

bool tfmc::weights::isBlockFormat(PanelFormat format) {
  return format != PanelFormat::f32 && format != PanelFormat::f16 &&
         format != PanelFormat::bf16;
}

std::optional<PanelFormat> tfmc::weights::valuePanelFormat(ElementType type) {
  switch (type) {
  case ElementType::F32:
    return PanelFormat::f32;
  case ElementType::F16:
    return PanelFormat::f16;
  case ElementType::BF16:
    return PanelFormat::bf16;
  default:
    return std::nullopt;
  }
}

std::optional<ElementType> tfmc::weights::panelElementType(PanelFormat format) {
  switch (format) {
  case PanelFormat::f32:
    return ElementType::F32;
  case PanelFormat::f16:
    return ElementType::F16;
  case PanelFormat::bf16:
    return ElementType::BF16;
  case PanelFormat::q8_0:
  case PanelFormat::q8_0x4:
    return ElementType::Q8_0;
  case PanelFormat::q4_0:
  case PanelFormat::q4_0x4:
    return ElementType::Q4_0;
  case PanelFormat::kquant:
  case PanelFormat::kquant4:
  case PanelFormat::kquantx4:
  case PanelFormat::kquant4x4:
    return std::nullopt;
  }
  return std::nullopt;
}

int64_t tfmc::weights::valuesPerQuant(PanelFormat format) {
  switch (format) {
  case PanelFormat::q4_0:
  case PanelFormat::kquant4:
    return 2;
  case PanelFormat::q8_0x4:
  case PanelFormat::kquantx4:
    return 4;
  case PanelFormat::q4_0x4:
  case PanelFormat::kquant4x4:
    return 8;
  default:
    return 1;
  }
}

bool tfmc::weights::holdsByteQuads(PanelFormat format) {
  return format == PanelFormat::q8_0x4 || format == PanelFormat::q4_0x4 ||
         format == PanelFormat::kquantx4 || format == PanelFormat::kquant4x4;
}

unsigned tfmc::weights::quantBits(PanelFormat format) {
  return holdsByteQuads(format) ? 32 : 8;
}

bool tfmc::weights::holdsNibbles(PanelFormat format) {
  return format == PanelFormat::q4_0 || format == PanelFormat::kquant4;
}

bool tfmc::weights::hasMins(PanelFormat format) {
  return isKQuantFormat(format);
}

bool tfmc::weights::isKQuantFormat(PanelFormat format) {
  return format == PanelFormat::kquant || format == PanelFormat::kquant4 ||
         format == PanelFormat::kquantx4 || format == PanelFormat::kquant4x4;
}

bool tfmc::weights::hasSuperBlockFactors(PanelFormat format) {
  return format == PanelFormat::kquantx4 || format == PanelFormat::kquant4x4;
}

bool tfmc::weights::holdsKQuantBytes(PanelFormat format) {
  return format == PanelFormat::kquant || format == PanelFormat::kquantx4;
}

std::optional<PanelFormat> tfmc::weights::byteQuadFormat(PanelFormat format) {
  switch (format) {
  case PanelFormat::q8_0:
    return PanelFormat::q8_0x4;
  case PanelFormat::q4_0:
    return PanelFormat::q4_0x4;
  case PanelFormat::kquant:
    return PanelFormat::kquantx4;
  case PanelFormat::kquant4:
    return PanelFormat::kquant4x4;
  default:
    return std::nullopt;
  }
}

int64_t tfmc::weights::quantBias(PanelFormat format) {
  return format == PanelFormat::kquantx4 ? kKQuantx4Bias : 0;
}

int64_t tfmc::weights::blockValues(PanelFormat format,
                                   llvm::ArrayRef<ElementType> stored) {
  if (!isBlockFormat(format))
    return 1;
  if (!holdsKQuantBytes(format))
    return 32;
  bool allQ5K = !stored.empty() && llvm::all_of(stored, [](ElementType type) {
    return type == ElementType::Q5_K;
  });
  return allQ5K ? 32 : 16;
}

std::optional<PanelFormat>
tfmc::weights::storedBlockFormat(llvm::ArrayRef<ElementType> stored) {
  if (stored.empty())
    return std::nullopt;
  if (llvm::all_equal(stored)) {
    switch (stored.front()) {
    case ElementType::Q8_0:
      return PanelFormat::q8_0;
    case ElementType::Q4_0:
      return PanelFormat::q4_0;
    case ElementType::Q4_K:
      return PanelFormat::kquant4;
    case ElementType::Q5_K:
    case ElementType::Q6_K:
      return PanelFormat::kquant;
    default:
      return std::nullopt;
    }
  }
  bool kquants = llvm::all_of(stored, [](ElementType type) {
    return type == ElementType::Q4_K || type == ElementType::Q5_K ||
           type == ElementType::Q6_K;
  });
  if (kquants)
    return PanelFormat::kquant;
  return std::nullopt;
}

bool tfmc::weights::hasZeroMins(PanelFormat format,
                                llvm::ArrayRef<ElementType> stored) {
  return holdsKQuantBytes(format) && !stored.empty() &&
         llvm::all_of(stored, [](ElementType type) {
           return type == ElementType::Q6_K;
         });
}
