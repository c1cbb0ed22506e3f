#pragma once
/// @file Solution paths of the CPU group solver and the rule that assigns them to pixels.
/// Internal to compute/lsq/cpu/.
#include "core/isa.hpp"
#include <cstdint>
#include <memory>
#include <vector>

#include "lsq/cpu/problem.hpp"

namespace simscope::lsq::detail::cpu {
SIMSCOPE_ISA_BEGIN

/// How a lane (pixel) is solved: padding of a short group, no observed row (NaN outputs), all
/// rows observed (the shared SVD's operator, by SharedBlock, never in a group), the Gram path's
/// Cholesky, Eigen one by one (lsq_dense.cpp), the downdate, or the minimum norm. Pixels of a
/// shared missing-row pattern (pattern.hpp) are solved by SharedBlock too, never in a group.
enum Kind : std::uint8_t { kPad, kEmpty, kShared, kChol, kDense, kDowndate, kMinNorm };

/// The path of a pixel with `cnt` of M rows observed. The CUDA classify kernel mirrors this rule.
/// The downdate and minimum-norm paths work in float64 at any precision, so an fp32 solve hands
/// those pixels to a float64 group solver.
inline Kind kind_of(int cnt, int M, int N, Method method, double lambda, const DowndateOps& ops) {
  if (cnt == 0) return kEmpty;
  if (cnt == M) return kShared;
  if (method == Method::Qr || method == Method::Svd) return kDense;
  if (method == Method::Downdate) return ops.downdate ? kDowndate : kDense;
  if (method == Method::Auto && cnt < N && ops.minnorm) return kMinNorm;
  if (cnt < N && lambda == 0) return kDense;
  if (method == Method::Auto && ops.downdate &&
      downdate_cost(M, N, M - cnt) <= gram_cost(M, N, M - cnt))
    return kDowndate;
  return kChol;
}

template <class T, int V>
class LaneGroup;

/// One solution path. solve() solves the lanes of a loaded group whose kind is kind().
/// It writes only those lanes of LaneGroup::x, ok and condition, so paths may run in any order.
/// A lane with ok = 0 goes to the float64 SVD. Each path owns its scratch; one instance per thread.
template <class T, int V>
class Path {
 public:
  virtual ~Path() = default;
  virtual Kind kind() const = 0;
  virtual void solve(LaneGroup<T, V>& g) = 0;
};

/// The paths, defined in path_gram.cpp, path_downdate.cpp and path_minnorm.cpp.
template <class T, int V>
std::unique_ptr<Path<T, V>> make_gram_path(const Problem<T>& pb);
template <class T, int V>
std::unique_ptr<Path<T, V>> make_downdate_path(const Problem<T>& pb);
template <class T, int V>
std::unique_ptr<Path<T, V>> make_minnorm_path(const Problem<T>& pb);

/// Defines `factory`, one of the above, as making a PathClass<T, V>(pb) for both group solvers:
/// (float, kLanesFp32) and (double, kLanesFp64). Use once at the end of a path file.
#define SIMSCOPE_LSQ_CPU_PATH(factory, PathClass)                                 \
  template <class T, int V>                                                       \
  std::unique_ptr<Path<T, V>> factory(const Problem<T>& pb) {                     \
    return std::make_unique<PathClass<T, V>>(pb);                                 \
  }                                                                               \
  template std::unique_ptr<Path<float, kLanesFp32>> factory<float, kLanesFp32>(   \
      const Problem<float>&);                                                     \
  template std::unique_ptr<Path<double, kLanesFp64>> factory<double, kLanesFp64>( \
      const Problem<double>&);

SIMSCOPE_ISA_END
}  // namespace simscope::lsq::detail::cpu
