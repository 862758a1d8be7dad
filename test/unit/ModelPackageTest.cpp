//===- ModelPackageTest.cpp - The streamed package equals the old one -----===//
//
// compiler/link streams the weights blob, one materialised weight at a time.
// These tests compare its output byte for byte with the writer it replaced
// (kept here as the oracle: the whole blob gathered in memory from f32
// tensors, then appendPackage) on a small layout with a plain, a stacked, a
// panel-packed and a padded weight, from f32, f16 and bf16 sources.
//
//===----------------------------------------------------------------------===//
#include "compiler/link/ModelPackage.h"
#include "compiler/link/PackageMetadata.h"
#include "dialect/TfmOps.h"
#include "passes/Codegen/CPU/IR/TfmCpuOps.h"
#include "runtime/Package.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "test/unit/TempFile.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <unistd.h>

using namespace tfmc;
using tfmc::weights::ElementType;
using tfmc::weights::TensorView;
using tfmc::weights::Transform;
using tfmc::weights::Weight;

using tfm::test::TempFile;

namespace {

const char *kLayout = R"mlir(
  tfm.global_weight @a : tensor<3x2xf32>
  tfm.global_weight @v : tensor<3xf32>
  tfm.global_weight @ab : tensor<5x2xf32> {stacked = ["a", "b"]}
  tfm.global_weight @ab.panels : tensor<2x2x4xf32> {layout = #tfm_cpu.panels<f32>, stacked = ["a", "b"]}
  tfm.global_weight @b.panels : tensor<1x2x4xf32> {layout = #tfm_cpu.panels<f32>, stacked = ["b"]}
)mlir";

/// The canonical tensors as f32, what the old ModelSpec held.
std::map<std::string, std::vector<float>> canonicalF32() {
  return {{"a", {1, 2, 3, 4, 5, 6}},   // [3, 2]
          {"b", {0.5f, -2, 1, 65504}}, // [2, 2]
          {"v", {1, -0.0f, 2}}};       // [3]
}

/// The same tensors as a model file would give them: `a` in f32, `b` as the
/// f16 transpose it is stored as, `v` in bf16.
WeightMap canonicalWeights() {
  auto halves = [](ElementType type, weights::Shape shape,
                   std::vector<uint16_t> bits) {
    return TensorView::create(type, std::move(shape), [&](char *out) {
      std::memcpy(out, bits.data(), bits.size() * 2);
    });
  };
  WeightMap weights;
  weights["a"] = Weight(TensorView::fromF32({3, 2}, {1, 2, 3, 4, 5, 6}));
  // b^T = [[0.5, 1], [-2, 65504]] in f16.
  weights["b"] =
      Weight(halves(ElementType::F16, {2, 2}, {0x3800, 0x3c00, 0xc000, 0x7bff}))
          .then(Transform::transpose());
  weights["v"] =
      Weight(halves(ElementType::BF16, {3}, {0x3f80, 0x8000, 0x4000}));
  return weights;
}

/// The writer before streaming: gather every slot's f32 source, write
/// panels or copy, all into one blob, then append it.
std::string oldBlob(const mlir::tfm::WeightLayout &layout,
                    const std::map<std::string, std::vector<float>> &tensors) {
  std::string blob(layout.totalBytes, '\0');
  for (const mlir::tfm::WeightSlot &slot : layout.slots) {
    std::vector<std::string> parts = slot.stacked;
    if (parts.empty())
      parts.push_back(slot.name);
    std::vector<float> source;
    for (const std::string &part : parts)
      source.insert(source.end(), tensors.at(part).begin(),
                    tensors.at(part).end());
    auto *out = reinterpret_cast<float *>(&blob[slot.offset]);
    if (!slot.panels) {
      std::memcpy(out, source.data(), slot.bytes);
      continue;
    }
    uint64_t panels = slot.shape[0], columns = slot.shape[1],
             width = slot.shape[2];
    uint64_t rows = source.size() / columns;
    for (uint64_t p = 0; p < panels; ++p)
      for (uint64_t k = 0; k < columns; ++k)
        for (uint64_t j = 0; j < width; ++j) {
          uint64_t row = p * width + j;
          *out++ = row < rows ? source[row * columns + k] : 0.0f;
        }
  }
  return blob;
}

class ModelPackageTest : public ::testing::Test {
protected:
  ModelPackageTest() {
    context.loadDialect<mlir::tfm::TfmDialect, mlir::tfm::cpu::TfmCpuDialect>();
    module = mlir::parseSourceString<mlir::ModuleOp>(kLayout, &context);
    layout = mlir::tfm::computeWeightLayout(*module);
    spec.weights = canonicalWeights();
    spec.tokenizer = {"spm", "blob", 1, 2};
    spec.description = "test model";
    spec.note = "a note";
  }

  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  mlir::tfm::WeightLayout layout;
  ModelSpec spec;
};

TEST_F(ModelPackageTest, StreamedEqualsTheOldWriter) {
  ASSERT_TRUE(module);
  ASSERT_EQ(layout.slots.size(), 5u);
  TempFile streamed, old;
  llvm::Error error = appendModelPackage(streamed.path(), spec, layout);
  ASSERT_FALSE(bool(error)) << llvm::toString(std::move(error));

  tfm::rt::PackageMetadata metadata = {{"tokenizer.kind", "spm"},
                                       {"tokenizer.data", "blob"},
                                       {"token.bos", "1"},
                                       {"token.eos", "2"},
                                       {"model.description", "test model"},
                                       {"model.note", "a note"},
                                       // The shapes of a default config.
                                       {"model.layers", "0"},
                                       {"model.hidden_size", "0"},
                                       {"model.heads", "0"},
                                       {"model.kv_heads", "0"},
                                       {"model.head_dim", "0"},
                                       {"model.ffn_size", "0"},
                                       // a [3, 2], b [2, 2], v [3].
                                       {"model.parameters", "13"},
                                       // 24 + 12 + 40 + 64 + 32 bytes.
                                       {"weights.types", "f32:5:172"}};
  std::string message;
  ASSERT_TRUE(tfm::rt::appendPackage(old.path(),
                                     oldBlob(layout, canonicalF32()),
                                     layout.hash, metadata, message))
      << message;
  std::string bytes = streamed.read();
  EXPECT_EQ(bytes, old.read());

  // And the blob holds what the layout says: @ab.panels is rows 0-3 of
  // [a; b] in its first panel, row 4 and zeros in its second.
  tfm::rt::Package package;
  ASSERT_TRUE(package.open(streamed.path(), message)) << message;
  const mlir::tfm::WeightSlot *panels = layout.lookup("ab.panels");
  ASSERT_NE(panels, nullptr);
  float values[16];
  std::memcpy(values, package.weights() + panels->offset, sizeof(values));
  EXPECT_EQ(std::vector<float>(values, values + 16),
            (std::vector<float>{1, 3, 5, 0.5f, 2, 4, 6, -2,    // panel 0
                                1, 0, 0, 0, 65504, 0, 0, 0})); // panel 1
}

/// A block-quantized matrix counts once under its GGUF type, its scales'
/// bytes with its quants'; value panels count under their element type.
TEST(WeightTypeSummaryTest, CountsMatricesPerStorageType) {
  mlir::MLIRContext context;
  context.loadDialect<mlir::tfm::TfmDialect, mlir::tfm::cpu::TfmCpuDialect>();
  auto module = mlir::parseSourceString<mlir::ModuleOp>(
      R"mlir(
    tfm.global_weight @norm : tensor<16xf32>
    tfm.global_weight @w.quants : tensor<1x2x32x16xi8> {layout = #tfm_cpu.panels<q8_0>, stacked = ["w"]}
    tfm.global_weight @w.scales : tensor<1x2x16xf16> {layout = #tfm_cpu.panels<q8_0, scales>, stacked = ["w"]}
    tfm.global_weight @h.panels : tensor<1x64x16xf16> {layout = #tfm_cpu.panels<f16>, stacked = ["h"]}
    tfm.global_weight @bias : tensor<16xf32>
  )mlir",
      &context);
  ASSERT_TRUE(module);
  mlir::tfm::WeightLayout layout = mlir::tfm::computeWeightLayout(*module);
  // f32: 64 + 64; q8_0: 1024 quants + 64 scales; f16: 2048.
  EXPECT_EQ(weightTypeSummary(layout), "f32:2:128,q8_0:1:1088,f16:1:2048");
}

TEST_F(ModelPackageTest, AMissingWeightIsAnError) {
  spec.weights.erase("b");
  TempFile file;
  llvm::Error error = appendModelPackage(file.path(), spec, layout);
  ASSERT_TRUE(bool(error));
  EXPECT_EQ(llvm::toString(std::move(error)),
            "the network reads weight 'b' that the model does not provide");
}

TEST_F(ModelPackageTest, AWrongSizeIsAnError) {
  spec.weights["v"] = Weight(TensorView::fromF32({2}, {1, 2}));
  TempFile file;
  llvm::Error error = appendModelPackage(file.path(), spec, layout);
  ASSERT_TRUE(bool(error));
  EXPECT_EQ(llvm::toString(std::move(error)),
            "weight 'v' has 2 elements but the network expects 3");
}

} // namespace
