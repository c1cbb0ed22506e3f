#pragma once
/// @file Cartesian Taylor expansions of the softened kernel G(r) = (|r|^2 + eps^2)^(-1/2) for
/// the tree method. Not a public API.
///
/// Notation (multi-indices k, k! = kx! ky! kz!, r^k = rx^kx ry^ky rz^kz; layout: multi_index.hpp):
///   D_k(R) = d^k G / dR^k, the derivatives of the kernel, computed by the recurrence
///     |k| R2 D_k = -(2|k| - 1) sum_c R_c k_c D_{k-e_c} - (|k| - 1) sum_c k_c (k_c - 1) D_{k-2e_c}
///   with R2 = |R|^2 + eps^2. This is the recurrence of the Taylor coefficients of the
///   regularised kernel (Lindsay & Krasny, J. Comput. Phys. 172 (2001) 879), written for
///   D_k = k! a_k. It holds for eps = 0 (Coulomb) and eps > 0 alike, so the far field is the
///   Taylor series of the softened kernel itself, not of 1/r.
///   Multipole of a cell about c (scaled): M_k = sum_j q_j (c - y_j)^k / k!, so that
///     phi(x) = sum_j q_j G(x - y_j) = sum_k M_k D_k(x - c)            (M2P)
///   Local expansion about z (scaled): phi(z + h) = sum_n L_n h^n / n!, with
///     L_n = sum_k M_k D_{n+k}(z - c)                                  (M2L)
///   Shifts: M_k(parent) = sum_{m+j=k} M_m(child) s^j / j!, s = c_parent - c_child  (M2M);
///           L_m(child) = sum_j L_{m+j}(parent) s^j / j!, s = z_child - z_parent   (L2L).
/// The scaling by 1/k! makes every operator a plain sum of products over index pairs. Dehnen,
/// "A fast multipole method for stellar dynamics", Comput. Astrophys. Cosmol. 1 (2014) 1, uses
/// the same scaled Cartesian form with traceless tensors; these are the plain, non-traceless
/// tensors, which any kernel of |r|^2 allows. Truncation: |n| + |k| <= p throughout.
/// Accumulators follow the direct evaluator's convention: acc[0..2] += sum q (x - y) / r^3,
/// i.e. minus the gradient of phi, and acc[3] += phi.
#include <cstddef>

#include "field/tree/multi_index.hpp"
#include "core/isa.hpp"

