#pragma once
/// @file A group of V pixels solved together, one SIMD lane each.
/// Holds their data, solution and outcome, the factorisation the paths share, and the SoA
/// products with A and the shared operators. Internal to compute/lsq/cpu/.
#include "core/isa.hpp"
#include <cstddef>
#include <cstdint>
#include <vector>

#include "lsq/cpu/condition.hpp"
#include "lsq/cpu/path.hpp"
#include "lsq/cpu/problem.hpp"
#include "lsq/cpu/simd.hpp"
#include "lsq/cpu/soa_cholesky.hpp"

namespace simscope::lsq::detail::cpu {
SIMSCOPE_ISA_BEGIN

/// The lanes' data and results in SoA: entry (i, v) of an M x V or N x V array is at i V + v.
template <class T, int V>
class LaneGroup {
 public:
  using VD = typename VecOf<double, V>::type;

  explicit LaneGroup(const Problem<T>& pb);

  /// Loads pixels px[0..lanes) of the result, lanes <= V; cube pixel pb.pbeg + px[v] for lane v.
  /// Fills b (0 in gaps), w (1 observed, 0 missing), cnt and each lane's observed-row bit mask.
  /// With AVX-512 and BMI2 a full group loads each cube row with one gather and one NaN compare.
  void load(const std::size_t* px, int lanes);

  /// Lane v's observed rows (observed = true) or missing rows, in increasing order.
  /// Built from its bit mask on the first call after load().
  const int* rows_of(int v, bool observed);

  /// out[k] = init[k] scale + sum_i A_ik src[i], i.e. A^T src in SoA over M, kProdRows k at a time.
  /// `init` may be null, meaning zero.
  void at_times(const double* src, const double* init, double scale, double* out) const;

  /// r[i] = w_i (b_i - A_i . x) in float64, x in SoA over N, kProdRows rows at a time.
  void residual_vector(const double* x, double* r) const;

  /// rss[v] = sum over observed rows of (A_i . x_v - b_i)^2 for the group's solution x.
  void residuals();

  /// out(k, c) = (op b)[k] over the lanes, for each row k < N of the N x M operator `op`.
  /// `op` is zero padded to ld8 rows. Processes kProdRows rows of op at a time.
  template <class Out>
  void op_times_b(const double* op, Out out) const {
    const int N = pb.N;
    int k0 = 0;
    for (; k0 + kProdRows <= N; k0 += kProdRows) op_rows<kProdRows>(op, k0, out);
    op_tail<kProdRows - 1>(op, k0, N - k0, out);  // the last rows: no FMAs on the zero padding
  }

  /// z[q V] = A_{rows[q]} . y for q < n, in float64. `y` holds ld8 values, zero beyond N.
  /// Four rows at a time, 8 columns per vector, one horizontal sum per row.
  void rows_dot_lane(const int* rows, int n, const double* y, double* z) const;

  /// x += sum_q u_q S_{rows[q]} for q < n and lane v. S is an M x ld8 row-major matrix, bt8 or a8.
  /// `u` is lane v of an SoA vector; `x` is ld8 long. Four rows per pass over x.
  void add_rows(int v, const int* rows, int n, const double* S, const double* u, double* x) const;

  /// Factorisation of the small paths: chol.gather(n, sz, rows, S, M, sign, diag, pad), then its
  /// Cholesky and condition estimate with kSmallHagerIterations. Solves `rhs` (n x V) in place.
  /// chol.n and chol.lane_n must be set by the path.
  void factor_small(int n, const int* sz, const int* const* rows, const double* S, double sign,
                    double diag, const double* pad, double* rhs);

  /// Lane v's outcome of a small solve: its solution xs (N values) into x and ok = 1.
  /// On failure x = 0 and ok = 0, which sends the lane to the SVD.
  void set_outcome(int v, const SmallOutcome& so, const double* xs);

  const Problem<T>& pb;
  AVec<double> b, w;  ///< M x V: data (gaps 0) and weights
  AVec<double> r;     ///< M x V: residual_vector's output
  int cnt[V] = {};    ///< observed rows per lane
  Kind kind[V] = {};
  AVec<double> x;            ///< N x V: the lanes' solutions
  std::uint8_t ok[V] = {};   ///< 0: the lane's path failed (to the SVD)
  double condition[V] = {};  ///< the lane's condition estimate of [A_p; sqrt(lambda) I]
  double rss[V] = {};        ///< residuals()
  SoaCholesky<T, V> chol;    ///< the paths' factorisation, size <= N
  ConditionEstimator<T, V> estimator;

 private:
  void load_simd(const std::size_t* px, std::size_t lo);

  /// t[r] += or -= A_{i+r} . x for r < R over the lanes. Each x_k vector serves R FMAs.
  template <int R, bool Sub>
  void rows_dot(int i, const double* x, VD* t) const;

  /// Calls block.template operator()<count>(i) over the M rows in blocks of kProdRows, 4, 1.
  template <class Block>
  void over_rows(Block block) const;

  /// op_rows<left>(op, k0, out) for 0 < left <= R. Does nothing for left = 0.
  template <int R, class Out>
  void op_tail(const double* op, int k0, int left, Out& out) const {
    if constexpr (R > 0) {
      if (left == R) return op_rows<R>(op, k0, out);
      op_tail<R - 1>(op, k0, left, out);
    }
  }

  /// Rows k0 .. k0 + R - 1 of op_times_b, with R accumulators in registers.
  /// For R < kProdRows a second set handles odd i, so a short block is not bound by FMA latency.
  template <int R, class Out>
  void op_rows(const double* op, int k0, Out& out) const {
    const int M = pb.M;
    VD c[R] = {}, d[R] = {};
    const double* o = op + std::size_t(k0) * M;
    int i = 0;
    if constexpr (R < kProdRows)
      for (; i + 1 < M; i += 2) {
        const VD s = vload<VD>(&b[std::size_t(i) * V]), s1 = vload<VD>(&b[std::size_t(i + 1) * V]);
#pragma GCC unroll 8
        for (int q = 0; q < R; ++q) {
          c[q] += o[std::size_t(q) * M + i] * s;
          d[q] += o[std::size_t(q) * M + i + 1] * s1;
        }
      }
    for (; i < M; ++i) {
      const VD s = vload<VD>(&b[std::size_t(i) * V]);
#pragma GCC unroll 8
      for (int q = 0; q < R; ++q) c[q] += o[std::size_t(q) * M + i] * s;
    }
    for (int q = 0; q < R; ++q) out(k0 + q, R < kProdRows ? c[q] + d[q] : c[q]);
  }

  std::vector<int> obs_rows_, miss_rows_;  // V x M: each lane's observed / missing rows
  std::vector<std::uint64_t> lane_mask_;   // V x mwords_: each lane's observed rows, one bit each
  std::vector<std::uint8_t> mbytes_;       // M rounded up to 8: the group's NaN masks per row
  std::size_t mwords_ = 0;
  std::uint8_t built_[2 * V] = {};  // rows_of: lane v's missing (2v) / observed (2v+1) list built
};

SIMSCOPE_ISA_END
}  // namespace simscope::lsq::detail::cpu
