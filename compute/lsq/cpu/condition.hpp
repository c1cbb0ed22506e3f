#pragma once
/// @file 1-norm condition estimates of V factored matrices at once (SoaCholesky).
/// Method: Hager with Higham's refinements, as LAPACK xLACN2. Internal to compute/lsq/cpu/.
#include "core/isa.hpp"
#include "lsq/cpu/soa_cholesky.hpp"

namespace simscope::lsq::detail::cpu {
SIMSCOPE_ISA_BEGIN

/// Estimator iterations on the Gram path's N x N matrices; LAPACK's limit.
constexpr int kGramHagerIterations = 5;

template <class T, int V>
class ConditionEstimator {
 public:
  explicit ConditionEstimator(int nmax);

  /// Sets est[v] ~ ||G^-1||_1 and cond[v] = f.norm1[v] est[v] for the factored matrices of `f`.
  /// Runs at most `iterations` iterations, then Higham's alternating-sign test vector.
  /// All lanes run in step.
  /// `rhs`, if not null, is an SoA vector of f.n x V solved in place, G^-1 rhs, in the first pass.
  /// Lane v's vectors use its first f.lane_n[v] components and are zero beyond. Each lane's
  /// estimate therefore depends neither on the padding nor on the other lanes.
  void estimate(const SoaCholesky<T, V>& f, int iterations, double* rhs = nullptr);

  double est[V] = {};   ///< ||G^-1||_1 estimates
  double cond[V] = {};  ///< ||G||_1 ||G^-1||_1 estimates

 private:
  AVec<T> x_, z_, alt_;  // nmax x V each: Hager's x and z, Higham's alternating-sign vector
};

SIMSCOPE_ISA_END
}  // namespace simscope::lsq::detail::cpu
