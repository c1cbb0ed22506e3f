#pragma once
/// @file CUDA kernel that reads an oscillators initial state from the caller's device memory
/// (Ensemble::load_device). Included by oscillators_cuda.cu only.
/// Copies a strided (N, 2) or (K, N, 2) view into the integrator's member-major K x N x and y
/// arrays in R. Checks finiteness as initial_state_from_npy does: `bad` receives the smallest
/// flat C-order index of a non-finite value via atomicMin; ULLONG_MAX means none.
#include <cuda_runtime.h>

namespace simscope::oscillators::cuda_inputs {

constexpr unsigned long long kNoBad = ~0ull;

/// With per_member, element (k, i, c) is at base + k s0 + i s1 + c s2. Otherwise (i, c) at
/// base + i s1 + c s2 serves every member k.
template <typename In, typename R>
__global__ void initial_from_view_kernel(const unsigned char* __restrict__ base, int K, int N,
                                         bool per_member, long long s0, long long s1, long long s2,
                                         R* __restrict__ x, R* __restrict__ y,
                                         unsigned long long* __restrict__ bad) {
  const long long n = (long long)K * N;
  for (long long q = blockIdx.x * (long long)blockDim.x + threadIdx.x; q < n;
       q += (long long)gridDim.x * blockDim.x) {
    const long long k = q / N, i = q % N;
    const unsigned char* e = base + (per_member ? k * s0 : 0) + i * s1;
    const double vx = double(*reinterpret_cast<const In*>(e));
    const double vy = double(*reinterpret_cast<const In*>(e + s2));
    const long long flat = (per_member ? q : i) * 2;
    if (!isfinite(vx)) atomicMin(bad, (unsigned long long)flat);
    if (!isfinite(vy)) atomicMin(bad, (unsigned long long)(flat + 1));
    x[q] = R(vx), y[q] = R(vy);
  }
}

}  // namespace simscope::oscillators::cuda_inputs
