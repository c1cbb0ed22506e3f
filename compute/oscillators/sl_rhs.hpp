#pragma once
/// @file Internal: the Stuart-Landau right-hand side of one node, shared by the CPU and CUDA
/// integrators so both evaluate the same formula. nvcc compiles it as __host__ __device__.
#ifdef __CUDACC__
#define SIMSCOPE_OSC_HD __host__ __device__ __forceinline__
#else
#define SIMSCOPE_OSC_HD inline
#endif

namespace simscope::oscillators::detail {

/// dx/dt and dy/dt of a node at (x, y), as in model.hpp:
///   dx = x - w y - (x + c y) r^2 + he (nsum - deg x),   dy = y + w x - (y - c x) r^2,
/// with r^2 = x^2 + y^2, he = e/2, nsum = sum_j G_ij x_j, deg = sum_j G_ij. Computed as
///   dx = diag x - w y - (x + c y) r^2 + he nsum,   with diag = 1 - he deg precomputed per node.
template <typename T>
SIMSCOPE_OSC_HD void sl_rhs(T x, T y, T nsum, T diag, T omega, T c, T he, T& dx, T& dy) {
  const T r2 = x * x + y * y;
  dx = diag * x - omega * y - (x + c * y) * r2 + he * nsum;
  dy = y + omega * x - (y - c * x) * r2;
}

}  // namespace simscope::oscillators::detail
