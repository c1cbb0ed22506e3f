// The CPU ensemble (ensemble.hpp, Ensemble): OpenMP over members. Each member is integrated by
// a tight RK4 on its network's neighbour table, its state in cache-resident arrays.
//
// Per step and member: four stages. Each stage gathers sum_j G_ij xs_j through the Table, without
// a dense G.X, then runs one vectorised loop over the nodes (sl_rhs.hpp). That loop also forms
// the next stage's input and the RK4 sum k1 + 2 k2 + 2 k3 + k4. Then the msd of the new x is
// computed in two passes when needed, after the transient or at a sample; R only at samples.
// Work is split into chunks of steps. Between chunks, the samples of all members are reduced in
// member order, which is deterministic; progress is reported and cancellation checked.
// Each member's table is built once and kept across chunks within a byte budget.
// Members whose tables have the same form (ELL, or ring + corrections of one half-width, e.g.
// rings and most Watts-Strogatz networks) are integrated in groups of kLanes, one SIMD lane per
// member (group(), cpu_lanes.hpp). A group's state, stage buffers and correction lists stay in
// cache for the chunk's steps.
// Groups of unweighted ELL tables run fused: per stage one pass over the nodes, each node's
// neighbour sum in a register then its stage update (fused_stage_lanes, build_node_ops).
// Each lane performs member()'s operations in member()'s order, so results are bit-identical.
// detail::set_cpu_lanes(false) runs member() only, set_cpu_fused(false) the unfused lanes; tests
// compare them.
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <limits>
#include <new>

#include "core/error.hpp"
#include "oscillators/cpu_lanes.hpp"
#include "oscillators/oscillators_internal.hpp"
#include "oscillators/sl_rhs.hpp"

// Lane vectors of cpu_lanes.hpp pass by value only between functions of this file, so GCC's
// note that their ABI depends on AVX-512 does not apply.
#pragma GCC diagnostic ignored "-Wpsabi"

