//===- Device.h - Where a compiled model's buffers live ---------*- C++ -*-===//
//
// The entries of a compiled model (runtime/ModelABI.h) read their weights,
// KV cache and scratch on the device tfm_model.device names. A Device
// allocates there, moves bytes between it and the host and owns the stream
// the entries queue their work on; the runners (runtime/model/) hold every
// model buffer through one, so that generation, the benchmark and the C
// library never allocate model memory themselves. The host's device
// (runtime/device/host/) is this process's memory; a CUDA device implements
// the same interface over device memory and a stream.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_RUNTIME_DEVICE_DEVICE_H
#define TFMC_RUNTIME_DEVICE_DEVICE_H

#include <cstdint>
#include <memory>
#include <string>

namespace tfm::rt {

/// What a buffer is for, so that a device can place it well.
enum class BufferUse {
  /// An entry's intermediates, rewritten by every call.
  Scratch,
  /// The KV cache: each decode step reads all of it.
  Cache,
  /// A copy of the weights blob.
  Weights,
};

class DeviceBuffer;

/// A device the compiled code runs on. One per runner (so per library
/// context): calls through one device run in order on its stream, and
/// different devices share nothing mutable.
class Device {
public:
  virtual ~Device() = default;

  /// "host", "cuda": for messages.
  virtual const char *name() const = 0;
  /// The TFM_DEVICE_* code it implements.
  virtual uint32_t kind() const = 0;

  /// `bytes` of device memory aligned to `alignment` (a power of two), its
  /// contents undefined; never null when it succeeds (at least one
  /// alignment unit is allocated for 0 bytes). Null with `error` set when
  /// memory is short.
  virtual void *allocate(uint64_t bytes, uint64_t alignment, BufferUse use,
                         std::string &error) = 0;
  /// Frees what allocate() returned (null: nothing).
  virtual void release(void *buffer) = 0;

  /// Copies `bytes` from host memory to device memory.
  virtual bool copyToDevice(void *device, const void *host, uint64_t bytes,
                            std::string &error) = 0;
  /// Copies `bytes` from device memory to host memory (complete when it
  /// returns).
  virtual bool copyToHost(void *host, const void *device, uint64_t bytes,
                          std::string &error) = 0;
  /// Sets `bytes` of device memory to zero.
  virtual bool zero(void *device, uint64_t bytes, std::string &error) = 0;
  /// Waits until everything queued on stream() has run. False with `error`
  /// set when that work failed, including a launch of the compiled code
  /// that failed earlier (a device's failures are not reported by the
  /// entries, which return nothing): the results since are meaningless.
  virtual bool synchronize(std::string &error) = 0;
  /// What the entries take as their `stream` argument (null on the host).
  virtual void *stream() = 0;

  /// Makes the package's weights blob, `bytes` mapped at `mapped`,
  /// readable by the entries at `alignment` (tfm_model.weights_alignment):
  /// returns the pointer they take as `weights`. A device whose code reads
  /// host memory returns `mapped` itself, copying nothing; another copies
  /// the blob into device memory that `owner` then holds. Null with
  /// `error` set on failure.
  virtual const uint8_t *loadWeights(const uint8_t *mapped, uint64_t bytes,
                                     uint64_t alignment, DeviceBuffer &owner,
                                     std::string &error) = 0;
};

/// Device memory that frees itself.
class DeviceBuffer {
public:
  DeviceBuffer() = default;
  DeviceBuffer(Device &device, void *pointer)
      : device_(&device), pointer_(pointer) {}
  DeviceBuffer(DeviceBuffer &&other) noexcept
      : device_(other.device_), pointer_(other.pointer_) {
    other.pointer_ = nullptr;
  }
  DeviceBuffer &operator=(DeviceBuffer &&other) noexcept {
    if (this != &other) {
      reset();
      device_ = other.device_;
      pointer_ = other.pointer_;
      other.pointer_ = nullptr;
    }
    return *this;
  }
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;
  ~DeviceBuffer() { reset(); }

  void *get() const { return pointer_; }
  explicit operator bool() const { return pointer_ != nullptr; }
  void reset() {
    if (pointer_)
      device_->release(pointer_);
    pointer_ = nullptr;
  }

private:
  Device *device_ = nullptr;
  void *pointer_ = nullptr;
};

/// The CUDA device, defined by runtime/device/cuda/ in a program that links
/// it. createDevice refers to it weakly, so that a host-only program links
/// without it (and a static archive member that defines it is only linked
/// when the program names it: a backend whose code needs it links that
/// object explicitly).
std::unique_ptr<Device> createCudaDevice(std::string &error)
    __attribute__((weak));

/// The device that tfm_model.device `kind` names, or null with `error` set:
/// a kind this runtime was built without (CUDA, where no CUDA device is
/// linked in) or one it does not know (code from a newer tfmc).
std::unique_ptr<Device> createDevice(uint32_t kind, std::string &error);

} // namespace tfm::rt

#endif // TFMC_RUNTIME_DEVICE_DEVICE_H
