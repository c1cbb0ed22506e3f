#pragma once
/// @file Gap-free pixels (all M rows observed) solved a band at a time: x = op b as one matrix
/// product of the shared SVD's operator with the band's right-hand sides, and each residual
/// from the shared residual operator (SharedSvd::residual_op) or else from A x. Internal to
/// compute/lsq/cpu/.
#include "core/isa.hpp"
#include <cstddef>

#include "lsq/cpu/problem.hpp"
#include "lsq/cpu/simd.hpp"

namespace simscope::lsq::detail::cpu {
SIMSCOPE_ISA_BEGIN

/// Pixels per SharedBlock::solve at most.
constexpr std::size_t kSharedBlockPixels = 256;

/// Solves up to kSharedBlockPixels gap-free pixels at a time, in float64 at either precision, as the
/// lane groups did: each x_k is the sum over i of op_ki b_i in increasing i. One instance per
/// thread.
class SharedBlock {
 public:
  template <class T>
  explicit SharedBlock(const Problem<T>& pb);

  /// Solves the result's pixels px[0..n) (n <= kSharedBlockPixels, increasing; cube pixel pbeg + px[j]),
  /// each observing all M rows: component k of pixel px[j]'s solution into
  /// x[k ldx + px[j] - x0], and its residual sum of squares into rss[j].
  void solve(const std::size_t* px, std::size_t n, double* x, std::size_t ldx, std::size_t x0,
             double* rss);

 private:
  const Cube& cube_;
  int M_ = 0, N_ = 0, ld8_ = 0;
  int rop_rows_ = -1;            // rows of rop_; -1: residuals from A x
  std::size_t P_ = 0, pbeg_ = 0;
  const double* op_ = nullptr;   // ld8 x M: the shared operator, zero rows beyond N
  const double* a8_ = nullptr;   // M x ld8: A
  const double* rop_ = nullptr;  // rop_rows x M: the residual operator
  AVec<double> panel_;  // M x kSharedBlockPixels: the pixels' right-hand sides, zero beyond n
  AVec<double> xb_;     // N x kSharedBlockPixels: solutions of pixels that are not one run
};

SIMSCOPE_ISA_END
}  // namespace simscope::lsq::detail::cpu
