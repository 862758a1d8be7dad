//===- ModelRunnerTest.cpp - The runners over the device seam -------------===//
//
// The runners of runtime/model/ call a model's entries (ModelABI.h, ABI 8)
// with the buffers they hold on its device: these fake entries record what
// they are given, so the tests see the stream, the alignments, the zeroed
// cache, the weights read in place, tfm_encode's logits with and without a
// masked-LM head, and a CUDA model refused by a runtime without CUDA.
//
//===----------------------------------------------------------------------===//
#include "runtime/model/ModelRunner.h"
#include "runtime/model/EncoderRunner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

using namespace tfm::rt;

namespace {

/// One call of a fake entry.
struct Call {
  std::string entry;
  const uint8_t *weights = nullptr;
  int64_t pos = -1, count = -1, length = -1;
  int32_t firstToken = -1;
  void *cache = nullptr;
  bool cacheZeroed = false;
  const float *logits = nullptr;
  const float *hidden = nullptr;
  uint8_t *scratch = nullptr;
  void *stream = reinterpret_cast<void *>(1);
};

std::vector<Call> calls;
uint64_t cacheBytes = 0;

bool zeroed(const void *cache) {
  const auto *bytes = static_cast<const uint8_t *>(cache);
  return std::all_of(bytes, bytes + cacheBytes,
                     [](uint8_t byte) { return byte == 0; });
}

void fakePrefill(const uint8_t *weights, const int32_t *tokens, int64_t pos,
                 int64_t count, void *cache, float *logits, uint8_t *scratch,
                 void *stream) {
  Call call;
  call.entry = "prefill";
  call.weights = weights, call.firstToken = tokens[0], call.pos = pos;
  call.count = count, call.cache = cache, call.cacheZeroed = zeroed(cache);
  call.logits = logits, call.scratch = scratch, call.stream = stream;
  calls.push_back(call);
  if (count > 0)
    logits[0] = float(pos + count);
  static_cast<uint8_t *>(cache)[0] = 1;
}

void fakeDecode(const uint8_t *weights, const int32_t *token, int64_t pos,
                void *cache, float *logits, uint8_t *scratch, void *stream) {
  Call call;
  call.entry = "decode";
  call.weights = weights, call.firstToken = *token, call.pos = pos;
  call.cache = cache, call.cacheZeroed = zeroed(cache), call.logits = logits;
  call.scratch = scratch, call.stream = stream;
  calls.push_back(call);
  logits[0] = float(pos);
  static_cast<uint8_t *>(cache)[0] = 1;
}

void fakeEncode(const uint8_t *weights, const int32_t *tokens, int64_t length,
                float *hidden, float *logits, uint8_t *scratch, void *stream) {
  Call call;
  call.entry = "encode";
  call.weights = weights, call.firstToken = tokens[0], call.length = length;
  call.hidden = hidden, call.logits = logits, call.scratch = scratch;
  call.stream = stream;
  calls.push_back(call);
  hidden[0] = 2.0f;
  if (logits)
    logits[0] = 3.0f;
}

ModelEntries decoderEntries() {
  ModelEntries entries;
  entries.prefill = fakePrefill;
  entries.decode = fakeDecode;
  return entries;
}

ModelEntries encoderEntries() {
  ModelEntries entries;
  entries.encode = fakeEncode;
  return entries;
}

tfm_model_info decoderInfo() {
  tfm_model_info info{};
  info.abi_version = TFM_ABI_VERSION;
  info.vocab_size = 8;
  info.context_length = 16;
  info.prefill_chunk = 4;
  info.weights_bytes = 256;
  info.cache_bytes = 1024;
  info.scratch_bytes = 100;
  info.scratch_alignment = 64;
  info.kind = TFM_KIND_DECODER;
  info.cache_element_bytes = 4;
  info.device = TFM_DEVICE_HOST;
  info.weights_alignment = 64;
  return info;
}

tfm_model_info encoderInfo(bool logits) {
  tfm_model_info info = decoderInfo();
  info.kind = TFM_KIND_ENCODER;
  info.prefill_chunk = 0;
  info.cache_bytes = 0;
  info.hidden_size = 4;
  info.encode_logits = logits ? 1 : 0;
  return info;
}

alignas(4096) const uint8_t kWeights[256] = {};

class ModelRunnerTest : public ::testing::Test {
protected:
  void SetUp() override {
    calls.clear();
    cacheBytes = decoderInfo().cache_bytes;
  }
};

bool aligned(const void *pointer, uintptr_t alignment) {
  return reinterpret_cast<uintptr_t>(pointer) % alignment == 0;
}

TEST_F(ModelRunnerTest, DecodeGetsTheDeviceBuffersAndANullStream) {
  ModelRunner runner(decoderInfo(), decoderEntries());
  std::string error;
  ASSERT_TRUE(runner.open(kWeights, error)) << error;
  int32_t token = 5;
  const float *logits = runner.feed(&token, 1, 3, /*decodeOnly=*/false);
  ASSERT_EQ(calls.size(), 1u);
  const Call &call = calls[0];
  EXPECT_EQ(call.entry, "decode");
  EXPECT_EQ(call.weights, kWeights) << "the host reads the mapping in place";
  EXPECT_EQ(call.firstToken, 5);
  EXPECT_EQ(call.pos, 3);
  EXPECT_TRUE(call.cacheZeroed);
  EXPECT_TRUE(aligned(call.cache, 64));
  EXPECT_TRUE(aligned(call.scratch, 64));
  EXPECT_EQ(call.stream, nullptr);
  EXPECT_EQ(call.logits, logits);
  EXPECT_EQ(logits[0], 3.0f);
}

TEST_F(ModelRunnerTest, PrefillChunksSkipLogitsNobodyReads) {
  ModelRunner runner(decoderInfo(), decoderEntries());
  std::string error;
  ASSERT_TRUE(runner.open(kWeights, error)) << error;
  std::vector<int32_t> tokens = {1, 2, 3, 4, 5, 6};
  const float *logits = runner.feed(tokens.data(), 6, 0, false);
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0].entry, "prefill");
  EXPECT_EQ(calls[0].count, 0) << "more tokens follow the first chunk";
  EXPECT_EQ(calls[1].entry, "prefill");
  EXPECT_EQ(calls[1].pos, 4);
  EXPECT_EQ(calls[1].count, 2);
  EXPECT_EQ(calls[1].firstToken, 5);
  EXPECT_EQ(calls[1].cache, calls[0].cache);
  EXPECT_FALSE(calls[1].cacheZeroed) << "the cache persists between calls";
  EXPECT_EQ(logits[0], 6.0f);
}

