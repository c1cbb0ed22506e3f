#pragma once
/// @file Owners of CUDA streams, events and pinned host memory for .cu files. Each is created
/// by its constructor on the current device (throwing simscope::Error on failure), is move-only,
/// and is destroyed once by its destructor with its own device made current (CudaDeviceScope),
/// so an evaluator destroyed on another thread releases it on the right device. Destructors
/// never throw.
#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

#include "core/cuda_check.hpp"

namespace simscope {

/// One handle of type H released by Release on its device; empty when default-constructed or
/// moved from.
template <class H, cudaError_t (*Release)(H)>
class CudaHandle {
 public:
  CudaHandle() = default;
  ~CudaHandle() { reset(); }
  CudaHandle(CudaHandle&& o) noexcept
      : handle_(std::exchange(o.handle_, H{})), device_(o.device_) {}
  CudaHandle& operator=(CudaHandle&& o) noexcept {
    if (this != &o) {
      reset();
      handle_ = std::exchange(o.handle_, H{});
      device_ = o.device_;
    }
    return *this;
  }
  CudaHandle(const CudaHandle&) = delete;
  CudaHandle& operator=(const CudaHandle&) = delete;

  H get() const { return handle_; }
  operator H() const { return handle_; }
  explicit operator bool() const { return handle_ != H{}; }
  /// Releases the handle (a no-op when empty); errors are cleared and ignored.
  void reset() {
    if (handle_ == H{}) return;
    const CudaDeviceScope on(device_);
    if (Release(handle_) != cudaSuccess) cudaGetLastError();
    handle_ = H{};
  }

 protected:
  /// Takes `h`, created on the current device.
  void adopt(H h) {
    reset();
    handle_ = h;
    device_ = cuda_current_device();
  }

 private:
  H handle_{};
  int device_ = 0;
};

/// A CUDA stream (cudaStreamNonBlocking by default: no implicit sync with the legacy stream).
class CudaStream : public CudaHandle<cudaStream_t, cudaStreamDestroy> {
 public:
  CudaStream() = default;
  /// Creates a stream with `flags` (cudaStreamCreateWithFlags).
  static CudaStream create(unsigned flags = cudaStreamNonBlocking) {
    cudaStream_t s = nullptr;
    SIMSCOPE_CUDA_CHECK(cudaStreamCreateWithFlags(&s, flags));
    CudaStream out;
    out.adopt(s);
    return out;
  }
};

/// A CUDA event (timing enabled by default; cudaEventDisableTiming for ordering only).
class CudaEvent : public CudaHandle<cudaEvent_t, cudaEventDestroy> {
 public:
  CudaEvent() = default;
  /// Creates an event with `flags` (cudaEventCreateWithFlags).
  static CudaEvent create(unsigned flags = cudaEventDefault) {
    cudaEvent_t e = nullptr;
    SIMSCOPE_CUDA_CHECK(cudaEventCreateWithFlags(&e, flags));
    CudaEvent out;
    out.adopt(e);
    return out;
  }
};

/// Page-locked host memory of `bytes` bytes (cudaMallocHost), for asynchronous device-to-host
/// copies that overlap; empty when default-constructed.
class PinnedHostBlock {
 public:
  PinnedHostBlock() = default;
  /// Allocates `bytes`; returns the runtime's error instead of throwing (the caller names what
  /// the memory was for), leaving the block empty.
  cudaError_t allocate(std::size_t bytes) {
    reset();
    const cudaError_t e = cudaMallocHost(&data_, bytes);
    if (e != cudaSuccess) {
      cudaGetLastError();
      data_ = nullptr;
    }
    return e;
  }
  ~PinnedHostBlock() { reset(); }
  PinnedHostBlock(PinnedHostBlock&& o) noexcept : data_(std::exchange(o.data_, nullptr)) {}
  PinnedHostBlock& operator=(PinnedHostBlock&& o) noexcept {
    if (this != &o) {
      reset();
      data_ = std::exchange(o.data_, nullptr);
    }
    return *this;
  }
  PinnedHostBlock(const PinnedHostBlock&) = delete;
  PinnedHostBlock& operator=(const PinnedHostBlock&) = delete;

  void* get() const { return data_; }
  explicit operator bool() const { return data_ != nullptr; }
  /// Frees the block (cudaFreeHost waits for no device work; the caller synchronizes first).
  void reset() {
    if (data_ && cudaFreeHost(data_) != cudaSuccess) cudaGetLastError();
    data_ = nullptr;
  }

 private:
  void* data_ = nullptr;
};

}  // namespace simscope