namespace simscope::oscillators {
namespace {

using detail::kMsdWindow;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
/// Work per chunk in oscillator-steps, the minimum chunk in steps, and the sample buffer's size
/// in values per series.
constexpr double kChunkOscSteps = 2e7;
constexpr std::int64_t kMinChunk = 32;
constexpr std::int64_t kSampleValues = 4000000;

/// A graph's neighbour table, for gathers without branches. A loop over each CSR row would
/// mispredict its exit branch at almost every node when degrees vary.
/// build_table() chooses the cheaper of two forms:
///  - ring + corrections (H > 0): the ring lattice of half-width H as a stencil over contiguous
///    values, c[i - d] + c[i + d] for d = 1..H, with wrapped-around halos in the sources. A signed
///    list of (node, neighbour, weight) adds edges outside the lattice and removes missing
///    lattice edges. A Watts-Strogatz network needs ~2 p corrections per edge; an exact ring none.
///  - ELLPACK (H = 0): D slots per node. idx[d * N + i] is the d-th neighbour of node i, padded
///    with N, the sources' zero slot. wt[d * N + i] is its weight for weighted graphs, padded
///    with 0. Neighbours beyond D go in the list.
/// The list is ordered by position, then node, so consecutive entries update different nodes.
/// Costs in units of a gathered value: a stencil value 1/4; a list entry 3, for scalar load,
/// load, add and store.
template <typename T>
struct Table {
  int H = 0;
  int D = 0;
  std::vector<std::int32_t> idx;
  std::vector<T> wt;
  std::vector<std::int32_t> li, lj;
  std::vector<T> lw;
  /// Heap bytes held. Members' tables kept between chunks count against a budget.
  std::size_t bytes() const {
    return idx.capacity() * sizeof(std::int32_t) + wt.capacity() * sizeof(T) +
           (li.capacity() + lj.capacity()) * sizeof(std::int32_t) + lw.capacity() * sizeof(T);
  }
};

/// Scratch of build_table(), kept per thread to avoid allocations per member and chunk.
struct TableScratch {
  struct Entry {
    int pos, i, j;
    double w;
  };
  std::vector<Entry> entries;
  std::vector<std::int64_t> count, count2;
  std::vector<char> present;
};

/// The widest ring lattice tried as a base. The sources' halos hold this many values.
constexpr int kMaxRingHalf = 8;
/// The most addends per node a group of ELL tables takes in lanes; deeper groups run member by
/// member.
constexpr int kMaxEllLanes = 16;

template <typename T>
void build_table(const std::int64_t* row, const std::int32_t* col, const double* w, int N,
                 Table<T>& e, TableScratch& scr) {
  const std::int64_t nnz = row[N] - row[0];
  int Dmax = 0;
  for (int i = 0; i < N; ++i) Dmax = std::max(Dmax, int(row[i + 1] - row[i]));
  // ELL: more[d] = nodes with more than d neighbours, i.e. the entries of slot d.
  auto& more = scr.count;
  more.assign(std::size_t(Dmax) + 1, 0);
  for (int i = 0; i < N; ++i)
    for (int d = 0; d < int(row[i + 1] - row[i]); ++d) ++more[std::size_t(d)];
  std::int64_t rem = nnz;
  double best = 3.0 * double(rem);
  int D = 0;
  for (int d = 1; d <= Dmax; ++d) {
    rem -= more[std::size_t(d - 1)];
    const double cost = double(d) * N + 3.0 * double(rem);
    if (cost < best) best = cost, D = d;
  }
  // Ring + corrections, from a histogram of ring distances. Let in(h) be the lattice entries
  // present at distance <= h, and off(h) those of them whose weight is not 1. The list holds
  // nnz - in(h) entries outside the lattice, 2 h N - in(h) missing ones, and off(h).
  const int Hmax = std::min(kMaxRingHalf, (N - 1) / 2);
  auto& near = scr.count2;  // [dist][0: entries, 1: weight != 1], dist 1..Hmax
  near.assign(2 * (std::size_t(Hmax) + 1), 0);
  for (int i = 0; i < N; ++i)
    for (std::int64_t q = row[i]; q < row[i + 1]; ++q) {
      const int a = std::abs(col[q] - i), dist = std::min(a, N - a);
      if (dist <= Hmax) {
        ++near[2 * std::size_t(dist)];
        if (w && w[q] != 1.0) ++near[2 * std::size_t(dist) + 1];
      }
    }
  int H = 0;
  std::int64_t in = 0, off = 0;
  for (int h = 1; h <= Hmax; ++h) {
    in += near[2 * std::size_t(h)], off += near[2 * std::size_t(h) + 1];
    const std::int64_t corr = (nnz - in) + (2 * std::int64_t(h) * N - in) + off;
    const double cost = 0.25 * 2 * h * N + 3.0 * double(corr);
    if (cost < best) best = cost, H = h;
  }
  e.H = H;
  e.D = H > 0 ? 0 : D;
  e.idx.assign(std::size_t(e.D) * N, N);
  e.wt.assign(w && e.D > 0 ? std::size_t(e.D) * N : 0, T(0));
  // The list as (position within the node's entries, node, neighbour, weight), sorted by
  // position, then node.
  auto& ent = scr.entries;
  ent.clear();
  auto weight = [w](std::int64_t q) { return w ? w[q] : 1.0; };
  auto& present = scr.present;  // lattice offsets -H..H present in the current row
  for (int i = 0; i < N; ++i) {
    int pos = 0;
    if (H > 0) {
      present.assign(2 * std::size_t(H) + 1, 0);
      for (std::int64_t q = row[i]; q < row[i + 1]; ++q) {
        const int j = col[q];
        int delta = j - i;  // the signed ring offset in (-N/2, N/2]
        if (delta > N / 2) delta -= N;
        if (delta <= -(N + 1) / 2) delta += N;
        if (delta != 0 && std::abs(delta) <= H) {
          present[std::size_t(delta + H)] = 1;
          if (weight(q) != 1.0) ent.push_back({pos++, i, j, weight(q) - 1.0});
        } else {
          ent.push_back({pos++, i, j, weight(q)});
        }
      }
      for (int delta = -H; delta <= H; ++delta)
        if (delta != 0 && !present[std::size_t(delta + H)])
          ent.push_back({pos++, i, ((i + delta) % N + N) % N, -1.0});
    } else {
      for (std::int64_t q = row[i]; q < row[i + 1]; ++q) {
        const std::int64_t slot = q - row[i];
        if (slot < D) {
          const std::size_t at = std::size_t(slot) * N + i;
          e.idx[at] = col[q];
          if (w) e.wt[at] = T(w[q]);
        } else {
          ent.push_back({pos++, i, col[q], weight(q)});
        }
      }
    }
  }
  std::sort(ent.begin(), ent.end(), [](const auto& a, const auto& b) {
    return a.pos != b.pos ? a.pos < b.pos : a.i < b.i;
  });
  e.li.resize(ent.size()), e.lj.resize(ent.size()), e.lw.resize(ent.size());
  for (std::size_t r = 0; r < ent.size(); ++r)
    e.li[r] = ent[r].i, e.lj[r] = ent[r].j, e.lw[r] = T(ent[r].w);
}

/// nsum[i] = (src[i-1] + src[i+1]) + (src[i-2] + src[i+2]) + ..., for d = 1..H in that order.
template <typename T, int H>
void stencil(const T* __restrict src, T* __restrict nsum, int N) {
  for (int i = 0; i < N; ++i) {
    T a = src[i - 1] + src[i + 1];
    if constexpr (H >= 2) a += src[i - 2] + src[i + 2];
    if constexpr (H >= 3) a += src[i - 3] + src[i + 3];
    nsum[i] = a;
  }
}

/// nsum[i] = sum_j G_ij src[j] through the table. `src` points at the node values. For H > 0 the
/// wrapped halos must be filled (fill_halo); for H = 0 the zero slot src[N] must be 0.
template <typename T, bool Weighted>
void gather_table(const Table<T>& e, const T* __restrict src, T* __restrict nsum, int N) {
  if (e.H > 0) {
    // One pass for the common half-widths: the same sums in the same order as the passes below.
    switch (e.H) {
      case 1:
        stencil<T, 1>(src, nsum, N);
        break;
      case 2:
        stencil<T, 2>(src, nsum, N);
        break;
      case 3:
        stencil<T, 3>(src, nsum, N);
        break;
      default:
        for (int i = 0; i < N; ++i) nsum[i] = src[i - 1] + src[i + 1];
        for (int d = 2; d <= e.H; ++d)
          for (int i = 0; i < N; ++i) nsum[i] += src[i - d] + src[i + d];
    }
  } else {
    const std::int32_t* __restrict idx = e.idx.data();
    const T* __restrict wt = e.wt.data();
    for (int i = 0; i < N; ++i) nsum[i] = T(0);
    for (int d = 0; d < e.D; ++d) {
      const std::int32_t* __restrict id = idx + std::size_t(d) * N;
      if constexpr (Weighted) {
        const T* __restrict wd = wt + std::size_t(d) * N;
        for (int i = 0; i < N; ++i) nsum[i] += wd[i] * src[id[i]];
      } else {
        for (int i = 0; i < N; ++i) nsum[i] += src[id[i]];
      }
    }
  }
  const std::size_t R = e.li.size();
  const std::int32_t* __restrict li = e.li.data();
  const std::int32_t* __restrict lj = e.lj.data();
  const T* __restrict lw = e.lw.data();
  for (std::size_t r = 0; r < R; ++r) nsum[li[r]] += lw[r] * src[lj[r]];
}

/// Fills the wrapped-around halos of a ring: c[-d] = c[N - d], c[N - 1 + d] = c[d - 1], d = 1..H.
template <typename T>
void fill_halo(T* c, int N, int H) {
  for (int d = 1; d <= H; ++d) c[-d] = c[N - d], c[N - 1 + d] = c[d - 1];
}

/// (1/N) sum (x - mean)^2 in two passes with 8 partial sums; vectorised, fixed order.
template <typename T>
double msd_of(const T* __restrict x, int N) {
  double acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  int i = 0;
  for (; i + 8 <= N; i += 8)
    for (int j = 0; j < 8; ++j) acc[j] += double(x[i + j]);
  double mean = 0;
  for (; i < N; ++i) mean += double(x[i]);
  mean += ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
  mean /= N;
  for (double& a : acc) a = 0;
  i = 0;
  for (; i + 8 <= N; i += 8)
    for (int j = 0; j < 8; ++j) {
      const double d = double(x[i + j]) - mean;
      acc[j] += d * d;
    }
  double ss = 0;
  for (; i < N; ++i) ss += (double(x[i]) - mean) * (double(x[i]) - mean);
  ss += ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
  return ss / N;
}

/// RK4 stage loops over the N nodes of one member. Parameters are restrict-qualified so GCC
/// vectorises them. `nsum` holds sum_j G_ij xs_j for the stage.
/// Stage 1: k1 at (x, y) -> acc = k1, next = x + hn k1.
template <typename T>
void stage_first(const T* __restrict x, const T* __restrict y, const T* __restrict nsum,
                 const T* __restrict diag, T* __restrict ax, T* __restrict ay, T* __restrict xs,
                 T* __restrict ys, int N, T om, T c, T he, T hn) {
  for (int i = 0; i < N; ++i) {
    T dx, dy;
    detail::sl_rhs(x[i], y[i], nsum[i], diag[i], om, c, he, dx, dy);
    ax[i] = dx, ay[i] = dy;
    xs[i] = x[i] + hn * dx, ys[i] = y[i] + hn * dy;
  }
}
/// Stages 2 and 3: k at (xs, ys) -> acc += 2 k, next = x + hn k, in place.
template <typename T>
void stage_mid(const T* __restrict x, const T* __restrict y, const T* __restrict nsum,
               const T* __restrict diag, T* __restrict ax, T* __restrict ay, T* __restrict xs,
               T* __restrict ys, int N, T om, T c, T he, T hn) {
  const T two = T(2);
  for (int i = 0; i < N; ++i) {
    T dx, dy;
    detail::sl_rhs(xs[i], ys[i], nsum[i], diag[i], om, c, he, dx, dy);
    ax[i] += two * dx, ay[i] += two * dy;
    xs[i] = x[i] + hn * dx, ys[i] = y[i] + hn * dy;
  }
}
/// Stage 4: k4 at (xs, ys) -> x += h/6 (acc + k4).
template <typename T>
void stage_last(T* __restrict x, T* __restrict y, const T* __restrict nsum,
                const T* __restrict diag, T* __restrict ax, T* __restrict ay,
                const T* __restrict xs, const T* __restrict ys, int N, T om, T c, T he, T h6) {
  for (int i = 0; i < N; ++i) {
    T dx, dy;
    detail::sl_rhs(xs[i], ys[i], nsum[i], diag[i], om, c, he, dx, dy);
    ax[i] += dx, ay[i] += dy;
    x[i] += h6 * ax[i], y[i] += h6 * ay[i];
  }
}

/// Scratch of one thread: the stage arrays of one member.
/// The gather sources xg, a copy of x, and xs have H halo slots on each side for ring lattices,
/// then one zero slot as the ELL padding target.
template <typename T>
struct Scratch {
  std::vector<T> xg, xs, ys, ax, ay, nsum;
  /// Tables of members with their own graphs when not kept in the cache; one per lane.
  Table<T> table[detail::kLanes];
  TableScratch tscr;
  void resize(int n, int H) {
    for (auto* v : {&xg, &xs}) v->assign(std::size_t(n) + 2 * std::size_t(H) + 1, T(0));
    for (auto* v : {&ys, &ax, &ay, &nsum}) v->resize(std::size_t(n));
  }
};

/// Scratch of one thread for a lane group (cpu_lanes.hpp): node i of the G members is one vector.
/// x and xs have H halo vectors on each side. The group's correction list indexes lanes.
template <typename T>
struct LaneScratch {
  using V = detail::Lanes<T>;
  std::vector<V> x, xs, y, ys, ax, ay, nsum, diag;
  std::vector<std::int32_t> dst, src;
  std::vector<T> w;
  std::vector<std::uint16_t> ad, as, md, ms;  // the unit-weight form (corrections_unit_lanes)
  std::vector<std::uint8_t> minus;            // per node: a -1 entry seen (building the unit form)
  // ELL groups (ell_lanes): per (node, slot, lane) the source index and weight of each lane's
  // addends, each lane's count per node, and the entries.
  std::vector<std::int32_t> seq, len, enode, eidx;
  std::vector<T> sw;
  std::vector<V> ew;
  // Fused groups (build_node_ops, fused_stage_lanes): xt is the second stage buffer beside xs;
  // per cell (node * kLanes + lane) its sources; per node its ops (GroupOps holds the result).
  std::vector<V> xt;
  std::vector<std::int32_t> cell_n, node_n, node_at;
  std::vector<std::uint16_t> cell_src, node_src;
  std::vector<std::uint8_t> node_mask;
  void resize(int n, int H) {
    for (auto* v : {&x, &xs, &xt}) v->assign(std::size_t(n) + 2 * std::size_t(H), V{});
    for (auto* v : {&y, &ys, &ax, &ay, &nsum, &diag}) v->assign(std::size_t(n), V{});
  }
};

/// A fused lane group's NodeOps arrays (cpu_lanes.hpp), kept between chunks for the same members.
struct GroupOps {
  int ks[detail::kLanes] = {};
  bool valid = false;
  std::vector<std::int32_t> seg_n, seg_end;
  std::vector<std::uint16_t> perm, op_src;
  std::vector<std::uint8_t> op_mask;
};

template <typename T>
class CpuImpl {
 public:
  void load(const Topologies& t, const State& s, bool finite_state = true) {
    detail::check_load(t, s, finite_state);
    try {
      topo_ = t;
      const std::size_t n = s.x.size();
      x_.resize(n), y_.resize(n);
      for (std::size_t q = 0; q < n; ++q) x_[q] = T(s.x[q]), y_[q] = T(s.y[q]);
      deg_.resize(std::size_t(t.graphs()) * t.nodes);
      for (int g = 0; g < t.graphs(); ++g)
        for (int i = 0; i < t.nodes; ++i) {
          double d = 0;
          const std::int64_t b = t.row_ptr[std::size_t(g) * t.nodes + i],
                             e = t.row_ptr[std::size_t(g) * t.nodes + i + 1];
          for (std::int64_t q = b; q < e; ++q) d += t.weighted() ? t.weight[std::size_t(q)] : 1.0;
          deg_[std::size_t(g) * t.nodes + i] = d;
        }
      total_.assign(std::size_t(t.members), 0.0);
      window_.assign(std::size_t(t.members), 0.0);
      failed_.assign(std::size_t(t.members), 0);
      shared_table_ = Table<T>{};
      TableScratch scr;
      if (t.shared)
        build_table(t.row_ptr.data(), t.col.data(), t.weighted() ? t.weight.data() : nullptr,
                    t.nodes, shared_table_, scr);
      tables_.assign(t.shared ? 0 : std::size_t(t.members), Table<T>{});
      cached_.assign(t.shared ? 0 : std::size_t(t.members), 0);
      form_.assign(t.shared ? 0 : std::size_t(t.members), std::int8_t(-1));
      group_ops_.clear();
      cache_bytes_ = 0;
      cache_budget_ = detail::cpu_table_cache_bytes();
    } catch (const std::bad_alloc&) {
      topo_ = Topologies{};
      throw Error("cannot allocate memory for the ensemble: lower ensemble.size or network.nodes");
    }
    step_ = 0;
    loaded_ = true;
  }

