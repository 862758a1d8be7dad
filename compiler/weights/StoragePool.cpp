//===- StoragePool.cpp - Reused storage for the tensors a compile makes ---===//
#include "compiler/weights/StoragePool.h"

#include <map>
#include <mutex>

using namespace tfmc::weights;

namespace {

/// Smaller buffers come from malloc's own free lists.
constexpr uint64_t kPooledBytes = uint64_t(1) << 20;
/// What the pool keeps at most: a layer's weights at the sizes that matter.
constexpr uint64_t kMaxIdleBytes = uint64_t(512) << 20;

struct Pool {
  std::mutex mutex;
  /// Idle buffers by capacity.
  std::multimap<uint64_t, char *> idle;
  uint64_t idleBytes = 0;
};

/// Never destroyed: a tensor released during exit still finds it.
Pool &pool() {
  static Pool *instance = new Pool;
  return *instance;
}

void release(char *buffer, uint64_t capacity) {
  Pool &idle = pool();
  {
    std::lock_guard<std::mutex> lock(idle.mutex);
    if (idle.idleBytes + capacity <= kMaxIdleBytes) {
      idle.idle.emplace(capacity, buffer);
      idle.idleBytes += capacity;
      return;
    }
  }
  delete[] buffer;
}

} // namespace

std::shared_ptr<char> tfmc::weights::allocateStorage(uint64_t bytes) {
  if (bytes < kPooledBytes)
    return std::shared_ptr<char>(new char[bytes ? bytes : 1],
                                 std::default_delete<char[]>());
  char *buffer = nullptr;
  uint64_t capacity = bytes;
  {
    Pool &idle = pool();
    std::lock_guard<std::mutex> lock(idle.mutex);
    // The smallest that fits, if it wastes less than it holds.
    auto fit = idle.idle.lower_bound(bytes);
    if (fit != idle.idle.end() && fit->first / 2 <= bytes) {
      capacity = fit->first;
      buffer = fit->second;
      idle.idleBytes -= capacity;
      idle.idle.erase(fit);
    }
  }
  if (!buffer)
    buffer = new char[bytes];
  return std::shared_ptr<char>(
      buffer, [capacity](char *storage) { release(storage, capacity); });
}
