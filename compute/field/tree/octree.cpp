// The tree method's octree (octree.hpp): Morton keys, an LSD radix sort, then cells from the
// sorted keys (levels 0..10) and by partitioning below.
#include "field/tree/octree.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.hpp"

namespace simscope::field::tree {

namespace {

constexpr int kKeyLevels = 10;  // 10 bits per axis in a 30-bit key
constexpr int kMaxLevel = 40;

/// Spreads the low 10 bits of v to every third bit.
std::uint32_t spread(std::uint32_t v) {
  v &= 0x3ff;
  v = (v | (v << 16)) & 0x030000ff;
  v = (v | (v << 8)) & 0x0300f00f;
  v = (v | (v << 4)) & 0x030c30c3;
  v = (v | (v << 2)) & 0x09249249;
  return v;
}

template <typename Real>
struct Builder {
  const Real *x, *y, *z;
  int leaf_size;
  Octree& t;
  std::vector<std::uint32_t> keys;  // sorted keys (parallel to t.order)

  // Bounding box of the sorted points [b, e) -> centre and radius of the cell.
  void finish_leaf(Cell& c) const {
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (std::uint32_t i = c.begin; i < c.end; ++i) {
      const std::uint32_t o = t.order[i];
      const double p[3] = {double(x[o]), double(y[o]), double(z[o])};
      for (int a = 0; a < 3; ++a) lo[a] = std::min(lo[a], p[a]), hi[a] = std::max(hi[a], p[a]);
    }
    for (int a = 0; a < 3; ++a) c.centre[a] = 0.5 * (lo[a] + hi[a]);
    double r2 = 0;
    for (std::uint32_t i = c.begin; i < c.end; ++i) {
      const std::uint32_t o = t.order[i];
      const double d[3] = {double(x[o]) - c.centre[0], double(y[o]) - c.centre[1],
                           double(z[o]) - c.centre[2]};
      r2 = std::max(r2, d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    }
    c.radius = std::sqrt(r2) * (1 + 1e-12);
  }

  // A parent's centre: its children's bounding boxes' centre; radius bounded through them.
  void finish_parent(Cell& c) const {
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int k = 0; k < c.nchild; ++k) {
      const Cell& ch = t.cells[c.child + k];
      for (int a = 0; a < 3; ++a) {
        lo[a] = std::min(lo[a], ch.centre[a] - ch.radius);
        hi[a] = std::max(hi[a], ch.centre[a] + ch.radius);
      }
    }
    for (int a = 0; a < 3; ++a) c.centre[a] = 0.5 * (lo[a] + hi[a]);
    double r = 0;
    for (int k = 0; k < c.nchild; ++k) {
      const Cell& ch = t.cells[c.child + k];
      const double d[3] = {ch.centre[0] - c.centre[0], ch.centre[1] - c.centre[1],
                           ch.centre[2] - c.centre[2]};
      r = std::max(r, std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) + ch.radius);
    }
    c.radius = r * (1 + 1e-12);
  }

