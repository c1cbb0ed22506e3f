#pragma once
/// @file A CUDA kernel that reads an oscillators initial state from the caller's device memory
/// (Ensemble::load_device; included by oscillators_cuda.cu only): a strided (N, 2) or (K, N, 2)
/// view into the integrator's x and y arrays (member-major, K x N, in R), with
/// initial_state_from_npy's check (finite values): the first non-finite value's flat C-order
/// index in the view kept in `bad` (atomicMin; ULLONG_MAX: none).
#include <cuda_runtime.h>

namespace simscope::oscillators::cuda_inputs {

constexpr unsigned long long kNoBad = ~0ull;

/// per_member: element (k, i, c) at base + k s0 + i s1 + c s2; else (i, c) at base + i s1 +
/// c s2 for every member k.
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
