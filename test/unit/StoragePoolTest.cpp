//===- StoragePoolTest.cpp - Freed tensor storage is reused ---------------===//

#include "compiler/weights/StoragePool.h"

#include <gtest/gtest.h>

#include <cstring>

using tfmc::weights::allocateStorage;

namespace {

TEST(StoragePoolTest, AFreedBufferServesTheNextTensorOfItsSize) {
  // Sizes no other test of this binary makes, so that the pool holds no
  // buffer of theirs that fits.
  const uint64_t bytes = (8 << 20) + 4321;
  const char *first = nullptr;
  {
    std::shared_ptr<char> storage = allocateStorage(bytes);
    std::memset(storage.get(), 1, bytes);
    first = storage.get();
  }
  std::shared_ptr<char> again = allocateStorage(bytes);
  EXPECT_EQ(again.get(), first);
  // In use, it serves no one else.
  std::shared_ptr<char> other = allocateStorage(bytes);
  EXPECT_NE(other.get(), first);
}

TEST(StoragePoolTest, AFarSmallerTensorGetsItsOwn) {
  const char *large = nullptr;
  {
    std::shared_ptr<char> storage = allocateStorage((64 << 20) + 4321);
    large = storage.get();
  }
  std::shared_ptr<char> small = allocateStorage((2 << 20) + 4321);
  EXPECT_NE(small.get(), large);
  std::shared_ptr<char> fits = allocateStorage((40 << 20) + 4321);
  EXPECT_EQ(fits.get(), large);
}

} // namespace
