// The design on the device (solver.cuh, step 3): A in both orders, the Khatri-Rao matrix K, the
// shared SVD's operator and the small paths' operators, uploaded at every solve; their bytes;
// and the Gram product G = K^T W^T of a chunk.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <type_traits>
#include <vector>

#include "core/cuda_check.hpp"
#include "lsq/cuda/cublas_handle.cuh"
#include "lsq/cuda/solver.cuh"

namespace simscope::lsq::detail {

template <class T>
void CudaSolver::gram_gemm(Buffers& b, int NT, int np, int M) {
  const T one = 1, zero = 0;
  // G (NT x np, column-major) = op_T(K) (NT x M) * op_T(W) (M x np); K: M x NT column-major,
  // W: np x M column-major (leading dimension np).
  if constexpr (std::is_same_v<T, float>)
    LSQ_CUBLAS_CHECK(cublasSgemm(b.cublas, CUBLAS_OP_T, CUBLAS_OP_T, NT, np, M, &one,
                                 d_k_.as<const float>(), M, b.wt.as<const float>(), np, &zero,
                                 b.gram.as<float>(), NT));
  else
    LSQ_CUBLAS_CHECK(cublasDgemm(b.cublas, CUBLAS_OP_T, CUBLAS_OP_T, NT, np, M, &one,
                                 d_k_.as<const double>(), M, b.wt.as<const double>(), np, &zero,
                                 b.gram.as<double>(), NT));
}

template void CudaSolver::gram_gemm<float>(Buffers&, int, int, int);
template void CudaSolver::gram_gemm<double>(Buffers&, int, int, int);

template <class T>
void CudaSolver::upload_design(const Design& d, const SharedSvd& shared) {
  const int M = int(d.m), N = int(d.n), NT = N * (N + 1) / 2;
  free_design();
  std::vector<double> acm(std::size_t(M) * N);
  for (int i = 0; i < M; ++i)
    for (int k = 0; k < N; ++k) acm[std::size_t(k) * M + i] = d.a[std::size_t(i) * N + k];
  std::vector<T> K(std::size_t(M) * NT);
  for (int i = 0; i < M; ++i) {
    const double* ai = &d.a[std::size_t(i) * N];
    int t = 0;
    for (int r = 0; r < N; ++r)
      for (int c = 0; c <= r; ++c, ++t) K[std::size_t(t) * M + i] = T(ai[r] * ai[c]);
  }
  d_a_ = buffer<double>(d.a.size(), "the design matrix");
  d_acm_ = buffer<double>(acm.size(), "the design matrix (column-major)");
  d_op_ = buffer<double>(shared.op.size(), "the shared SVD's operator");
  d_k_ = buffer<unsigned char>(K.size() * sizeof(T), "the Khatri-Rao matrix");
  SIMSCOPE_CUDA_CHECK(
      cudaMemcpy(d_a_.get(), d.a.data(), d.a.size() * sizeof(double), cudaMemcpyHostToDevice));
  SIMSCOPE_CUDA_CHECK(
      cudaMemcpy(d_acm_.get(), acm.data(), acm.size() * sizeof(double), cudaMemcpyHostToDevice));
  SIMSCOPE_CUDA_CHECK(cudaMemcpy(d_op_.get(), shared.op.data(), shared.op.size() * sizeof(double),
                                 cudaMemcpyHostToDevice));
  SIMSCOPE_CUDA_CHECK(
      cudaMemcpy(d_k_.get(), K.data(), K.size() * sizeof(T), cudaMemcpyHostToDevice));
  SIMSCOPE_CUDA_CHECK(cudaDeviceSynchronize());
}

template void CudaSolver::upload_design<float>(const Design&, const SharedSvd&);
template void CudaSolver::upload_design<double>(const Design&, const SharedSvd&);

void CudaSolver::upload_ops(const DowndateOps& ops) {
  auto up = [&](DeviceBuffer<double>& d, const std::vector<double>& v, const char* what) {
    d.reset();
    if (v.empty()) return;
    d = buffer<double>(v.size(), what);
    SIMSCOPE_CUDA_CHECK(
        cudaMemcpy(d.get(), v.data(), v.size() * sizeof(double), cudaMemcpyHostToDevice));
  };
  up(d_bt_, ops.downdate ? ops.bt : std::vector<double>{}, "the downdate's B");
  up(d_c_, ops.downdate ? ops.c : std::vector<double>{}, "the downdate's hat matrix");
  up(d_ginv_, ops.downdate ? ops.ginv : std::vector<double>{}, "the downdate's G^-1");
  up(d_r_, ops.minnorm ? ops.r : std::vector<double>{}, "the row Gram A A^T");
  SIMSCOPE_CUDA_CHECK(cudaDeviceSynchronize());
}

std::size_t CudaSolver::design_bytes() const {
  // Counted as the allocator counts them: an empty operator is allocated as one byte.
  std::size_t n = 0;
  for (const auto* d : {&d_bt_, &d_c_, &d_ginv_, &d_r_})
    if (*d) n += d->bytes();
  for (const auto* d : {&d_a_, &d_acm_, &d_op_})
    if (*d) n += std::max<std::size_t>(1, d->bytes());
  if (d_k_) n += std::max<std::size_t>(1, d_k_.bytes());
  return n;
}

void CudaSolver::free_design() {
  d_a_.reset(), d_acm_.reset(), d_op_.reset(), d_k_.reset();
  d_bt_.reset(), d_c_.reset(), d_ginv_.reset(), d_r_.reset();
}

}  // namespace simscope::lsq::detail
