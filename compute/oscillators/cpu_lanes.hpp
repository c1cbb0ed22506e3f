#pragma once
/// @file CPU RK4 kernels with one SIMD lane per member. Internal to oscillators_cpu.cpp.
///
/// A group of G members whose tables share a form, a ring lattice of half-width H (rings, most
/// Watts-Strogatz networks) or ELL (ell_lanes), is integrated together. Node i of the G members is one vector `V` of G values of T;
/// lane l is member l. The lattice stencil, stage loops and msd become whole-vector operations
/// over the nodes, with one loop instead of G and no remainder loop.
/// Each lane performs exactly the operations of the per-member kernels of oscillators_cpu.cpp,
/// in the same order, so results are bit-identical (tests/compute/oscillators/test_osc_schedule.cpp).
/// Only the members' correction lists stay scalar, since they differ per member. Groups of ELL
/// tables run fused (fused_stage_lanes): no scalar lists, each node's sum built in a register.
/// oscillators_cpu.cpp is compiled with -ffp-contract=off (compute/CMakeLists.txt), so no
/// product is fused and equality does not depend on which loops the compiler vectorises.
#include <cstddef>
#include <cstdint>
#if defined(__AVX512F__)
#include <immintrin.h>
#endif

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
                      const V* __restrict diag, const V* __restrict ax, const V* __restrict ay,
                      const V* __restrict xs, const V* __restrict ys, int N, T om_s, T c_s, T he_s,
                      T h6_s) {
  const V om = splat<V>(om_s), c = splat<V>(c_s), he = splat<V>(he_s), h6 = splat<V>(h6_s);
  for (int i = 0; i < N; ++i) {
    V dx, dy;
    sl_rhs(xs[i], ys[i], nsum[i], diag[i], om, c, he, dx, dy);
    const V sx = ax[i] + dx, sy = ay[i] + dy;  // (not stored: the next stage 1 overwrites acc)
    x[i] += h6 * sx, y[i] += h6 * sy;
  }
}

/// v with s added in the lanes whose bit is set in m (bit l = lane l); other lanes keep v's
/// bits. Off AVX-512: v + (s or -0.0), and x + -0.0 == x for every x.
template <typename V>
inline V add_masked(V v, unsigned m, V s) {
#if defined(__AVX512F__)
  if constexpr (sizeof(V) == 64)
    return V(_mm512_mask_add_pd(__m512d(v), __mmask8(m), __m512d(v), __m512d(s)));
  else if constexpr (sizeof(V) == 32 && sizeof(v[0]) == 4)
    return V(_mm256_mask_add_ps(__m256(v), __mmask8(m), __m256(v), __m256(s)));
#endif
  V t;
  for (int l = 0; l < kLanes; ++l) t[l] = (m >> l) & 1u ? s[l] : decltype(v[0] + 0)(-0.0);
  return v + t;
}
/// The neighbour sums of a lane group of ELL tables as per-node programs, for fused_stage_lanes.
/// Lane l's sum at node i starts at +0.0 and adds its neighbours in its table's order (its slots,
/// then its list entries; member() adds the padding slots' +0.0, a no-op on a sum that starts at
/// +0.0). An op (src, mask) adds node src's vector in the lanes of mask: a lane's sources are the
/// same lane of other nodes, so one op serves every lane whose next addend has that source node
/// (a lane's ops come in its order). Nodes are visited in perm order, cut into segments of equal op counts (seg_n,
/// seg_end: the end in perm) so the inner loop's trip count changes only between segments.
/// (Rings + corrections in this form, their -1 entries as masked subtractions, ran slower than
/// the unfused lanes: tests/bench/NOTES.md.)
struct NodeOps {
  const std::uint16_t* perm = nullptr;
  const std::int32_t* seg_n = nullptr;
  const std::int32_t* seg_end = nullptr;
  int segs = 0;
  const std::uint16_t* src = nullptr;  // per op, in perm order
  const std::uint8_t* mask = nullptr;
};

