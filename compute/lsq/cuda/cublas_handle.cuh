#pragma once
/// @file cuBLAS error checking and the owner of one cuBLAS handle, for lsq's .cu files.
#include <cublas_v2.h>

#include <string>
#include <utility>

#include "core/cuda_check.hpp"
#include "core/error.hpp"

namespace simscope::lsq::detail {

/// Throws simscope::Error "cuBLAS error in <what>: status <s>" when `s` is not success.
inline void cublas_check(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS)
    throw Error(std::string("cuBLAS error in ") + what + ": status " + std::to_string(int(s)));
}
#define LSQ_CUBLAS_CHECK(call) ::simscope::lsq::detail::cublas_check((call), #call)

/// One cuBLAS handle bound to `stream` in default math mode, without TF32. create() creates it;
/// the destructor destroys it on its device. Move-only; empty when default-constructed. A
/// handle's workspace is not safe to share between streams, so use one handle per stream.
class CublasHandle {
 public:
  CublasHandle() = default;
  /// Creates a handle on the current device that queues its work on `stream`. Throws
  /// simscope::Error on failure.
  static CublasHandle create(cudaStream_t stream) {
    CublasHandle out;
    LSQ_CUBLAS_CHECK(cublasCreate(&out.handle_));
    out.device_ = cuda_current_device();
    LSQ_CUBLAS_CHECK(cublasSetMathMode(out.handle_, CUBLAS_DEFAULT_MATH));
    LSQ_CUBLAS_CHECK(cublasSetStream(out.handle_, stream));
    return out;
  }
  ~CublasHandle() { reset(); }
  CublasHandle(CublasHandle&& o) noexcept
      : handle_(std::exchange(o.handle_, nullptr)), device_(o.device_) {}
  CublasHandle& operator=(CublasHandle&& o) noexcept {
    if (this != &o) {
      reset();
      handle_ = std::exchange(o.handle_, nullptr);
      device_ = o.device_;
    }
    return *this;
  }
  CublasHandle(const CublasHandle&) = delete;
  CublasHandle& operator=(const CublasHandle&) = delete;

  operator cublasHandle_t() const { return handle_; }
  /// Destroys the handle; a no-op when empty. Never throws.
  void reset() {
    if (!handle_) return;
    const CudaDeviceScope on(device_);
    cublasDestroy(handle_);
    handle_ = nullptr;
  }

 private:
  cublasHandle_t handle_ = nullptr;
  int device_ = 0;
};

}  // namespace simscope::lsq::detail