TEST_F(ModelRunnerTest, EncodeWithAHeadGetsLogits) {
  EncoderRunner runner(encoderInfo(/*logits=*/true), encoderEntries());
  std::string error;
  ASSERT_TRUE(runner.open(kWeights, error)) << error;
  runner.encode({7, 8, 9});
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].length, 3);
  EXPECT_EQ(calls[0].firstToken, 7);
  EXPECT_EQ(calls[0].stream, nullptr);
  EXPECT_EQ(calls[0].hidden, runner.hidden(0));
  EXPECT_EQ(calls[0].logits, runner.logits(0));
  EXPECT_NE(calls[0].logits, nullptr);
  EXPECT_EQ(runner.logits(0)[0], 3.0f);
}

TEST_F(ModelRunnerTest, EncodeWithoutAHeadGetsNullLogits) {
  EncoderRunner runner(encoderInfo(/*logits=*/false), encoderEntries());
  std::string error;
  ASSERT_TRUE(runner.open(kWeights, error)) << error;
  runner.encode({7, 8});
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].logits, nullptr);
  EXPECT_EQ(runner.hidden(0)[0], 2.0f);
}

TEST_F(ModelRunnerTest, CudaModelWithoutCudaIsRefused) {
  tfm_model_info info = decoderInfo();
  info.device = TFM_DEVICE_CUDA;
  ModelRunner runner(info, decoderEntries());
  std::string error;
  EXPECT_FALSE(runner.open(kWeights, error));
  EXPECT_EQ(runner.openFailure(), ModelMemory::Failure::Device);
  EXPECT_EQ(error.rfind("error: the model was compiled for a CUDA device", 0),
            0u)
      << error;
  EXPECT_TRUE(calls.empty());
}

TEST_F(ModelRunnerTest, MisalignedWeightsAreRefused) {
  ModelRunner runner(decoderInfo(), decoderEntries());
  std::string error;
  EXPECT_FALSE(runner.open(kWeights + 1, error));
  EXPECT_EQ(runner.openFailure(), ModelMemory::Failure::Device);
  EXPECT_NE(error.find("not aligned"), std::string::npos) << error;
}

TEST_F(ModelRunnerTest, MissingEntryIsRefused) {
  ModelEntries entries = decoderEntries();
  entries.decode = nullptr;
  ModelRunner runner(decoderInfo(), entries);
  std::string error;
  EXPECT_FALSE(runner.open(kWeights, error));
  EXPECT_NE(error.find("does not define tfm_decode"), std::string::npos)
      << error;
  EncoderRunner encoder(encoderInfo(true), decoderEntries());
  EXPECT_FALSE(encoder.open(kWeights, error));
  EXPECT_NE(error.find("does not define tfm_encode"), std::string::npos)
      << error;
}

} // namespace