  void advance(const Model& m, double dt, std::int64_t steps, const Recording& rec, Series& out,
               Progress* progress) {
    if (!loaded_) throw Error("oscillators: advance() before load()");
    detail::check_advance(dt, steps, rec);
    for (double v : {m.omega, m.c, m.coupling})
      if (!std::isfinite(v)) throw Error("model.omega, model.c and model.coupling must be finite");
    const int N = topo_.nodes, K = topo_.members;
    const double he = m.coupling / 2;
    cpu_lanes_ = detail::cpu_lanes();
    cpu_fused_ = detail::cpu_fused();
    diag_.resize(deg_.size());
    for (std::size_t q = 0; q < deg_.size(); ++q) diag_[q] = T(1.0 - he * m.self_weight(deg_[q]));

    // Chunks are sized for rec.chunk_members, so a part of a study block runs the block's chunks.
    const int KC = rec.chunk_members > 0 ? rec.chunk_members : K;
    const int gsize = rec.group, groups = gsize > 0 ? (K + gsize - 1) / gsize : 0;
    const std::int64_t cap = std::max<std::int64_t>(1, kSampleValues / KC);
    std::vector<double> s_msd, s_r;
    std::int64_t done = 0;
    progress_set(progress, 0);
    while (done < steps) {
      progress_check(progress);
      // At least kMinChunk steps, so per-chunk work such as building neighbour tables stays small
      // beside the steps.
      std::int64_t chunk =
          std::max<std::int64_t>(kMinChunk, std::int64_t(kChunkOscSteps / (double(KC) * N)));
      chunk = std::min({chunk, steps - done, detail::steps_for_samples(step_, rec.every, cap)});
      const std::int64_t ns = detail::samples_in(step_, chunk, rec.every);
      s_msd.assign(std::size_t(ns) * K, kNaN);
      s_r.assign(std::size_t(ns) * K, kNaN);
      run_chunk(m, he, dt, chunk, rec, s_msd.data(), s_r.data());
      // Reduce the chunk's samples over the finite members in member order, and per group.
      const std::int64_t j0 = step_ / rec.every;
      for (std::int64_t j = 0; j < ns; ++j) {
        double sm = 0, sr = 0;
        std::int64_t n = 0;
        for (int k = 0; k < K; ++k) {
          const double a = s_msd[std::size_t(j) * K + k], b = s_r[std::size_t(j) * K + k];
          if (std::isfinite(a) && std::isfinite(b)) sm += a, sr += b, ++n;
        }
        for (int q = 0; q < groups; ++q) {
          double qm = 0, qr = 0;
          std::int64_t qn = 0;
          for (int k = q * gsize, e = std::min(K, k + gsize); k < e; ++k) {
            const double a = s_msd[std::size_t(j) * K + k], b = s_r[std::size_t(j) * K + k];
            if (std::isfinite(a) && std::isfinite(b)) qm += a, qr += b, ++qn;
          }
          out.group_msd.push_back(qm);
          out.group_order.push_back(qr);
          out.group_finite.push_back(qn);
        }
        out.step.push_back((j0 + j + 1) * rec.every);
        out.msd.push_back(n > 0 ? sm / double(n) : kNaN);
        out.order.push_back(n > 0 ? sr / double(n) : kNaN);
        out.finite.push_back(n);
        if (rec.watch >= 0 && rec.watch < K) {
          out.watch_msd.push_back(s_msd[std::size_t(j) * K + rec.watch]);
          out.watch_order.push_back(s_r[std::size_t(j) * K + rec.watch]);
        }
      }
      step_ += chunk;
      done += chunk;
      progress_set(progress, double(done) / double(steps));
    }
  }

