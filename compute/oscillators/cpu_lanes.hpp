#pragma once
/// @file CPU RK4 kernels with one SIMD lane per member. Internal to oscillators_cpu.cpp.
///
/// A group of G members whose tables share a form, a ring lattice of half-width H (rings, most
/// Watts-Strogatz networks) or ELL (ell_lanes), is integrated together. Node i of the G members is one vector `V` of G values of T;
/// lane l is member l. The lattice stencil, stage loops and msd become whole-vector operations
/// over the nodes, with one loop instead of G and no remainder loop.
/// Each lane performs exactly the operations of the per-member kernels of oscillators_cpu.cpp,
/// in the same order, so results are bit-identical (tests/compute/oscillators/test_osc_schedule.cpp).
/// Only the members' correction lists stay scalar, since they differ per member.
/// oscillators_cpu.cpp is compiled with -ffp-contract=off (compute/CMakeLists.txt), so no
/// product is fused and equality does not depend on which loops the compiler vectorises.
#include <cstddef>
#include <cstdint>

#include "core/register_lanes.hpp"
#include "oscillators/sl_rhs.hpp"

// Lane vectors pass by value only between these inline helpers, never across a library
// boundary, so GCC's note that their ABI depends on AVX/AVX-512 does not apply.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"

namespace simscope::oscillators::detail {

/// Members per lane group: one register of doubles at the level this file is compiled for (8 at
/// x86-64-v4, 4 at v3, 2 at v2). Wider GCC vectors are split through the stack and stall on
/// store forwarding (8 lanes at v3 ran 4x slower than 4: tests/bench/NOTES.md). Results do not
/// depend on it (each lane performs the per-member operations).
constexpr int kLanes = kRegisterDoubles;

/// G values of T as one GCC vector. Lanes are read and written by subscript.
template <typename T>
struct LaneVec {
  typedef T type __attribute__((vector_size(sizeof(T) * kLanes)));
};
template <typename T>
using Lanes = typename LaneVec<T>::type;

/// The lanes of a T vector as a double vector. Exact: float to double, or a copy.
template <typename T>
inline Lanes<double> to_double(Lanes<T> v) {
  if constexpr (sizeof(T) == sizeof(double))
    return v;
  else
    return __builtin_convertvector(v, Lanes<double>);
}

/// Sets every lane to s.
template <typename V, typename T>
inline V splat(T s) {
  V v;
  for (int l = 0; l < kLanes; ++l) v[l] = s;
  return v;
}

/// Fills the wrapped-around halos of the lane ring: c[-d] = c[N - d], c[N - 1 + d] = c[d - 1].
template <typename V>
void fill_halo_lanes(V* c, int N, int H) {
  for (int d = 1; d <= H; ++d) c[-d] = c[N - d], c[N - 1 + d] = c[d - 1];
}

/// nsum[i] = (src[i-1] + src[i+1]) + (src[i-2] + src[i+2]) + ..., d = 1..H in that order.
/// H = 0 takes any half-width h in passes, with the same sums as the per-member stencil's two
/// forms.
template <typename V, int H>
void stencil_lanes(const V* __restrict src, V* __restrict nsum, int N, int h) {
  if constexpr (H > 0) {
    for (int i = 0; i < N; ++i) {
      V a = src[i - 1] + src[i + 1];
      if constexpr (H >= 2) a += src[i - 2] + src[i + 2];
      if constexpr (H >= 3) a += src[i - 3] + src[i + 3];
      nsum[i] = a;
    }
  } else {
    for (int i = 0; i < N; ++i) nsum[i] = src[i - 1] + src[i + 1];
    for (int d = 2; d <= h; ++d)
      for (int i = 0; i < N; ++i) nsum[i] += src[i - d] + src[i + d];
  }
}

/// T that may alias anything. The correction lists read and write single lanes of the node
/// vectors at node * kLanes + lane.
template <typename T>
struct LaneScalar {
  typedef T type __attribute__((__may_alias__));
};

/// A group's correction list: entry r adds w[r] times source lane srcj[r] to lane dst[r], both
/// at node * kLanes + lane. Entries keep each member's list order.
template <typename V, typename T>
void corrections_lanes(const std::int32_t* __restrict dst, const std::int32_t* __restrict srcj,
                       const T* __restrict w, std::size_t R, const V* __restrict src_v,
                       V* __restrict ns_v) {
  using S = typename LaneScalar<T>::type;
  const S* __restrict src = reinterpret_cast<const S*>(src_v);
  S* __restrict ns = reinterpret_cast<S*>(ns_v);
#pragma GCC unroll 4
  for (std::size_t r = 0; r < R; ++r) ns[dst[r]] += w[r] * src[srcj[r]];
}

/// The correction list of a group of unweighted graphs: all entries are +1 or -1, and each
/// node's +1 entries come before its -1 ones. The na entries of `add` come first, then the nm of
/// `sub`, at (ad[r], as[r]) and (md[r], ms[r]) as (destination, source), each node * kLanes + lane.
/// Adding or subtracting equals the general list's w * src + ns for w = +-1, an exact product,
/// and each node's entries keep their order.
template <typename V, typename T>
void corrections_unit_lanes(const std::uint16_t* __restrict ad, const std::uint16_t* __restrict as,
                            std::size_t na, const std::uint16_t* __restrict md,
                            const std::uint16_t* __restrict ms, std::size_t nm,
                            const V* __restrict src_v, V* __restrict ns_v) {
  using S = typename LaneScalar<T>::type;
  const S* __restrict src = reinterpret_cast<const S*>(src_v);
  S* __restrict ns = reinterpret_cast<S*>(ns_v);
#pragma GCC unroll 4
  for (std::size_t r = 0; r < na; ++r) ns[ad[r]] += src[as[r]];
#pragma GCC unroll 4
  for (std::size_t r = 0; r < nm; ++r) ns[md[r]] -= src[ms[r]];
}

/// The neighbour sums of a group of ELL tables (oscillators_cpu.cpp, Table with H = 0): nsum = 0,
/// then for each entry e in order, nsum[node[e]] += the lanes of src at idx[e * kLanes + l]
/// (Weighted: times w[e]). Each index is node * kLanes + lane; the entries of a node keep each
/// lane's order of addends. Lanes with fewer addends at a node read a -0.0 slot: x + -0.0 == x.
template <typename V, typename T, bool Weighted>
void ell_lanes(const std::int32_t* __restrict node, const std::int32_t* __restrict idx,
               const V* __restrict w, std::size_t E, const V* __restrict src_v,
               V* __restrict nsum, int N) {
  using S = typename LaneScalar<T>::type;
  const S* __restrict src = reinterpret_cast<const S*>(src_v);
  for (int i = 0; i < N; ++i) nsum[i] = V{};
  for (std::size_t e = 0; e < E; ++e) {
    V g;
    for (int l = 0; l < kLanes; ++l) g[l] = src[idx[e * kLanes + std::size_t(l)]];
    if constexpr (Weighted)
      nsum[node[e]] += w[e] * g;
    else
      nsum[node[e]] += g;
  }
}

/// RK4 stages over the N nodes of G members: the per-member stage_first/mid/last, lane-wise.
/// Stage 1: k1 at (x, y) -> acc = k1, next = x + hn k1.
template <typename V, typename T>
void stage_first_lanes(const V* __restrict x, const V* __restrict y, const V* __restrict nsum,
                       const V* __restrict diag, V* __restrict ax, V* __restrict ay,
                       V* __restrict xs, V* __restrict ys, int N, T om_s, T c_s, T he_s, T hn_s) {
  const V om = splat<V>(om_s), c = splat<V>(c_s), he = splat<V>(he_s), hn = splat<V>(hn_s);
  for (int i = 0; i < N; ++i) {
    V dx, dy;
    sl_rhs(x[i], y[i], nsum[i], diag[i], om, c, he, dx, dy);
    ax[i] = dx, ay[i] = dy;
    xs[i] = x[i] + hn * dx, ys[i] = y[i] + hn * dy;
  }
}
/// Stages 2 and 3: k at (xs, ys) -> acc += 2 k, next = x + hn k, in place.
template <typename V, typename T>
void stage_mid_lanes(const V* __restrict x, const V* __restrict y, const V* __restrict nsum,
                     const V* __restrict diag, V* __restrict ax, V* __restrict ay, V* __restrict xs,
                     V* __restrict ys, int N, T om_s, T c_s, T he_s, T hn_s) {
  const V om = splat<V>(om_s), c = splat<V>(c_s), he = splat<V>(he_s), hn = splat<V>(hn_s);
  const V two = splat<V>(T(2));
  for (int i = 0; i < N; ++i) {
    V dx, dy;
    sl_rhs(xs[i], ys[i], nsum[i], diag[i], om, c, he, dx, dy);
    ax[i] += two * dx, ay[i] += two * dy;
    xs[i] = x[i] + hn * dx, ys[i] = y[i] + hn * dy;
  }
}
/// Stage 4: k4 at (xs, ys) -> x += h/6 (acc + k4).
template <typename V, typename T>
void stage_last_lanes(V* __restrict x, V* __restrict y, const V* __restrict nsum,
                      const V* __restrict diag, V* __restrict ax, V* __restrict ay,
                      const V* __restrict xs, const V* __restrict ys, int N, T om_s, T c_s, T he_s,
                      T h6_s) {
  const V om = splat<V>(om_s), c = splat<V>(c_s), he = splat<V>(he_s), h6 = splat<V>(h6_s);
  for (int i = 0; i < N; ++i) {
    V dx, dy;
    sl_rhs(xs[i], ys[i], nsum[i], diag[i], om, c, he, dx, dy);
    ax[i] += dx, ay[i] += dy;
    x[i] += h6 * ax[i], y[i] += h6 * ay[i];
  }
}

/// Each lane's (1/N) sum (x - mean)^2 in fp64, into `out`. Lane-wise msd_of: two passes with 8
/// partial sums over the nodes, combined in the same order.
template <typename T>
void msd_lanes(const Lanes<T>* __restrict x, int N, Lanes<double>& out) {
  using VD = Lanes<double>;
  VD acc[8] = {};
  int i = 0;
  for (; i + 8 <= N; i += 8)
    for (int j = 0; j < 8; ++j) acc[j] += to_double<T>(x[i + j]);
  VD mean = {};
  for (; i < N; ++i) mean += to_double<T>(x[i]);
  mean += ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
  mean /= double(N);
  for (VD& a : acc) a = VD{};
  i = 0;
  for (; i + 8 <= N; i += 8)
    for (int j = 0; j < 8; ++j) {
      const VD d = to_double<T>(x[i + j]) - mean;
      acc[j] += d * d;
    }
  VD ss = {};
  for (; i < N; ++i) ss += (to_double<T>(x[i]) - mean) * (to_double<T>(x[i]) - mean);
  ss += ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
  out = ss / double(N);
}

}  // namespace simscope::oscillators::detail

#pragma GCC diagnostic pop
