#pragma once
/// @file Device memory of the CUDA back ends: one allocator type that accounts for what each
/// owner holds (current and peak bytes) and throws one out-of-memory message, and one RAII
/// buffer type over it. This header is pure C++ (no CUDA headers): the accounting is tested on
/// the CPU with a fake RawDeviceMemory; the CUDA part (device_memory_cuda.cu) is only the raw
/// cudaMalloc / cudaFree / cudaMemGetInfo behind cuda_device_memory().
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
  /// Allocates `bytes` (> 0). Returns null on failure and puts the runtime's reason in `error`
  /// (e.g. "out of memory"); never throws.
  virtual void* allocate(std::size_t bytes, std::string& error) noexcept = 0;
  /// Frees what allocate() returned; may be called on any thread. Never throws.
  virtual void release(void* p) noexcept = 0;
  /// Free and total bytes of the device now ({0, 0} when unknown). Never throws.
  virtual std::pair<std::size_t, std::size_t> info() noexcept = 0;
};

/// The CUDA device `device`'s raw memory (cudaMalloc, cudaFree, cudaMemGetInfo, each with that
/// device current for the call, the calling thread's device restored after: CudaDeviceScope).
/// One shared object per device. Throws simscope::Error when the CUDA back end is not compiled.
std::shared_ptr<RawDeviceMemory> cuda_device_memory(int device);

/// Copies `bytes` from the device memory `src` of CUDA device `device` into host memory `dst`,
/// synchronously (with that device current for the copy, the calling thread's device restored
/// after), on any thread: e.g. a result's output downloaded when it is first read. Throws
/// simscope::Error "device memory: copy of <bytes> to the host failed: <reason>" on a runtime
/// failure, or when this build has no CUDA back end.
void copy_device_to_host(void* dst, const void* src, std::size_t bytes, int device);

/// Device memory of one owner (a named part of simscope: "field", "lsq", "oscillators"; one
/// allocator per evaluator, solver or ensemble), with the bytes it holds now and at most so far.
/// Thread-safe (a buffer shared with a result may be freed on any thread). Buffers keep their
/// allocator alive (shared_ptr), so they may outlive the object that made them.
class DeviceAllocator {
 public:
  /// `owner` names the allocations in messages; `hint` (may be empty) ends the out-of-memory
  /// message, e.g. "reduce sources.count or grid.size, or use --backend cpu".
  static std::shared_ptr<DeviceAllocator> make(std::string owner,
                                               std::shared_ptr<RawDeviceMemory> raw,
                                               std::string hint = "");
  /// make() over cuda_device_memory(device).
  static std::shared_ptr<DeviceAllocator> cuda(std::string owner, int device,
                                               std::string hint = "");

  /// Allocates `bytes` (0 is allocated as 1 byte, so that a buffer is never null) for `what`
  /// (e.g. "the sources"). Throws simscope::Error on failure, with the message
  ///   "<owner> (CUDA): cannot allocate <bytes> of device memory for <what> (<free> free of
  ///    <total>; <reason>): <hint>"
  /// sizes by format_bytes(); the accounting is unchanged then.
  void* allocate(std::size_t bytes, const std::string& what);
  /// Frees p (allocated here with `bytes`, as allocate() was asked). Never throws.
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

/// A move-only array of `size()` elements of T in device memory (RAII): freed through its
/// allocator when destroyed, reset or assigned over. T must be trivially copyable (the memory is
/// not constructed). Default-constructed: empty (get() is null).
template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  /// `count` elements of T from `allocator` for `what` (a message's words, e.g. "the targets").
  /// Throws simscope::Error on failure (DeviceAllocator::allocate) or when count * sizeof(T)
  /// overflows.
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

  /// Frees the memory (if any); the buffer is empty afterwards.
  void reset() noexcept {
    if (p_) alloc_->release(p_, size_ * sizeof(T));
    p_ = nullptr;
    size_ = 0;
    alloc_.reset();
  }
  T* get() const { return p_; }
  /// The memory as another element type (for buffers whose type is chosen at run time).
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

/// A DeviceBuffer<T> handed out with shared ownership: the buffer lives as long as the longest
/// holder (e.g. a result viewed by the GUI), whatever its maker does. Use a shared_ptr<T>
/// aliasing it (std::shared_ptr<const T>(buffer, buffer->get() + offset)) for a raw view.
template <class T>
std::shared_ptr<DeviceBuffer<T>> make_shared_buffer(DeviceBuffer<T>&& b) {
  return std::make_shared<DeviceBuffer<T>>(std::move(b));
}

}  // namespace simscope