  std::int64_t steps_done() const { return step_; }

  EnsembleSnapshot snapshot() const {
    if (!loaded_) throw Error("oscillators: snapshot() before load()");
    EnsembleSnapshot s;
    s.step = step_;
    s.state = state();
    s.total = total_;
    s.window = window_;
    s.failed = failed_;
    return s;
  }

  void restore(const Topologies& t, const EnsembleSnapshot& s) {
    const std::size_t K = std::size_t(std::max(t.members, 0));
    if (s.step < 0 || s.total.size() != K || s.window.size() != K || s.failed.size() != K)
      throw Error("oscillators: a snapshot of " + std::to_string(s.total.size()) +
                  " members at step " + std::to_string(s.step) + " does not match the " +
                  std::to_string(t.members) + " networks");
    load(t, s.state, false);
    total_ = s.total;
    window_ = s.window;
    failed_ = s.failed;
    step_ = s.step;
  }

  State state() const {
    State s;
    s.members = topo_.members;
    s.nodes = topo_.nodes;
    s.x.assign(x_.begin(), x_.end());
    s.y.assign(y_.begin(), y_.end());
    return s;
  }

  MemberStats member_stats(std::int64_t transient) const {
    MemberStats ms;
    ms.averaged_steps = std::max<std::int64_t>(0, step_ - transient);
    ms.failed = failed_;
    ms.msd_mean.resize(total_.size());
    for (std::size_t k = 0; k < total_.size(); ++k)
      ms.msd_mean[k] = failed_[k] || ms.averaged_steps == 0
                           ? kNaN
                           : (total_[k] + window_[k]) / double(ms.averaged_steps);
    return ms;
  }

  Frame frame(int members) const {
    Frame f;
    f.members = std::clamp(members, 0, topo_.members);
    f.nodes = topo_.nodes;
    f.step = step_;
    const std::size_t n = std::size_t(f.members) * topo_.nodes;
    f.theta_r.resize(2 * n);
    for (std::size_t q = 0; q < n; ++q) {
      const double x = double(x_[q]), y = double(y_[q]);
      f.theta_r[2 * q] = float(phase(x, y));
      f.theta_r[2 * q + 1] = float(std::hypot(x, y));
    }
    return f;
  }

 private:
  void run_chunk(const Model& m, double he, double dt, std::int64_t chunk, const Recording& rec,
                 double* s_msd, double* s_r) {
    const int N = topo_.nodes, K = topo_.members;
    const std::int64_t first = step_;
    // Work items: groups of G members still finite; failed ones stay NaN in samples. G = kLanes
    // with the lane kernels, else 1. A lane group's tables share a form: ELL, or rings of the
    // same half-width H. Members are sorted by form (ELL, ring H = 1, 2, ...), in member order
    // within a form, and each form's members cut into groups of G; a form's last group is
    // filled up with copies of its first lane, whose results are dropped. Each member's results
    // do not depend on its group (each lane performs member()'s operations).
    const int G = cpu_lanes_ ? detail::kLanes : 1;
    live_.clear();
    for (int k = 0; k < K; ++k)
      if (!failed_[std::size_t(k)]) live_.push_back(k);
    // No more threads than items: an idle thread would spin at the region's barrier and take a core
    // from the work. Small chunks, such as the live view's frames, use one thread: there, waking
    // threads and a barrier cost more than the work, and a preempted thread stalls the barrier.
    const bool small = double(K) * N * double(chunk) < 2e5;
    if (G > 1 && !topo_.shared) learn_forms(small);
    items_.clear();
    order_.clear();
    if (G > 1) {
      for (int h = 0; h <= kMaxRingHalf; ++h) {
        const std::size_t b = order_.size();
        for (const int k : live_)
          if (form_of(k) == h) order_.push_back(k);
        for (std::size_t q = b; q < order_.size(); q += std::size_t(G))
          items_.push_back({int(q), int(std::min(order_.size() - q, std::size_t(G))), true});
      }
    } else {
      order_ = live_;
      for (std::size_t q = 0; q < order_.size(); ++q) items_.push_back({int(q), 1, false});
    }
    const int items = int(items_.size());
    if (G > 1 && group_ops_.size() < items_.size()) group_ops_.resize(items_.size());
    const int threads = small ? 1 : std::max(1, std::min(items, omp_get_max_threads()));
#pragma omp parallel num_threads(threads)
    {
      Scratch<T> sc;
      sc.resize(N, kMaxRingHalf);
      LaneScratch<T> ls;
      if (G > 1) ls.resize(N, kMaxRingHalf);
#pragma omp for schedule(dynamic, 1)
      for (int q = 0; q < items; ++q) {
        const Item it = items_[std::size_t(q)];
        const int n = it.n;
        int ks[detail::kLanes] = {};
        const Table<T>* tab[detail::kLanes] = {};
        for (int l = 0; l < n; ++l) {
          ks[l] = order_[std::size_t(it.begin + l)];
          tab[l] = &shared_table_;
          if (!topo_.shared)
            tab[l] =
                member_table(ks[l], topo_.row_ptr.data() + std::size_t(topo_.graph_of(ks[l])) * N,
                             sc.table[l], sc.tscr);
        }
        if (it.lanes) {
          for (int l = n; l < detail::kLanes; ++l) ks[l] = ks[0], tab[l] = tab[0];
          if (group(ks, n, tab, m, he, dt, first, chunk, rec, ls, group_ops_[std::size_t(q)],
                    s_msd, s_r)) {
            detail::count_cpu_lane_group();
            continue;
          }
        }
        for (int l = 0; l < n; ++l) {
          if (topo_.weighted())
            member<true>(ks[l], *tab[l], m, he, dt, first, chunk, rec, sc, s_msd, s_r);
          else
            member<false>(ks[l], *tab[l], m, he, dt, first, chunk, rec, sc, s_msd, s_r);
        }
      }
    }
  }

