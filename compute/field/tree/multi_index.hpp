#pragma once
/// @file Multi-indices k = (kx, ky, kz) of the tree method's Cartesian expansions, and the
/// index tables its operators loop over. Not a public API.
///
/// Layout: the C(p+3, 3) multi-indices of total degree |k| <= p, ordered by degree, and within a
/// degree n by decreasing kx, then decreasing ky: index(k) = n(n+1)(n+2)/6 + (n-kx)(n-kx+1)/2 +
/// kz. A prefix of the layout of order p is the layout of every lower order, so one table of the
/// highest order serves all.
#include <cstdint>
#include <vector>

namespace simscope::field::tree {

/// The highest expansion order the tables support.
constexpr int kMaxOrder = 16;

/// Number of multi-indices of degree <= p: (p+1)(p+2)(p+3)/6.
constexpr int terms(int p) { return (p + 1) * (p + 2) * (p + 3) / 6; }

/// index(k) of the layout above.
constexpr int index_of(int kx, int ky, int kz) {
  const int n = kx + ky + kz;
  return n * (n + 1) * (n + 2) / 6 + (n - kx) * (n - kx + 1) / 2 + kz;
}

/// The tables of order p <= kMaxOrder.
struct MultiIndex {
  int order = 0;
  int count = 0;                                 ///< terms(order)
  std::vector<std::uint8_t> kx, ky, kz, degree;  ///< per index
  /// minus1: index of k - e_c for c = 0, 1, 2, -1 where k_c = 0. minus2: k - 2 e_c likewise.
  std::vector<std::int16_t> minus1[3], minus2[3];
  /// Index of k + e_c; -1 when |k| = order.
  std::vector<std::int16_t> plus1[3];
  /// The step of the scaled powers r^k / k! = r^(k-e_a) / (k-e_a)! * r_a / k_a, with a the first
  /// axis where k_a > 0; index 0 is unused. step_axis[k] = a, step_from[k] = index of k - e_a,
  /// step_inv[k] = 1 / k_a.
  std::vector<std::uint8_t> step_axis;
  std::vector<std::int16_t> step_from;
  std::vector<double> step_inv;
  std::vector<double> inv_factorial;  ///< 1 / k! per index
  /// The derivative recurrence of expansions.hpp as fixed sums: D_k R2 = sum_c
  /// rec_a_coef[c][k] R_c D[rec_a[c][k]] + rec_b_coef[c][k] D[rec_b[c][k]]. Absent terms have
  /// index 0 and coefficient 0.
  std::vector<std::int16_t> rec_a[3], rec_b[3];
  std::vector<double> rec_a_coef[3], rec_b_coef[3];
  /// The pairs (a, b) with |a| + |b| <= order, grouped by a. For a, entries
  /// [pair_begin[a], pair_begin[a+1]) of pair_b, and pair_sum holds the index of a + b.
  std::vector<std::int32_t> pair_begin;
  std::vector<std::int16_t> pair_b, pair_sum;
  /// The harmonic form of the M2L (expansions.hpp m2l8_harmonic). For eps = 0 the kernel is
  /// harmonic: D_{k+2ex} + D_{k+2ey} + D_{k+2ez} = 0. So a multipole's terms with kz >= 2 fold
  /// into those with kz <= 1, and a local expansion's terms with nz >= 2 follow from those with
  /// nz <= 1: (p+1)^2 of each instead of terms(p).
  /// harm: the indices with kz <= 1, by degree (those of degree d at [d^2, (d+1)^2)).
  std::vector<std::int16_t> harm;
  /// Output harm[o] of degree d takes the (p-d+1)^2 first harm entries j: harm_sum[harm_begin[o]
  /// + j] is the index of harm[o] + harm[j].
  std::vector<std::int32_t> harm_begin;
  std::vector<std::int16_t> harm_sum;
  /// The fold: for each index k with kz >= 2, fold_from = k, fold_x = k + 2ex - 2ez, fold_y =
  /// k + 2ey - 2ez; by decreasing kz. A multipole folds as M[fold_x] -= M[k], M[fold_y] -= M[k]
  /// in this order; a local expansion unfolds as L[k] = -L[fold_x] - L[fold_y] in the reverse.
  std::vector<std::int16_t> fold_from, fold_x, fold_y;
  /// The indices 1.. with kz <= 2, in layout order: the derivatives the harmonic M2L reads.
  std::vector<std::int16_t> deriv_z2;
  /// The indices with kz >= 2, in layout order: the terms a harmonic row keeps as they are.
  std::vector<std::int16_t> rest;
};

/// The harmonic row form of a multipole M of order m.order (the source tree's stored rows,
/// source_tree.hpp): m.count values, first the (p+1)^2 terms harm[j] of M folded (fold above),
/// then M's terms rest[i] as they are. For eps = 0 a row's first (q+1)^2 values are the folded
/// multipole of order q <= p, all the harmonic M2L reads; the rest makes the row invertible.
/// H = the row of M (layout of m); H and M distinct.
void harmonic_row(const MultiIndex& m, const double* M, double* H);
/// M (layout of m) = the multipole of the harmonic row H; H and M distinct. M's terms with
/// kz <= 1 are H's less the fold of its rest, to rounding.
void layout_row(const MultiIndex& m, const double* H, double* M);

/// The tables of order p, built once per order and kept; thread-safe. Throws simscope::Error
/// when p is outside [0, kMaxOrder].
const MultiIndex& multi_index(int p);

}  // namespace simscope::field::tree
