#pragma once
/// @file The 1-norm condition estimate of V factored matrices at once (SoaCholesky): Hager's
/// method with Higham's refinements, LAPACK xLACN2. Internal to compute/lsq/cpu/.
#include "lsq/cpu/soa_cholesky.hpp"

namespace simscope::lsq::detail::cpu {

/// Iterations of the estimator on the Gram path's N x N matrices (LAPACK's limit).
constexpr int kGramHagerIterations = 5;

template <class T, int V>
class ConditionEstimator {
 public:
  explicit ConditionEstimator(int nmax);

  /// est[v] ~ ||G^-1||_1 for the factored matrices of `f` (at most `iterations` iterations, then
  /// Higham's alternating-sign test vector), all lanes in step; cond[v] = f.norm1[v] est[v].
  /// `rhs`, if not null: an SoA vector of f.n x V solved in place (G^-1 rhs) in the first pass.
  /// Lane v's vectors live in its first f.lane_n[v] components (zero beyond), so each lane's
  /// estimate depends neither on the padding nor on the other lanes.
  void estimate(const SoaCholesky<T, V>& f, int iterations, double* rhs = nullptr);

  double est[V] = {};   ///< ||G^-1||_1 estimates
  double cond[V] = {};  ///< ||G||_1 ||G^-1||_1 estimates

 private:
  AVec<T> x_, z_, alt_;  // nmax x V each: Hager's x and z, Higham's alternating-sign vector
};

}  // namespace simscope::lsq::detail::cpu