  /// Integrates the kLanes members ks[] over steps first+1 .. first+chunk, one lane per member.
  /// Their tables tab[] must all be rings of the same half-width H, or all ELL. Each lane performs
  /// member()'s operations (cpu_lanes.hpp), so each member's results equal member()'s bit for bit.
  /// Only lanes [0, n) are kept: the others repeat members of these, and their results are dropped.
  /// Returns false, having changed nothing, for ELL tables with more than kMaxEllLanes addends at
  /// a node.
  bool group(const int* ks, int n, const Table<T>* const* tab, const Model& m, double he_d,
             double dt_d,
             std::int64_t first, std::int64_t chunk, const Recording& rec, LaneScratch<T>& ls,
             GroupOps& go, double* s_msd, double* s_r) {
    using V = detail::Lanes<T>;
    constexpr int G = detail::kLanes;
    const int N = topo_.nodes, K = topo_.members, H = tab[0]->H;
    V* __restrict x = ls.x.data() + kMaxRingHalf;  // centres (halos on both sides)
    V* __restrict xs = ls.xs.data() + kMaxRingHalf;
    V* __restrict y = ls.y.data();
    V* __restrict ys = ls.ys.data();
    V* __restrict ax = ls.ax.data();
    V* __restrict ay = ls.ay.data();
    V* __restrict nsum = ls.nsum.data();
    V* __restrict diag = ls.diag.data();
    // The members' state and diagonals into the lanes. Correction lists are interleaved: entry r of
    // every member, then r + 1, so each member's entries keep their list's order.
    std::size_t R = 0;
    for (int l = 0; l < G; ++l) {
      const std::size_t k = std::size_t(ks[l]);
      const T* xk = x_.data() + k * N;
      const T* yk = y_.data() + k * N;
      const T* dk = diag_.data() + std::size_t(topo_.graph_of(ks[l])) * N;
      for (int i = 0; i < N; ++i) x[i][l] = xk[i], y[i][l] = yk[i], diag[i][l] = dk[i];
      if (H > 0) R = std::max(R, tab[l]->li.size());
    }
    const bool ell = H == 0;
    const bool weighted = topo_.weighted();
    // The unit form when every weight is +-1 and each node's +1 entries come first, as in
    // unweighted rings and Watts-Strogatz networks; else the general form.
    bool unit = std::int64_t(N) * G <= 65536;  // (lane indices in 16 bits)
    for (int l = 0; l < G && unit; ++l) {
      ls.minus.assign(std::size_t(N), 0);
      const Table<T>& e = *tab[l];
      for (std::size_t r = 0; r < e.li.size() && unit; ++r) {
        if (e.lw[r] == T(-1))
          ls.minus[std::size_t(e.li[r])] = 1;
        else if (e.lw[r] != T(1) || ls.minus[std::size_t(e.li[r])])
          unit = false;
      }
    }
    // Unweighted ELL groups run fused (fused_stage_lanes). (Rings, with or without corrections,
    // ran fused 10-15 % slower than unfused: tests/bench/NOTES.md.)
    // Their ops are kept for the next chunk (go), rebuilt when the group's members change.
    bool fused = cpu_fused_ && ell && !weighted && N <= 65535;
    if (fused) {
      bool same = go.valid;
      for (int l = 0; l < G && same; ++l) same = go.ks[l] == ks[l];
      if (!same) {
        for (int l = 0; l < G; ++l) go.ks[l] = ks[l];
        go.valid = build_node_ops(tab, N, ls, go);
      }
      fused = go.valid;
    }
    ls.dst.clear(), ls.src.clear(), ls.w.clear();
    ls.ad.clear(), ls.as.clear(), ls.md.clear(), ls.ms.clear();
    for (std::size_t r = 0; r < (fused ? 0 : R); ++r)
      for (int l = 0; l < G; ++l) {
        const Table<T>& e = *tab[l];
        if (r >= e.li.size()) continue;
        const std::int32_t d = e.li[r] * G + l, j = e.lj[r] * G + l;
        if (!unit) {
          ls.dst.push_back(d), ls.src.push_back(j), ls.w.push_back(e.lw[r]);
        } else if (e.lw[r] > 0) {
          ls.ad.push_back(std::uint16_t(d)), ls.as.push_back(std::uint16_t(j));
        } else {
          ls.md.push_back(std::uint16_t(d)), ls.ms.push_back(std::uint16_t(j));
        }
      }
    const std::size_t nc = ls.dst.size(), na = ls.ad.size(), nm = ls.md.size();
    const std::int32_t* cd = ls.dst.data();
    const std::int32_t* cs = ls.src.data();
    const T* cw = ls.w.data();
    const std::uint16_t *ad = ls.ad.data(), *as = ls.as.data();
    const std::uint16_t *md = ls.md.data(), *ms = ls.ms.data();
    const T om = T(m.omega), c = T(m.c), he = T(he_d), h = T(dt_d), h2 = T(dt_d / 2),
            h6 = T(dt_d / 6);
    double tot[G], win[G];
    bool bad[G];
    for (int l = 0; l < G; ++l)
      tot[l] = total_[std::size_t(ks[l])], win[l] = window_[std::size_t(ks[l])], bad[l] = false;
    // ELL tables (H = 0): lane l's addends at node i are its slots 0 .. D_l - 1 (neighbours, or
    // the zero slot src[N] as padding, weight 0), then its list entries of node i in list order:
    // member()'s additions, from nsum = 0. A node's entry s takes every lane's s-th addend, or
    // -0.0 from the slot src[N + 1] for lanes with fewer.
    int S = 0;
    if (ell) {
      ls.len.assign(std::size_t(N) * G, 0);
      for (int l = 0; l < G; ++l) {
        const Table<T>& e = *tab[l];
        for (int i = 0; i < N; ++i) ls.len[std::size_t(i) * G + l] = e.D;
        for (const std::int32_t i : e.li) ++ls.len[std::size_t(i) * G + l];
      }
      for (const std::int32_t v : ls.len) S = std::max(S, int(v));
      if (S > kMaxEllLanes) return false;
    }
    ls.enode.clear(), ls.eidx.clear(), ls.ew.clear();
    if (ell && !fused) {
      const std::size_t cells = std::size_t(N) * S * G;
      ls.seq.assign(cells, 0);
      ls.sw.assign(weighted ? cells : 0, T(1));
      for (int l = 0; l < G; ++l) {
        const Table<T>& e = *tab[l];
        for (int i = 0; i < N; ++i)
          for (int s = 0; s < S; ++s) {
            const std::size_t at = (std::size_t(i) * S + s) * G + l;
            ls.seq[at] = (N + 1) * G + l;  // -0.0
            if (s < e.D) {
              ls.seq[at] = e.idx[std::size_t(s) * N + i] * G + l;
              if (weighted) ls.sw[at] = e.wt[std::size_t(s) * N + i];
            }
          }
        // List entries: ordered by position, then node, so each node's in their order.
        ls.minus.assign(std::size_t(N), 0);  // (entries of each node seen so far)
        for (std::size_t r = 0; r < e.li.size(); ++r) {
          const int i = e.li[r], s = e.D + ls.minus[std::size_t(i)]++;
          const std::size_t at = (std::size_t(i) * S + s) * G + l;
          ls.seq[at] = e.lj[r] * G + l;
          if (weighted) ls.sw[at] = e.lw[r];
        }
      }
      for (int s = 0; s < S; ++s)
        for (int i = 0; i < N; ++i) {
          int most = 0;
          for (int l = 0; l < G; ++l) most = std::max(most, int(ls.len[std::size_t(i) * G + l]));
          if (s >= most) continue;
          ls.enode.push_back(i);
          V wv = V{};
          for (int l = 0; l < G; ++l) {
            const std::size_t at = (std::size_t(i) * S + s) * G + l;
            ls.eidx.push_back(ls.seq[at]);
            if (weighted) wv[l] = ls.sw[at];
          }
          if (weighted) ls.ew.push_back(wv);
        }
    }
    const std::size_t ne = ls.enode.size();
    const std::int32_t* en = ls.enode.data();
    const std::int32_t* ei = ls.eidx.data();
    const V* ewv = ls.ew.data();
    const V zero = V{}, minus_zero = detail::splat<V>(T(-0.0));
    const auto gather = [H, nsum, N, unit, nc, cd, cs, cw, na, ad, as, nm, md, ms, ell, weighted, ne,
                         en, ei, ewv, zero, minus_zero](V* __restrict src) {
      if (ell) {
        src[N] = zero, src[N + 1] = minus_zero;
        if (weighted)
          detail::ell_lanes<V, T, true>(en, ei, ewv, ne, src, nsum, N);
        else
          detail::ell_lanes<V, T, false>(en, ei, ewv, ne, src, nsum, N);
        return;
      }
      detail::fill_halo_lanes(src, N, H);
      switch (H) {
        case 1:
          detail::stencil_lanes<V, 1>(src, nsum, N, H);
          break;
        case 2:
          detail::stencil_lanes<V, 2>(src, nsum, N, H);
          break;
        case 3:
          detail::stencil_lanes<V, 3>(src, nsum, N, H);
          break;
        default:
          detail::stencil_lanes<V, 0>(src, nsum, N, H);
      }
      if (unit)
        detail::corrections_unit_lanes<V, T>(ad, as, na, md, ms, nm, src, nsum);
      else
        detail::corrections_lanes<V, T>(cd, cs, cw, nc, src, nsum);
    };
    detail::NodeOps ops;
    if (fused) {
      ops.perm = go.perm.data();
      ops.seg_n = go.seg_n.data();
      ops.seg_end = go.seg_end.data();
      ops.segs = int(go.seg_n.size());
      ops.src = go.op_src.data();
      ops.mask = go.op_mask.data();
      detail::count_cpu_fused_group();
    }
    V* __restrict xt = ls.xt.data() + kMaxRingHalf;
    for (std::int64_t st = 0; st < chunk; ++st) {
      const std::int64_t gstep = first + st + 1;
      if (fused) {
        detail::fused_step_lanes<V, T>(ops, x, xs, xt, y, ys, ax, ay, diag, om, c, he, h2, h, h6);
      } else {
        gather(x);
        detail::stage_first_lanes(x, y, nsum, diag, ax, ay, xs, ys, N, om, c, he, h2);
        gather(xs);
        detail::stage_mid_lanes(x, y, nsum, diag, ax, ay, xs, ys, N, om, c, he, h2);
        gather(xs);
        detail::stage_mid_lanes(x, y, nsum, diag, ax, ay, xs, ys, N, om, c, he, h);
        gather(xs);
        detail::stage_last_lanes(x, y, nsum, diag, ax, ay, xs, ys, N, om, c, he, h6);
      }
      const bool sample = gstep % rec.every == 0;
      if (!(sample || gstep > rec.transient || st == chunk - 1)) continue;
      detail::Lanes<double> msd;
      detail::msd_lanes<T>(x, N, msd);
      for (int l = 0; l < n; ++l) {
        if (!std::isfinite(msd[l])) bad[l] = true;
        if (gstep > rec.transient) {
          win[l] += msd[l];
          if (gstep % kMsdWindow == 0) tot[l] += win[l], win[l] = 0;
        }
        if (!sample) continue;
        double cs_ = 0, sn = 0;
        for (int i = 0; i < N; ++i) {
          const double xi = double(x[i][l]), yi = double(y[i][l]);
          const double r2 = xi * xi + yi * yi;
          if (r2 > 0) {
            const double inv = 1.0 / std::sqrt(r2);
            cs_ += xi * inv, sn += yi * inv;
          } else {
            cs_ += 1;
          }
        }
        const std::size_t k = std::size_t(ks[l]);
        const std::int64_t j = gstep / rec.every - 1 - first / rec.every;
        s_msd[std::size_t(j) * K + k] = msd[l];
        s_r[std::size_t(j) * K + k] =
            std::isfinite(msd[l]) ? std::sqrt(cs_ * cs_ + sn * sn) / N : kNaN;
      }
    }
    for (int l = 0; l < n; ++l) {
      const std::size_t k = std::size_t(ks[l]);
      T* xk = x_.data() + k * N;
      T* yk = y_.data() + k * N;
      for (int i = 0; i < N; ++i) {
        xk[i] = x[i][l], yk[i] = y[i][l];
        if (!std::isfinite(xk[i]) || !std::isfinite(yk[i])) bad[l] = true;
      }
      total_[k] = tot[l];
      window_[k] = win[l];
      if (bad[l]) failed_[k] = 1;
    }
    return true;
  }

