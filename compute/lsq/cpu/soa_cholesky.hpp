#pragma once
/// @file Cholesky factorisation of V small SPD matrices at once, one per SIMD lane, in SoA layout.
/// Every instruction serves all V lanes: no horizontal reductions, no per-lane branches.
/// Internal to compute/lsq/cpu/.
#include <cstddef>
#include <cstdint>

#include "core/isa.hpp"
#include "lsq/cpu/simd.hpp"

namespace simscope::lsq::detail::cpu {
SIMSCOPE_ISA_BEGIN

/// Offset of row i in a packed lower triangle: i (i + 1) / 2.
inline std::size_t rowbase(int i) { return std::size_t(i) * std::size_t(i + 1) / 2; }

/// V symmetric matrices of size n <= nmax, as packed lower triangles with the lanes innermost.
/// Entry (i, j), j <= i, of lane v is at (rowbase(i) + j) V + v.
/// Lane v's own matrix is its leading lane_n[v] x lane_n[v] block. The rest is padding: a
/// diagonal block chosen by the caller so that neither the 1-norm nor that of the inverse changes.
/// factor() overwrites the matrices with their Cholesky factors L, G = L L^T.
template <class T, int V>
class SoaCholesky {
 public:
  using VT = typename VecOf<T, V>::type;

  explicit SoaCholesky(int nmax);

  /// Packed row i: entries j <= i, lanes innermost.
  T* row(int i) { return l_.data() + rowbase(i) * V; }
  const T* row(int i) const { return l_.data() + rowbase(i) * V; }

  /// Computes ||G||_1 per lane into norm1, the largest column sum of |g_ij| over both triangles.
  /// Sets the breakdown tolerance lane_n[v] eps max(diag G) over each lane's own diagonal.
  /// Clears fail.
  void norm1_and_tolerance();

  /// In-place Cholesky G = L L^T of the V matrices. Golub & Van Loan Algorithm 4.2.1, in
  /// Cholesky-Banachiewicz order with the dot products of 4.2.5.
  /// A pivot <= the lane's tolerance sets fail[v] and is replaced by 1.
  void factor();

  /// y <- (L L^T)^-1 y for the V lanes; y is SoA, n x V. Forward then backward substitution.
  /// U is T or double; products are in U.
  template <class U>
  void solve_in_place(U* y) const {
    U* const ys[1] = {y};
    solve_many<U, 1>(ys);
  }

  /// solve_in_place for R right-hand sides at once; each loaded vector of L serves 2 R FMAs.
  /// Each right-hand side gets the same operations as a solve of its own.
  template <class U, int R>
  void solve_many(U* const (&y)[R]) const;

  /// Packs lane v's entries (q, p), p <= q < sz[v], as sign S[rows_v[q]][rows_v[p]], plus diag on
  /// the diagonal, from the M x M row-major matrix S. Lane v's padding is pad[v] I.
  /// Rows of n entries, lanes innermost: contiguous stores, gathers from S.
  void gather(int n, const int* sz, const int* const* rows, const double* S, int M, double sign,
              double diag, const double* pad);

  int n = 0;                  ///< the matrices' size (the largest lane_n)
  int lane_n[V] = {};         ///< each lane's own size, <= n
  double norm1[V] = {};       ///< ||G||_1 per lane (norm1_and_tolerance)
  std::uint8_t fail[V] = {};  ///< 1: a pivot broke down (factor)

 private:
  /// Sets lane v's pivot to sqrt(d), or to 1 with fail[v] set when d <= tol.
  void pivot(T* lii, T* inv, const VT& d);

  AVec<T> l_, invd_, colsum_;  // packed matrices, reciprocal pivots (n x V), column sums
  T tol_[V] = {};
};

SIMSCOPE_ISA_END
}  // namespace simscope::lsq::detail::cpu
