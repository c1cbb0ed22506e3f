// The harmonic M2L of the tree method (expansions.hpp m2l8_harmonic): for eps = 0 the kernel
// 1/r is harmonic, D_{k+2ex} + D_{k+2ey} + D_{k+2ez} = 0, so a multipole's terms with kz >= 2
// fold into those with kz <= 1 and a local expansion's terms with nz >= 2 follow from those
// with nz <= 1 (multi_index.hpp harm, fold). The multipoles come folded: the source tree keeps
// its rows in the harmonic row form (multi_index.hpp harmonic_row). Order 7 takes 876 index
// pairs instead of 1716, and only the derivatives with kz <= 2: those with kz <= 1 by the
// recurrence, kz = 2 by the identity.
//
// Orders up to kUnrolled are compiled one kernel per order from tables made at compile time:
// every index is an immediate offset, every coefficient a constant, so the kernel is its FMAs
// and their loads. Higher orders run the same arithmetic from the run-time tables.
#include <array>
#include <cmath>
#include <utility>

#include "field/tree/expansions.hpp"

// V8 passes by value only between these always-inlined functions of one file, so the vector
// ABI's warning at the baseline level (no AVX-512) does not apply.
#pragma GCC diagnostic ignored "-Wpsabi"

namespace simscope::field::tree {

SIMSCOPE_ISA_BEGIN

namespace {

constexpr int kL = 8;  ///< lanes: source cells per call
typedef double V8 __attribute__((vector_size(kL * sizeof(double)), aligned(64)));

/// The highest order with a kernel of its own.
constexpr int kUnrolled = 9;

/// Layout index of the j-th multi-index with kz <= 1 (multi_index.hpp harm): degree d holds
/// j in [d^2, (d+1)^2), by decreasing kx, and for each kx kz = 0 then kz = 1.
struct Harm {
  int kx, ky, kz;
};
constexpr Harm harm_k(int j) {
  int d = 0;
  while ((d + 1) * (d + 1) <= j) ++d;
  int t = j - d * d;
  for (int kx = d; kx >= 0; --kx) {
    if (t == 0) return {kx, d - kx, 0};
    --t;
    if (d - kx >= 1) {
      if (t == 0) return {kx, d - kx - 1, 1};
      --t;
    }
  }
  return {0, 0, 0};
}
constexpr int harm_index(int j) {
  const Harm h = harm_k(j);
  return index_of(h.kx, h.ky, h.kz);
}
/// Layout index of harm j + harm b.
constexpr int harm_sum(int j, int b) {
  const Harm a = harm_k(j), c = harm_k(b);
  return index_of(a.kx + c.kx, a.ky + c.ky, a.kz + c.kz);
}

/// One derivative row by the recurrence (expansions.hpp), for kz <= 1: coefficient 0 where a
/// term is absent.
struct Row {
  int i;
  int a_src[3];
  double a_coef[3];
  int b_src[3];
  double b_coef[3];
};
constexpr Row deriv_row(int kx, int ky, int kz) {
  const int n = kx + ky + kz, k[3] = {kx, ky, kz};
  Row r{index_of(kx, ky, kz), {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
  for (int c = 0; c < 3; ++c) {
    int d[3] = {kx, ky, kz};
    if (k[c] >= 1) {
      d[c] = k[c] - 1;
      r.a_src[c] = index_of(d[0], d[1], d[2]);
      r.a_coef[c] = -double(2 * n - 1) * double(k[c]) / double(n);
    }
    if (k[c] >= 2) {
      d[c] = k[c] - 2;
      r.b_src[c] = index_of(d[0], d[1], d[2]);
      r.b_coef[c] = -double(n - 1) * double(k[c] * (k[c] - 1)) / double(n);
    }
  }
  return r;
}

[[gnu::always_inline]] inline V8 load(const double* p) { return *reinterpret_cast<const V8*>(p); }
[[gnu::always_inline]] inline void store(double* p, const V8& v) { *reinterpret_cast<V8*>(p) = v; }

template <int V>
using Int = std::integral_constant<int, V>;
template <int N>
using Seq = std::make_integer_sequence<int, N>;

/// One term of D's row w: axis C's recurrence terms, where present.
template <const Row& w, int C>
[[gnu::always_inline]] inline void derivative_term(V8& t, const double* D, const V8 (&r)[3]) {
  if constexpr (w.a_coef[C] != 0) t += w.a_coef[C] * (r[C] * load(D + w.a_src[C] * kL));
  if constexpr (w.b_coef[C] != 0) t += w.b_coef[C] * load(D + w.b_src[C] * kL);
}
template <int J>
struct DerivRow {
  static constexpr Harm h = harm_k(J);
  static constexpr Row w = deriv_row(h.kx, h.ky, h.kz);
};
/// D's row of harm index J >= 1 (kz <= 1) by the recurrence.
template <int J, int... C>
[[gnu::always_inline]] inline void derivative(double* D, const V8 (&r)[3], const V8& inv2, std::integer_sequence<int, C...>) {
  V8 t = {};
  (derivative_term<DerivRow<J>::w, C>(t, D, r), ...);
  store(D + DerivRow<J>::w.i * kL, t * inv2);
}
/// D's row (a, n - 2 - a, 2) = -D_(a+2,b,0) - D_(a,b+2,0).
template <int n, int a>
[[gnu::always_inline]] inline void derivative_z2(double* D) {
  constexpr int b = n - 2 - a;
  store(D + index_of(a, b, 2) * kL,
        -load(D + index_of(a + 2, b, 0) * kL) - load(D + index_of(a, b + 2, 0) * kL));
}
/// D's rows of degree n: those with kz <= 1 by the recurrence, then kz = 2 by the identity.
template <int n, int... J, int... A>
[[gnu::always_inline]] inline void derivatives_degree(double* D, const V8 (&r)[3], const V8& inv2,
                               std::integer_sequence<int, J...>,
                               std::integer_sequence<int, A...>) {
  (derivative<n * n + J>(D, r, inv2, Seq<3>{}), ...);
  (derivative_z2<n, A>(D), ...);
}
template <int... N>
[[gnu::always_inline]] inline void derivatives_all(double* D, const V8 (&r)[3], const V8& inv2,
                            std::integer_sequence<int, N...>) {
  (derivatives_degree<N + 1>(D, r, inv2, Seq<2 * N + 3>{}, Seq<N>{}), ...);
}

/// Accumulators of the outputs of degree d: S partial sums each to cover the FMA latency.
template <int P, int d>
struct Acc {
  static constexpr int O = 2 * d + 1, R = (P - d + 1) * (P - d + 1), S = (8 + O - 1) / O;
  V8 v[O][S] = {};
};
/// acc[q] += M[harm b] D[harm (d^2 + q) + harm b] for each output q of degree d.
template <int P, int d, int B, int... Q>
[[gnu::always_inline]] inline void contract_b(const double* M, const double* D, Acc<P, d>& acc,
                       std::integer_sequence<int, Q...>) {
  const V8 mb = load(M + B * kL);
  constexpr int S = Acc<P, d>::S;
  ((acc.v[Q][B % S] += mb * load(D + Int<harm_sum(d * d + Q, B)>::value * kL)), ...);
}
template <int P, int d, int Q>
[[gnu::always_inline]] inline void contract_out(const Acc<P, d>& acc, double* L) {
  V8 s = acc.v[Q][0];
  for (int k = 1; k < Acc<P, d>::S; ++k) s += acc.v[Q][k];
  double* l = L + Int<harm_index(d * d + Q)>::value * kL;
  store(l, load(l) + s);
}
/// L's rows of degree d += sum over harm b < (P-d+1)^2 of M[harm b] D[harm o + harm b].
template <int P, int d, int... B, int... Q>
[[gnu::always_inline]] inline void contract(const double* M, const double* D, double* L, std::integer_sequence<int, B...>,
                     std::integer_sequence<int, Q...>) {
  Acc<P, d> acc;
  (contract_b<P, d, B>(M, D, acc, Seq<Acc<P, d>::O>{}), ...);
  (contract_out<P, d, Q>(acc, L), ...);
}
template <int P, int... Dg>
[[gnu::always_inline]] inline void contract_all(const double* M, const double* D, double* L,
                         std::integer_sequence<int, Dg...>) {
  (contract<P, Dg>(M, D, L, Seq<Acc<P, Dg>::R>{}, Seq<Acc<P, Dg>::O>{}), ...);
}

template <int P>
void m2l8_harmonic_p(const double z[3], const double (*c)[3], int n, const double* M, double* L,
                     double* D) {
  V8 r[3], inv2;
  for (int l = 0; l < kL; ++l) {
    const int s = l < n ? l : 0;
    for (int a = 0; a < 3; ++a) r[a][l] = z[a] - c[s][a];
  }
  inv2 = 1.0 / (r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
  V8 d0;
  for (int l = 0; l < kL; ++l) d0[l] = std::sqrt(inv2[l]);
  store(D, d0);
  derivatives_all(D, r, inv2, Seq<P>{});
  contract_all<P>(M, D, L, Seq<P + 1>{});
}

/// The same arithmetic from the run-time tables, for any order.
void m2l8_harmonic_tables(const MultiIndex& m, const double z[3], const double (*c)[3], int n,
                          const double* M, double* L, double* D) {
  alignas(64) double r[3][kL], inv2[kL];
  for (int l = 0; l < kL; ++l) {
    const int s = l < n ? l : 0;
    for (int a = 0; a < 3; ++a) r[a][l] = z[a] - c[s][a];
  }
#pragma omp simd
  for (int l = 0; l < kL; ++l) {
    inv2[l] = 1.0 / (r[0][l] * r[0][l] + r[1][l] * r[1][l] + r[2][l] * r[2][l]);
    D[l] = std::sqrt(inv2[l]);
  }
  // The derivatives with kz <= 2 (those of a + b for a, b with kz <= 1); the recurrence reads
  // only lower kz.
  for (const std::int16_t i : m.deriv_z2) derivative_row8(m, i, r, inv2, D);
  const std::int16_t* sum = m.harm_sum.data();
  for (std::size_t o = 0; o < m.harm.size(); ++o) {
    const int d = m.degree[std::size_t(m.harm[o])];
    const int R = (m.order - d + 1) * (m.order - d + 1);
    const std::int16_t* s0 = sum + m.harm_begin[o];
    V8 acc[4] = {};
    for (int b = 0; b < R; ++b)
      acc[b & 3] += load(M + std::size_t(b) * kL) *
                    load(D + std::size_t(s0[b]) * kL);
    double* la = L + std::size_t(m.harm[o]) * kL;
    store(la, load(la) + ((acc[0] + acc[1]) + (acc[2] + acc[3])));
  }
}

/// The kernels of orders kFirstUnrolled .. kUnrolled (M2LOrder's least order is 2).
constexpr int kFirstUnrolled = 2;
template <int... P>
constexpr std::array<void (*)(const double*, const double (*)[3], int, const double*, double*,
                              double*),
                     sizeof...(P)>
kernels(std::integer_sequence<int, P...>) {
  return {&m2l8_harmonic_p<P + kFirstUnrolled>...};
}
constexpr auto kKernels = kernels(Seq<kUnrolled - kFirstUnrolled + 1>{});

}  // namespace

void m2l8_harmonic(const MultiIndex& m, const double z[3], const double (*c)[3], int n,
                   const double* M, double* L, double* D) {
  if (m.order >= kFirstUnrolled && m.order <= kUnrolled)
    kKernels[std::size_t(m.order - kFirstUnrolled)](z, c, n, M, L, D);
  else
    m2l8_harmonic_tables(m, z, c, n, M, L, D);
}

void layout_rows8(const MultiIndex& m, const double* H, const double* R, double* M) {
  // As layout_row(), 8 lanes at once: the fold of the rest alone, with zeros at kz <= 1.
  for (const std::int16_t k : m.harm) store(M + k * kL, V8{});
  for (std::size_t i = 0; i < m.rest.size(); ++i) store(M + m.rest[i] * kL, load(R + i * kL));
  for (std::size_t f = 0; f < m.fold_from.size(); ++f) {
    const V8 v = load(M + m.fold_from[f] * kL);
    double* x = M + m.fold_x[f] * kL;
    double* y = M + m.fold_y[f] * kL;
    store(x, load(x) - v), store(y, load(y) - v);
  }
  for (std::size_t j = 0; j < m.harm.size(); ++j) {
    double* o = M + m.harm[j] * kL;
    store(o, load(H + j * kL) - load(o));
  }
  for (std::size_t i = 0; i < m.rest.size(); ++i) store(M + m.rest[i] * kL, load(R + i * kL));
}

void unfold_local(const MultiIndex& m, double* L) {
  for (std::size_t f = m.fold_from.size(); f-- > 0;)
    L[m.fold_from[f]] = -L[m.fold_x[f]] - L[m.fold_y[f]];
}

SIMSCOPE_ISA_END

}  // namespace simscope::field::tree
