#pragma once
/// @file Device memory of the CUDA back ends: an accounting allocator and an RAII buffer.
/// This header is pure C++. Tests check the accounting on the CPU with a fake RawDeviceMemory.
/// device_memory_cuda.cu holds only the raw CUDA calls behind cuda_device_memory().
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "core/error.hpp"

namespace simscope {

/// The raw allocation functions of one device, injectable for tests.
class RawDeviceMemory {
 public:
  virtual ~RawDeviceMemory() = default;
  /// Allocates `bytes` > 0. Returns null on failure and puts the runtime's reason in `error`,
  /// e.g. "out of memory". Never throws.
  virtual void* allocate(std::size_t bytes, std::string& error) noexcept = 0;
  /// Frees what allocate() returned. May be called on any thread. Never throws.
  virtual void release(void* p) noexcept = 0;
  /// Free and total bytes of the device now; {0, 0} when unknown. Never throws.
  virtual std::pair<std::size_t, std::size_t> info() noexcept = 0;
};

/// Raw memory of CUDA device `device`: cudaMalloc, cudaFree and cudaMemGetInfo.
/// Each call makes that device current and then restores the calling thread's device.
/// Returns one shared object per device. Throws simscope::Error when CUDA is not compiled in.
std::shared_ptr<RawDeviceMemory> cuda_device_memory(int device);

/// Copies `bytes` from device memory `src` of CUDA device `device` to host memory `dst`.
/// Synchronous; callable on any thread. Restores the calling thread's device afterwards.
/// Throws simscope::Error "device memory: copy of <bytes> to the host failed: <reason>" on a
/// runtime failure, or when this build has no CUDA back end.
void copy_device_to_host(void* dst, const void* src, std::size_t bytes, int device);

/// Device memory of one owner, e.g. "field", "lsq" or "oscillators"; one per evaluator, solver or
/// ensemble. Tracks the bytes held now and the peak. Thread-safe: buffers may be freed on any
/// thread. Buffers keep their allocator alive, so they may outlive the object that made them.
class DeviceAllocator {
 public:
  /// `owner` names the allocations in messages. `hint` ends the out-of-memory message and may be
  /// empty, e.g. "reduce sources.count or grid.size, or use --backend cpu".
  static std::shared_ptr<DeviceAllocator> make(std::string owner,
                                               std::shared_ptr<RawDeviceMemory> raw,
                                               std::string hint = "");
  /// make() over cuda_device_memory(device).
  static std::shared_ptr<DeviceAllocator> cuda(std::string owner, int device,
                                               std::string hint = "");

  /// Allocates `bytes` for `what`, e.g. "the sources".
  /// 0 bytes allocates 1, so a buffer is never null.
  /// Throws simscope::Error on failure and leaves the accounting unchanged. The message is
  ///   "<owner> (CUDA): cannot allocate <bytes> of device memory for <what> (<free> free of
  ///    <total>; <reason>): <hint>"
  /// with sizes formatted by format_bytes().
  void* allocate(std::size_t bytes, const std::string& what);
  /// Frees `p`, which allocate() returned for `bytes`. Never throws.
  void release(void* p, std::size_t bytes) noexcept;

  const std::string& owner() const { return owner_; }
  std::size_t current_bytes() const;  ///< bytes held now
  std::size_t peak_bytes() const;     ///< the largest current_bytes() so far

 private:
  DeviceAllocator(std::string owner, std::shared_ptr<RawDeviceMemory> raw, std::string hint);
  std::string owner_, hint_;
  std::shared_ptr<RawDeviceMemory> raw_;
  mutable std::mutex mutex_;
  std::size_t current_ = 0, peak_ = 0;
};

/// Move-only RAII array of `size()` elements of T in device memory.
/// Freed through its allocator when destroyed, reset or assigned over.
/// T must be trivially copyable; elements are not constructed.
/// Default-constructed: empty, get() null.
template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  /// Allocates `count` elements of T from `allocator`.
  /// `what` names them in messages, e.g. "the targets".
  /// Throws simscope::Error when allocation fails or count * sizeof(T) overflows.
  DeviceBuffer(std::shared_ptr<DeviceAllocator> allocator, std::size_t count,
               const std::string& what)
      : alloc_(std::move(allocator)), size_(count) {
    if (count > std::size_t(-1) / sizeof(T)) {
      alloc_.reset();
      size_ = 0;
      throw Error(what + ": " + std::to_string(count) + " elements of " +
                  std::to_string(sizeof(T)) + " bytes do not fit in a size_t");
    }
    p_ = static_cast<T*>(alloc_->allocate(count * sizeof(T), what));
  }
  DeviceBuffer(DeviceBuffer&& o) noexcept
      : alloc_(std::move(o.alloc_)),
        p_(std::exchange(o.p_, nullptr)),
        size_(std::exchange(o.size_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      reset();
      alloc_ = std::move(o.alloc_);
      p_ = std::exchange(o.p_, nullptr);
      size_ = std::exchange(o.size_, 0);
    }
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() { reset(); }

  /// Frees the memory, if any. The buffer is empty afterwards.
  void reset() noexcept {
    if (p_) alloc_->release(p_, size_ * sizeof(T));
    p_ = nullptr;
    size_ = 0;
    alloc_.reset();
  }
  T* get() const { return p_; }
  /// The memory as another element type, for buffers whose type is chosen at run time.
  template <class U>
  U* as() const {
    return reinterpret_cast<U*>(p_);
  }
  std::size_t size() const { return size_; }
  std::size_t bytes() const { return size_ * sizeof(T); }
  explicit operator bool() const { return p_ != nullptr; }

 private:
  std::shared_ptr<DeviceAllocator> alloc_;
  T* p_ = nullptr;
  std::size_t size_ = 0;
};

/// A DeviceBuffer<T> with shared ownership: it lives as long as its longest holder.
/// For a raw view, alias it: std::shared_ptr<const T>(buffer, buffer->get() + offset).
template <class T>
std::shared_ptr<DeviceBuffer<T>> make_shared_buffer(DeviceBuffer<T>&& b) {
  return std::make_shared<DeviceBuffer<T>>(std::move(b));
}

}  // namespace simscope