  /// A lane group of ELL tables' neighbour sums as NodeOps (cpu_lanes.hpp) in go: per cell
  /// (node, lane) its sources in its table's order (its slots, padding skipped, then its list
  /// entries); per node, ops of (source node, lanes) in which each lane's sources come in its
  /// order (layer by layer, or greedily where shorter); nodes sorted by op count, stably.
  /// Returns false for tables not of that form (rings); those groups run unfused.
  bool build_node_ops(const Table<T>* const* tab, int N, LaneScratch<T>& ls, GroupOps& go) const {
    constexpr int G = detail::kLanes;
    const std::size_t cells = std::size_t(N) * G;
    for (int l = 0; l < G; ++l)
      if (tab[l]->H != 0) return false;
    ls.cell_n.assign(cells, 0);
    // Pass 0 counts each cell's addends, pass 1 stores them.
    int most = 0;
    for (int pass = 0; pass < 2; ++pass) {
      if (pass == 1) {
        for (const std::int32_t v : ls.cell_n) most = std::max(most, int(v));
        ls.cell_src.assign(cells * std::size_t(std::max(most, 1)), 0);
        ls.cell_n.assign(cells, 0);
      }
      const auto add = [&](int i, int l, int j) {
        const std::size_t cell = std::size_t(i) * G + l;
        if (pass == 1) ls.cell_src[cell * std::size_t(most) + std::size_t(ls.cell_n[cell])] =
            std::uint16_t(j);
        ++ls.cell_n[cell];
      };
      for (int l = 0; l < G; ++l) {
        const Table<T>& e = *tab[l];
        for (int i = 0; i < N; ++i)
          for (int d = 0; d < e.D; ++d) {
            const int j = e.idx[std::size_t(d) * N + i];
            if (j != N) add(i, l, j);
          }
        for (std::size_t r = 0; r < e.li.size(); ++r) add(e.li[r], l, e.lj[r]);
      }
    }
    // Each node's ops: a sequence of (source, lanes) in which every lane's sources appear in its
    // order. Two ways, the shorter kept: layer by layer, one op per distinct source node in a
    // layer; or greedily, each op the source that the most lanes need next (a lane missing its
    // first lattice neighbour then shares the layers after it with the others).
    ls.node_n.assign(std::size_t(N), 0);
    ls.node_at.assign(std::size_t(N), 0);
    ls.node_src.clear(), ls.node_mask.clear();
    for (int i = 0; i < N; ++i) {
      ls.node_at[std::size_t(i)] = std::int32_t(ls.node_src.size());
      const std::size_t b0 = ls.node_src.size();
      int layers = 0;
      for (int l = 0; l < G; ++l) layers = std::max(layers, int(ls.cell_n[std::size_t(i) * G + l]));
      for (int s = 0; s < layers; ++s) {
        const std::size_t b = ls.node_src.size();
        for (int l = 0; l < G; ++l) {
          const std::size_t cell = std::size_t(i) * G + l;
          if (ls.cell_n[cell] <= s) continue;
          const std::uint16_t j = ls.cell_src[cell * std::size_t(most) + std::size_t(s)];
          std::size_t o = b;
          while (o < ls.node_src.size() && ls.node_src[o] != j) ++o;
          if (o == ls.node_src.size()) ls.node_src.push_back(j), ls.node_mask.push_back(0);
          ls.node_mask[o] = std::uint8_t(ls.node_mask[o] | 1u << l);
        }
      }
      const std::size_t layered = ls.node_src.size() - b0;
      // Greedy: next[l] = lane l's next source's position in its cell.
      int next[G] = {};
      std::uint16_t gsrc[G * kMaxEllLanes + 1];
      std::uint8_t gmask[G * kMaxEllLanes + 1];
      std::size_t ng = 0;
      for (;;) {
        int best = -1, best_n = 0;
        for (int l = 0; l < G; ++l) {
          const std::size_t cell = std::size_t(i) * G + l;
          if (next[l] >= ls.cell_n[cell]) continue;
          const int j = ls.cell_src[cell * std::size_t(most) + std::size_t(next[l])];
          int n = 0;
          for (int m = 0; m < G; ++m) {
            const std::size_t cm = std::size_t(i) * G + m;
            if (next[m] < ls.cell_n[cm] &&
                ls.cell_src[cm * std::size_t(most) + std::size_t(next[m])] == j)
              ++n;
          }
          if (n > best_n || (n == best_n && j < best)) best = j, best_n = n;
        }
        if (best < 0 || ng >= std::min(layered, sizeof gmask)) break;  // (no shorter)
        std::uint8_t mk = 0;
        for (int m = 0; m < G; ++m) {
          const std::size_t cm = std::size_t(i) * G + m;
          if (next[m] < ls.cell_n[cm] &&
              ls.cell_src[cm * std::size_t(most) + std::size_t(next[m])] == best)
            mk = std::uint8_t(mk | 1u << m), ++next[m];
        }
        gsrc[ng] = std::uint16_t(best), gmask[ng] = mk, ++ng;
      }
      bool done = true;
      for (int l = 0; l < G; ++l) done = done && next[l] >= ls.cell_n[std::size_t(i) * G + l];
      if (done && ng < layered) {
        ls.node_src.resize(b0 + ng), ls.node_mask.resize(b0 + ng);
        std::copy(gsrc, gsrc + ng, ls.node_src.begin() + std::ptrdiff_t(b0));
        std::copy(gmask, gmask + ng, ls.node_mask.begin() + std::ptrdiff_t(b0));
      }
      ls.node_n[std::size_t(i)] =
          std::int32_t(ls.node_src.size()) - ls.node_at[std::size_t(i)];
    }
    go.perm.resize(std::size_t(N));
    for (int i = 0; i < N; ++i) go.perm[std::size_t(i)] = std::uint16_t(i);
    const std::int32_t* counts = ls.node_n.data();
    std::stable_sort(go.perm.begin(), go.perm.end(),
                     [counts](std::uint16_t a, std::uint16_t b) { return counts[a] < counts[b]; });
    go.seg_n.clear(), go.seg_end.clear(), go.op_src.clear(), go.op_mask.clear();
    for (int q = 0; q < N; ++q) {
      const std::size_t i = go.perm[std::size_t(q)];
      const int n = counts[i];
      if (go.seg_n.empty() || go.seg_n.back() != n) go.seg_n.push_back(n), go.seg_end.push_back(q);
      ++go.seg_end.back();
      for (int o = 0; o < n; ++o) {
        go.op_src.push_back(ls.node_src[std::size_t(ls.node_at[i] + o)]);
        go.op_mask.push_back(ls.node_mask[std::size_t(ls.node_at[i] + o)]);
      }
    }
    return true;
  }