/// One RK4 stage of a lane group of ELL tables in one pass over the nodes: each node's neighbour
/// sum (NodeOps, in a register) then its stage update, the operations of ell_lanes and
/// stage_first/mid/last_lanes in their order. `src` holds the stage's input values (x for
/// Stage 0; `x` unused there); the next stage's input goes to `xn`, never `src`.
/// Stage 0: k1 at (x, y): acc = k1, xn = x + hk k1, ys = y + hk k1. Stage 1: k at (src, ys):
/// acc += 2 k, xn = x + hk k, ys = y + hk k. Stage 2: k4 at (src, ys): x += hk (acc + k4),
/// y likewise (acc is not stored: the next step's stage 0 overwrites it).
template <typename V, typename T, int Stage>
void fused_stage_lanes(const NodeOps& p, const V* __restrict src, V* __restrict xn,
                       V* __restrict x, V* __restrict y, V* __restrict ys, V* __restrict ax,
                       V* __restrict ay, const V* __restrict diag, T om_s, T c_s, T he_s,
                       T hk_s) {
  const V om = splat<V>(om_s), c = splat<V>(c_s), he = splat<V>(he_s), hk = splat<V>(hk_s);
  const V two = splat<V>(T(2));
  const std::uint16_t* __restrict os = p.src;
  const std::uint8_t* __restrict omk = p.mask;
  const auto stage = [=](int i, V v) {
    V dx, dy;
    if constexpr (Stage == 0) {
      const V xi = src[i], yi = y[i];
      sl_rhs(xi, yi, v, diag[i], om, c, he, dx, dy);
      ax[i] = dx, ay[i] = dy;
      xn[i] = xi + hk * dx, ys[i] = yi + hk * dy;
    } else if constexpr (Stage == 1) {
      sl_rhs(src[i], ys[i], v, diag[i], om, c, he, dx, dy);
      ax[i] += two * dx, ay[i] += two * dy;
      xn[i] = x[i] + hk * dx, ys[i] = y[i] + hk * dy;
    } else {
      sl_rhs(src[i], ys[i], v, diag[i], om, c, he, dx, dy);
      const V a = ax[i] + dx, b = ay[i] + dy;
      x[i] += hk * a, y[i] += hk * b;
    }
  };
  // B nodes of a segment at a time, their dependency chains interleaved.
  const std::uint16_t* __restrict perm = p.perm;
  const auto block = [&]<int B>(int q, int n) {
    int idx[B];
    V v[B];
    for (int b = 0; b < B; ++b) idx[b] = perm[q + b], v[b] = V{};
    for (int a = 0; a < n; ++a)
      for (int b = 0; b < B; ++b) v[b] = add_masked(v[b], omk[b * n + a], src[os[b * n + a]]);
    os += B * n, omk += B * n;
    for (int b = 0; b < B; ++b) stage(idx[b], v[b]);
  };
  int q = 0;
  for (int g = 0; g < p.segs; ++g) {
    const int n = p.seg_n[g], end = p.seg_end[g];
    for (; q + 4 <= end; q += 4) block.template operator()<4>(q, n);
    if (q + 2 <= end) block.template operator()<2>(q, n), q += 2;
    if (q < end) block.template operator()<1>(q, n), ++q;
  }
}

/// One RK4 step of a fused lane group (fused_stage_lanes): stages at x, xs = x + h/2 k1,
/// xt = x + h/2 k2, xs = x + h k3, each stage's input in its own buffer.
template <typename V, typename T>
void fused_step_lanes(const NodeOps& p, V* x, V* xs, V* xt, V* y, V* ys, V* ax, V* ay,
                      const V* diag, T om, T c, T he, T h2, T h, T h6) {
  fused_stage_lanes<V, T, 0>(p, x, xs, nullptr, y, ys, ax, ay, diag, om, c, he, h2);
  fused_stage_lanes<V, T, 1>(p, xs, xt, x, y, ys, ax, ay, diag, om, c, he, h2);
  fused_stage_lanes<V, T, 1>(p, xt, xs, x, y, ys, ax, ay, diag, om, c, he, h);
  fused_stage_lanes<V, T, 2>(p, xs, nullptr, x, y, ys, ax, ay, diag, om, c, he, h6);
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