namespace simscope::field::tree {

SIMSCOPE_ISA_BEGIN

/// P[k] = r^k / k! for |k| <= m.order.
void scaled_powers(const MultiIndex& m, double rx, double ry, double rz, double* P);

/// D[k] = D_k(R) for |k| <= m.order, with R = (rx, ry, rz) and R2 = |R|^2 + eps2 > 0.
void derivatives(const MultiIndex& m, double rx, double ry, double rz, double eps2, double* D);

/// One step of the recurrence above for 8 lanes (m2l8, m2l8_harmonic's table form): row i of
/// D (D[8 i + l], lane l) from its rows of lower degree, with r[c][l] = R_c and inv2[l] = 1 / R2
/// of lane l. The rows it reads must be made.
[[gnu::always_inline]] inline void derivative_row8(const MultiIndex& m, int i,
                                                   const double (&r)[3][8], const double* inv2,
                                                   double* D) {
  constexpr std::size_t kL = 8;
  const double a0 = m.rec_a_coef[0][i], a1 = m.rec_a_coef[1][i], a2 = m.rec_a_coef[2][i];
  const double b0 = m.rec_b_coef[0][i], b1 = m.rec_b_coef[1][i], b2 = m.rec_b_coef[2][i];
  const double* __restrict f0 = D + std::size_t(m.rec_a[0][i]) * kL;
  const double* __restrict f1 = D + std::size_t(m.rec_a[1][i]) * kL;
  const double* __restrict f2 = D + std::size_t(m.rec_a[2][i]) * kL;
  const double* __restrict g0 = D + std::size_t(m.rec_b[0][i]) * kL;
  const double* __restrict g1 = D + std::size_t(m.rec_b[1][i]) * kL;
  const double* __restrict g2 = D + std::size_t(m.rec_b[2][i]) * kL;
  double* __restrict d = D + std::size_t(i) * kL;
#pragma omp simd
  for (std::size_t l = 0; l < kL; ++l)
    d[l] = inv2[l] * (a0 * r[0][l] * f0[l] + a1 * r[1][l] * f1[l] + a2 * r[2][l] * f2[l] +
                      b0 * g0[l] + b1 * g1[l] + b2 * g2[l]);
}

/// M += the scaled multipole about c of n sources, given as fp32 SoA.
void p2m(const MultiIndex& m, const double c[3], const float* x, const float* y, const float* z,
         const float* q, int n, double* M);

/// M (about c_parent) += the child's Mc (about c_child).
void m2m(const MultiIndex& m, const double c_parent[3], const double c_child[3], const double* Mc,
         double* M);

/// M (about c_parent) += the multipoles of n <= 8 children: n calls of m2m() at once,
/// vectorised across children. Child l's term a is at Mc[8 a + l], about c_child[l]; lanes >= n
/// of Mc are zero.
void m2m8(const MultiIndex& m, const double c_parent[3], int n, const double (*c_child)[3],
          const double* Mc, double* M);

/// L (about z) += the local expansion of the multipole M (about c). D is scratch of m.count.
void m2l(const MultiIndex& m, const double z[3], const double c[3], double eps2, const double* M,
         double* L, double* D);

/// M2L of up to 8 source cells into one target cell at once, vectorised across them. For lanes
/// l < n, L[8 a + l] += the local expansion about z of the multipole M[8 k + l] about c[l], at
/// order m.order; a prefix of a larger layout is fine. Lanes of M >= n must be zero. D is
/// scratch of 8 m.count doubles. M, L and D are 64-byte aligned.
void m2l8(const MultiIndex& m, const double z[3], const double (*c)[3], int n, double eps2,
          const double* M, double* L, double* D);

/// m2l8() for eps = 0 in the harmonic form (multi_index.hpp harm; m2l_harmonic.cpp): the same
/// local expansion to rounding, with (p+1)^2 multipole and output terms instead of terms(p)
/// (order 7: 876 index pairs instead of 1716). M holds the folded multipoles, the first (p+1)^2
/// values of their harmonic rows (multi_index.hpp harmonic_row): M[8 j + l] for lane l, lanes
/// >= n zero. Only L's rows harm[o] get their sums; unfold_local() makes the others, once for
/// the sum of all of a cell's M2Ls.
void m2l8_harmonic(const MultiIndex& m, const double z[3], const double (*c)[3], int n,
                   const double* M, double* L, double* D);

/// m2l8()'s M (M[8 k + l], layout of m) from 8 lanes of harmonic rows of a higher or equal
/// order (multi_index.hpp layout_row): H[8 j + l] their first (m.order+1)^2 values, R[8 i + l]
/// their values rest[i] of m (the rest part's first m.rest.size()). M distinct from H and R.
void layout_rows8(const MultiIndex& m, const double* H, const double* R, double* M);

/// Sets L's terms with nz >= 2 from those with nz <= 1 (multi_index.hpp fold), for a local
/// expansion of the harmonic kernel of order m.order whose terms with nz <= 1 hold the sums.
void unfold_local(const MultiIndex& m, double* L);

/// Lc (about z_child) += the parent's L (about z_parent) shifted.
void l2l(const MultiIndex& m, const double z_parent[3], const double z_child[3], const double* L,
         double* Lc);

/// acc += the local expansion L (about z) evaluated at x, in the direct convention above. P is
/// scratch of m.count.
void l2p(const MultiIndex& m, const double z[3], const double* L, double x, double y, double z_,
         double acc[4], double* P);

/// l2p() at n <= 8 points (x[l], y[l], zz[l]) at once, vectorised across them. acc[4 l ..] as
/// l2p()'s acc. P is scratch of 8 m.count doubles.
void l2p8(const MultiIndex& m, const double z[3], const double* L, int n, const double* x,
          const double* y, const double* zz, double* acc, double* P);

/// acc += the multipole M (about c) evaluated at x with the derivatives of order m.order + 1,
/// mp1 = multi_index(m.order + 1). D is scratch of mp1.count. Used by the tests.
void m2p(const MultiIndex& m, const MultiIndex& mp1, const double c[3], double eps2,
         const double* M, double x, double y, double z, double acc[4], double* D);

SIMSCOPE_ISA_END
}  // namespace simscope::field::tree