  // Cell `ci` holds [b, e) within the cube (lo, size) at `level`.
  void build(std::int32_t ci, int level, const double lo[3], double size) {
    Cell c = t.cells[ci];
    t.depth = std::max(t.depth, level);
    if (int(c.count()) <= leaf_size || level >= kMaxLevel) {
      finish_leaf(c);
      t.cells[ci] = c;
      return;
    }
    std::uint32_t bounds[9];
    const double half = 0.5 * size;
    if (level < kKeyLevels) {
      // Octant from the key's 3 bits of this level (keys are sorted: ranges are contiguous).
      const int shift = 3 * (kKeyLevels - 1 - level);
      bounds[0] = c.begin;
      for (int o = 0; o < 8; ++o) {
        const std::uint32_t* first = keys.data() + bounds[o];
        const std::uint32_t* last = keys.data() + c.end;
        bounds[o + 1] = std::uint32_t(
            std::partition_point(first, last,
                                 [&](std::uint32_t k) { return int((k >> shift) & 7) <= o; }) -
            keys.data());
      }
    } else {
      // Below the key's resolution: partition the range about the cube's centre (x, then y, z
      // within each half), the same octant numbering (bit 2: x, bit 1: y, bit 0: z).
      const double mid[3] = {lo[0] + half, lo[1] + half, lo[2] + half};
      auto* ord = t.order.data();
      auto split = [&](std::uint32_t b, std::uint32_t e, int axis) {
        const Real* p = axis == 0 ? x : axis == 1 ? y : z;
        return std::uint32_t(
            std::partition(ord + b, ord + e,
                           [&](std::uint32_t o) { return double(p[o]) < mid[axis]; }) -
            ord);
      };
      bounds[0] = c.begin, bounds[8] = c.end;
      bounds[4] = split(c.begin, c.end, 0);
      bounds[2] = split(bounds[0], bounds[4], 1), bounds[6] = split(bounds[4], bounds[8], 1);
      for (int o = 0; o < 8; o += 2) bounds[o + 1] = split(bounds[o], bounds[o + 2], 2);
    }
    int n = 0;
    for (int o = 0; o < 8; ++o) n += bounds[o + 1] > bounds[o];
    const std::int32_t first = std::int32_t(t.cells.size());
    t.cells.resize(t.cells.size() + n);
    int k = 0;
    for (int o = 0; o < 8; ++o) {
      if (bounds[o + 1] == bounds[o]) continue;
      Cell& ch = t.cells[first + k++];
      ch.begin = bounds[o], ch.end = bounds[o + 1];
    }
    c.child = first, c.nchild = n;
    t.cells[ci] = c;
    k = 0;
    for (int o = 0; o < 8; ++o) {
      if (bounds[o + 1] == bounds[o]) continue;
      const double clo[3] = {lo[0] + ((o >> 2) & 1) * half, lo[1] + ((o >> 1) & 1) * half,
                             lo[2] + (o & 1) * half};
      build(first + k++, level + 1, clo, half);
    }
    finish_parent(t.cells[ci]);
  }
};

/// LSD radix sort of (key, value) by key (30 bits: 3 passes of 10 bits), OpenMP: each thread
/// counts and then scatters its own contiguous chunk, the chunks' offsets per digit in thread
/// order (stable, so the result is the sequential sort's whatever the thread count).
void radix_sort(std::vector<std::uint32_t>& keys, std::vector<std::uint32_t>& vals) {
  constexpr int kBits = 10, kBuckets = 1 << kBits;
  const std::size_t n = keys.size();
  std::vector<std::uint32_t> k2(n), v2(n);
  const int threads = std::max(1, std::min(omp_get_max_threads(), int(n / 65536) + 1));
  std::vector<std::size_t> count(std::size_t(threads) * kBuckets);
  for (int pass = 0; pass < 3; ++pass) {
    const int shift = kBits * pass;
    const std::uint32_t* ki = keys.data();
    const std::uint32_t* vi = vals.data();
    std::uint32_t* ko = k2.data();
    std::uint32_t* vo = v2.data();
#pragma omp parallel num_threads(threads)
    {
      const int t = omp_get_thread_num();
      const std::size_t b = n * std::size_t(t) / threads, e = n * std::size_t(t + 1) / threads;
      std::size_t* c = count.data() + std::size_t(t) * kBuckets;
      std::fill(c, c + kBuckets, 0);
      for (std::size_t i = b; i < e; ++i) ++c[(ki[i] >> shift) & (kBuckets - 1)];
#pragma omp barrier
#pragma omp single
      {
        std::size_t off = 0;
        for (int d = 0; d < kBuckets; ++d)
          for (int u = 0; u < threads; ++u) {
            const std::size_t v = count[std::size_t(u) * kBuckets + d];
            count[std::size_t(u) * kBuckets + d] = off;
            off += v;
          }
      }
      for (std::size_t i = b; i < e; ++i) {
        const std::size_t d = c[(ki[i] >> shift) & (kBuckets - 1)]++;
        ko[d] = ki[i], vo[d] = vi[i];
      }
    }
    keys.swap(k2), vals.swap(v2);
  }
}

}  // namespace

template <typename Real>
MortonOrder morton_order(const Real* x, const Real* y, const Real* z, std::size_t n) {
  MortonOrder m;
  if (n >= (std::size_t(1) << 32) - 1)
    throw Error("field tree: " + std::to_string(n) + " points exceed the tree's 2^32 - 1");
  if (n == 0) return m;
  double hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  const Real* p[3] = {x, y, z};
  for (int a = 0; a < 3; ++a) {
    double l = INFINITY, h = -INFINITY;
#pragma omp parallel for reduction(min : l) reduction(max : h)
    for (std::size_t i = 0; i < n; ++i) {
      l = std::min(l, double(p[a][i]));
      h = std::max(h, double(p[a][i]));
    }
    m.lo[a] = l, hi[a] = h;
  }
  double size = std::max({hi[0] - m.lo[0], hi[1] - m.lo[1], hi[2] - m.lo[2]});
  m.size = size > 0 ? size * (1 + 1e-9) : 1.0;
  const double scale = double(1 << kKeyLevels) / m.size;
  m.keys.resize(n);
  m.order.resize(n);
#pragma omp parallel for
  for (std::size_t i = 0; i < n; ++i) {
    std::uint32_t q[3];
    for (int a = 0; a < 3; ++a) {
      const double f = (double(p[a][i]) - m.lo[a]) * scale;
      q[a] = std::uint32_t(std::clamp(f, 0.0, double((1 << kKeyLevels) - 1)));
    }
    m.keys[i] = (spread(q[0]) << 2) | (spread(q[1]) << 1) | spread(q[2]);
    m.order[i] = std::uint32_t(i);
  }
  radix_sort(m.keys, m.order);
  return m;
}

template <typename Real>
Octree build_cells(const Real* x, const Real* y, const Real* z, MortonOrder&& m, int leaf_size) {
  Octree t;
  const std::size_t n = m.order.size();
  if (n == 0) return t;
  t.order = std::move(m.order);
  Builder<Real> b{x, y, z, leaf_size < 1 ? 1 : leaf_size, t, std::move(m.keys)};
  t.cells.reserve(2 * (n / std::size_t(b.leaf_size)) + 16);
  t.cells.emplace_back();
  t.cells[0].begin = 0, t.cells[0].end = std::uint32_t(n);
  b.build(0, 0, m.lo, m.size);
  return t;
}

template <typename Real>
Octree build_octree(const Real* x, const Real* y, const Real* z, std::size_t n, int leaf_size) {
  return build_cells(x, y, z, morton_order(x, y, z, n), leaf_size);
}

template MortonOrder morton_order<float>(const float*, const float*, const float*, std::size_t);
template Octree build_cells<float>(const float*, const float*, const float*, MortonOrder&&, int);
template Octree build_octree<float>(const float*, const float*, const float*, std::size_t, int);
template Octree build_octree<double>(const double*, const double*, const double*, std::size_t, int);

}  // namespace simscope::field::tree