  /// Integrates member k over steps first+1 .. first+chunk.
  template <bool Weighted>
  void member(int k, const Table<T>& tab, const Model& m, double he_d, double dt_d,
              std::int64_t first, std::int64_t chunk, const Recording& rec, Scratch<T>& sc,
              double* s_msd, double* s_r) {
    const int N = topo_.nodes, K = topo_.members;
    const int g = topo_.graph_of(k);
    const T* __restrict diag = diag_.data() + std::size_t(g) * N;
    T* __restrict x = x_.data() + std::size_t(k) * N;
    T* __restrict y = y_.data() + std::size_t(k) * N;
    T* __restrict xg = sc.xg.data() + kMaxRingHalf;  // centres of the gather sources
    T* __restrict xs = sc.xs.data() + kMaxRingHalf;
    T* __restrict ys = sc.ys.data();
    T* __restrict ax = sc.ax.data();
    T* __restrict ay = sc.ay.data();
    T* __restrict nsum = sc.nsum.data();
    const T om = T(m.omega), c = T(m.c), he = T(he_d), h = T(dt_d), h2 = T(dt_d / 2),
            h6 = T(dt_d / 6);
    double tot = total_[std::size_t(k)], win = window_[std::size_t(k)];
    bool bad = false;
    const Table<T>* table = &tab;
    const int H = table->H;
    // Capture the pointers by value: captured by reference they would become memory-resident and
    // stop the vectoriser.
    // src[N] is the ELL zero padding slot and also the first right halo slot, where an earlier ring
    // member of this thread left a value; it is cleared for ELL tables.
    const auto gather = [H, table, nsum, N](T* __restrict src) {
      if (H > 0)
        fill_halo(src, N, H);
      else
        src[N] = T(0);
      gather_table<T, Weighted>(*table, src, nsum, N);
    };

    for (std::int64_t st = 0; st < chunk; ++st) {
      const std::int64_t gstep = first + st + 1;
      // Stage 1: k1 at (x, y); stages 2, 3 at x + h/2 k1, x + h/2 k2; stage 4 at x + h k3.
      std::copy(x, x + N, xg);
      gather(xg);
      stage_first(x, y, nsum, diag, ax, ay, xs, ys, N, om, c, he, h2);
      gather(xs);
      stage_mid(x, y, nsum, diag, ax, ay, xs, ys, N, om, c, he, h2);
      gather(xs);
      stage_mid(x, y, nsum, diag, ax, ay, xs, ys, N, om, c, he, h);
      gather(xs);
      stage_last(x, y, nsum, diag, ax, ay, xs, ys, N, om, c, he, h6);
      // Observables of x(gstep).
      const bool sample = gstep % rec.every == 0;
      if (sample || gstep > rec.transient || st == chunk - 1) {
        const double msd = msd_of(x, N);
        if (!std::isfinite(msd)) bad = true;
        if (gstep > rec.transient) {
          win += msd;
          if (gstep % kMsdWindow == 0) tot += win, win = 0;
        }
        if (sample) {
          double cs = 0, sn = 0;
          for (int i = 0; i < N; ++i) {
            const double r2 = double(x[i]) * double(x[i]) + double(y[i]) * double(y[i]);
            if (r2 > 0) {
              const double inv = 1.0 / std::sqrt(r2);
              cs += double(x[i]) * inv, sn += double(y[i]) * inv;
            } else {
              cs += 1;
            }
          }
          const std::int64_t j = gstep / rec.every - 1 - first / rec.every;
          s_msd[std::size_t(j) * K + k] = msd;
          // A non-finite member has no order parameter; its NaN nodes fail r2 > 0 above.
          s_r[std::size_t(j) * K + k] = std::isfinite(msd)
                                            ? std::sqrt(cs * cs + sn * sn) / N
                                            : std::numeric_limits<double>::quiet_NaN();
        }
      }
    }
    for (int i = 0; i < N && !bad; ++i)
      if (!std::isfinite(x[i]) || !std::isfinite(y[i])) bad = true;
    total_[std::size_t(k)] = tot;
    window_[std::size_t(k)] = win;
    if (bad) failed_[std::size_t(k)] = 1;
  }

