//===- Family.h - What a model family provides ------------------*- C++ -*-===//
//
// A model family (one folder under models/) knows, for each file format it
// comes in, which config keys hold its hyperparameters and which tensors
// are its weights (with the transforms to their canonical form), and it
// knows its graph and presets. It reads files only through the
// format-neutral interfaces of compiler/spec: the frontends do the reading,
// the driver's LoadModel.cpp picks the family.
//
// A family registers itself by existing: models/CMakeLists.txt adds every
// folder that has a CMakeLists.txt calling tfmc_add_model_family(NAME ...),
// and the registry calls `const ModelFamily &NAMEFamily()`, which the folder
// defines.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_MODELS_FAMILY_H
#define TFMC_MODELS_FAMILY_H

#include "compiler/builders/NetworkBuilder.h"
#include "compiler/spec/ConfigSource.h"
#include "compiler/spec/ModelSpec.h"
#include "compiler/spec/TensorTable.h"

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace tfmc {

enum class CheckpointFormat {
  HuggingFace, ///< config.json + safetensors
  Gguf,
  Llama2c,
};

/// A model file as a family sees it.
struct Checkpoint {
  CheckpointFormat format;
  const ConfigSource &config;
  TensorTable &tensors;
};

/// A built-in model: a family's settings at some size, with seeded random
/// weights.
struct Preset {
  std::string name;
  DecoderConfig config;
};

/// A preset of `blocks` (a family's architecture) at a size.
Preset sizedPreset(const char *name, DecoderConfig blocks, int64_t dim,
                   int64_t hidden, int64_t layers, int64_t heads,
                   int64_t kvHeads, int64_t headDim, int64_t vocab,
                   int64_t context);

class ModelFamily {
public:
  virtual ~ModelFamily();

  /// The folder name, also ModelSpec::family ("llama").
  virtual llvm::StringRef name() const = 0;
  /// config.json's model_type for this family; empty when it has none.
  virtual llvm::StringRef huggingFaceModelType() const { return {}; }
  /// GGUF's general.architecture; empty when it has none.
  virtual llvm::StringRef ggufArchitecture() const { return {}; }
  /// True for the family of llama2.c checkpoints (at most one).
  virtual bool readsLlama2c() const { return false; }

  /// The settings of a model in `checkpoint` (formats this family claims
  /// only). May look at tensor shapes: a tied head is a missing tensor.
  virtual llvm::Expected<DecoderConfig>
  readConfig(const Checkpoint &checkpoint) const = 0;
  /// Every canonical weight of a model of `config`, taken from the
  /// checkpoint's tensors; tensors the family knows to be useless are
  /// ignored, so that anything left over is unexpected.
  virtual llvm::Expected<WeightMap>
  mapWeights(const Checkpoint &checkpoint,
             const DecoderConfig &config) const = 0;

  /// The special ids when a tokenizer file does not give them.
  virtual SpecialTokens specialTokens() const = 0;

  virtual std::vector<Preset> presets() const { return {}; }
  /// The byte-level tokenizer a preset of this family carries.
  virtual TokenizerSpec presetTokenizer() const = 0;

  /// Emits @forward's body; decoder-only families use the shared skeleton.
  virtual void buildGraph(NetworkBuilder &net) const;
};

/// The registry's entry point of each family: folder NAME defines
/// `const ModelFamily &tfmc::NAMEFamily()`.
#define TFMC_MODEL_FAMILY(NAME) const ModelFamily &NAME##Family();
#include "models/FamilyList.inc"
#undef TFMC_MODEL_FAMILY

} // namespace tfmc

#endif // TFMC_MODELS_FAMILY_H