  /// The form of member k's table (form_): H > 0 for a ring of half-width H, 0 for ELL.
  int form_of(int k) const { return topo_.shared ? shared_table_.H : form_[std::size_t(k)]; }

  /// Learns the forms of the live members not yet known, building their tables (and keeping them
  /// within the cache's budget, as member_table does).
  void learn_forms(bool small) {
    std::vector<int> todo;
    for (const int k : live_)
      if (form_[std::size_t(k)] < 0) todo.push_back(k);
    if (todo.empty()) return;
    const int n = int(todo.size()), N = topo_.nodes;
    const int threads = small ? 1 : std::max(1, std::min(n, omp_get_max_threads()));
#pragma omp parallel num_threads(threads)
    {
      Table<T> scratch;
      TableScratch tscr;
#pragma omp for schedule(dynamic, 64)
      for (int q = 0; q < n; ++q) {
        const int k = todo[std::size_t(q)];
        const Table<T>* t = member_table(
            k, topo_.row_ptr.data() + std::size_t(topo_.graph_of(k)) * N, scratch, tscr);
        form_[std::size_t(k)] = std::int8_t(t->H);
      }
    }
  }

  /// Member k's neighbour table: the cached one, else one built into the thread's scratch.
  /// A built table is kept in the cache while the cache stays within its byte budget.
  /// The table is the same either way.
  const Table<T>* member_table(int k, const std::int64_t* row, Table<T>& scratch,
                               TableScratch& tscr) {
    if (cached_[std::size_t(k)]) return &tables_[std::size_t(k)];
    build_table(row, topo_.col.data(), topo_.weighted() ? topo_.weight.data() : nullptr,
                topo_.nodes, scratch, tscr);
    if (cache_bytes_.load(std::memory_order_relaxed) < cache_budget_.load()) {
      Table<T>& kept = tables_[std::size_t(k)];
      try {
        kept = scratch;                  // a copy: exact capacities
      } catch (const std::bad_alloc&) {  // (inside a parallel region: not kept, no exception)
        kept = Table<T>{};
        cache_budget_ = 0;
        return &scratch;
      }
      const std::size_t b = kept.bytes() + sizeof(Table<T>);
      if (cache_bytes_.fetch_add(b, std::memory_order_relaxed) + b <= cache_budget_.load()) {
        cached_[std::size_t(k)] = 1;
        return &kept;
      }
      cache_bytes_.fetch_sub(b, std::memory_order_relaxed);
      kept = Table<T>{};
    }
    return &scratch;
  }

  Topologies topo_;
  Table<T> shared_table_;  // the neighbour table of a shared graph
  /// Tables of members with their own graphs, built on first use and kept across chunks and
  /// advance() calls up to cache_budget_ bytes. Cost of building: tests/bench/NOTES.md.
  std::vector<Table<T>> tables_;
  std::vector<std::uint8_t> cached_;
  std::atomic<std::size_t> cache_bytes_{0};
  std::atomic<std::size_t> cache_budget_{0};  // (set to 0 by a failed allocation)
  std::vector<T> x_, y_, diag_;
  std::vector<double> deg_, total_, window_;
  std::vector<std::uint8_t> failed_;
  std::vector<int> live_;   // the members still finite, in order
  std::vector<int> order_;  // live_ sorted by table form (run_chunk)
  struct Item {
    int begin, n;  // order_[begin, begin + n)
    bool lanes;    // a lane group (group()), else one member (member())
  };
  std::vector<Item> items_;  // run_chunk's work items
  std::vector<GroupOps> group_ops_;  // per item: a fused group's ops, kept between chunks
  /// Per member with its own graph: its table's ring half-width H (> 0: ring + corrections),
  /// 0 for ELL, -1 not yet known. Depends on the graph only; learnt once per load().
  std::vector<std::int8_t> form_;
  bool cpu_lanes_ = true;  // detail::cpu_lanes() at advance()
  bool cpu_fused_ = true;  // detail::cpu_fused() at advance()
  std::int64_t step_ = 0;
  bool loaded_ = false;
};

class CpuEnsemble final : public Ensemble {
 public:
  Backend backend() const override { return Backend::Cpu; }
  int max_nodes() const override { return kMaxNodes; }

  void load(const Topologies& t, const State& s, Precision p) override {
    f32_.reset();
    f64_.reset();
    if (p == Precision::Fp32) {
      auto impl = std::make_unique<CpuImpl<float>>();
      impl->load(t, s);
      f32_ = std::move(impl);
    } else {
      auto impl = std::make_unique<CpuImpl<double>>();
      impl->load(t, s);
      f64_ = std::move(impl);
    }
  }
  void advance(const Model& m, double dt, std::int64_t steps, const Recording& rec, Series& out,
               Progress* progress) override {
    if (f32_) return f32_->advance(m, dt, steps, rec, out, progress);
    if (f64_) return f64_->advance(m, dt, steps, rec, out, progress);
    throw Error("oscillators: advance() before load()");
  }
  std::int64_t steps_done() const override {
    return f32_ ? f32_->steps_done() : f64_ ? f64_->steps_done() : 0;
  }
  State state() const override { return f32_ ? f32_->state() : f64_ ? f64_->state() : State{}; }
  MemberStats member_stats(std::int64_t transient) const override {
    return f32_   ? f32_->member_stats(transient)
           : f64_ ? f64_->member_stats(transient)
                  : MemberStats{};
  }
  Frame frame(int members) override {
    return f32_ ? f32_->frame(members) : f64_ ? f64_->frame(members) : Frame{};
  }
  bool can_snapshot() const override { return true; }
  EnsembleSnapshot snapshot() const override {
    if (f32_) return f32_->snapshot();
    if (f64_) return f64_->snapshot();
    throw Error("oscillators: snapshot() before load()");
  }
  void restore(const Topologies& t, const EnsembleSnapshot& s, Precision p) override {
    f32_.reset();
    f64_.reset();
    if (p == Precision::Fp32) {
      auto impl = std::make_unique<CpuImpl<float>>();
      impl->restore(t, s);
      f32_ = std::move(impl);
    } else {
      auto impl = std::make_unique<CpuImpl<double>>();
      impl->restore(t, s);
      f64_ = std::move(impl);
    }
  }

 private:
  std::unique_ptr<CpuImpl<float>> f32_;
  std::unique_ptr<CpuImpl<double>> f64_;
};

}  // namespace

// The level's entry (core/isa.hpp); oscillators_cpu_dispatch.cpp calls the active level's.
namespace detail::SIMSCOPE_ISA_NS {
std::unique_ptr<Ensemble> make_cpu_ensemble() { return std::make_unique<CpuEnsemble>(); }
int cpu_lane_width() { return kLanes; }
}  // namespace detail::SIMSCOPE_ISA_NS

}  // namespace simscope::oscillators
