// The tree method's octree (octree.hpp). Morton keys are sorted by a scatter on the top levels'
// bits and a radix sort within each bucket. Cells come from the sorted keys for levels 0..10
// and by partitioning below. Subtrees under the top levels are built in parallel.
#include "field/tree/octree.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "core/error.hpp"

namespace simscope::field::tree {

namespace {

constexpr int kKeyLevels = 10;  // 10 bits per axis in a 30-bit key
constexpr int kMaxLevel = 40;

/// Spreads the low 10 bits of v to every third bit.
inline std::uint32_t spread(std::uint32_t v) {
  v &= 0x3ff;
  v = (v | (v << 16)) & 0x030000ff;
  v = (v | (v << 8)) & 0x0300f00f;
  v = (v | (v << 4)) & 0x030c30c3;
  v = (v | (v << 2)) & 0x09249249;
  return v;
}

/// A subtree to build: cell `cell` at `level` within the cube (lo, size).
struct Job {
  std::int32_t cell;
  int level;
  double lo[3];
  double size;
};

template <typename Real>
struct Builder {
  const Real *x, *y, *z;
  int leaf_size;
  BigVector<Cell>& cells;       // the cells this builder appends to
  std::uint32_t* order;         // the points' order (parallel to keys); null: the identity
  std::uint32_t point(std::uint32_t i) const { return order ? order[i] : i; }
  const std::uint32_t* keys;    // sorted keys
  int depth = 0;
  bool permuted = false;
  /// Top mode (jobs != null): a cell reaching stop_level is recorded as a job, not built.
  /// Parents are left unfinished; finish_top() does them once the jobs are done.
  std::vector<Job>* jobs = nullptr;
  int stop_level = 0;

  // Bounding box of the sorted points [b, e) -> centre and radius of the cell.
  void finish_leaf(Cell& c) const {
    if (!order) return finish_leaf_in_sequence(c);
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (std::uint32_t i = c.begin; i < c.end; ++i) {
      const std::uint32_t o = order[i];
      const double p[3] = {double(x[o]), double(y[o]), double(z[o])};
      for (int a = 0; a < 3; ++a) lo[a] = std::min(lo[a], p[a]), hi[a] = std::max(hi[a], p[a]);
    }
    for (int a = 0; a < 3; ++a) c.centre[a] = 0.5 * (lo[a] + hi[a]);
    double r2 = 0;
    for (std::uint32_t i = c.begin; i < c.end; ++i) {
      const std::uint32_t o = order[i];
      const double d[3] = {double(x[o]) - c.centre[0], double(y[o]) - c.centre[1],
                           double(z[o]) - c.centre[2]};
      r2 = std::max(r2, d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    }
    c.radius = std::sqrt(r2) * (1 + 1e-12);
  }

  // finish_leaf() for points in sequence (no order): the same values, in loops the compiler
  // vectorises. Min and max are exact in Real, so the box is the same.
  void finish_leaf_in_sequence(Cell& c) const {
    const Real *px = x + c.begin, *py = y + c.begin, *pz = z + c.begin;
    const std::uint32_t n = c.count();
    Real lx = px[0], ly = py[0], lz = pz[0], hx = px[0], hy = py[0], hz = pz[0];
#pragma omp simd reduction(min : lx, ly, lz) reduction(max : hx, hy, hz)
    for (std::uint32_t i = 0; i < n; ++i) {
      lx = std::min(lx, px[i]), ly = std::min(ly, py[i]), lz = std::min(lz, pz[i]);
      hx = std::max(hx, px[i]), hy = std::max(hy, py[i]), hz = std::max(hz, pz[i]);
    }
    const double cx = 0.5 * (double(lx) + double(hx)), cy = 0.5 * (double(ly) + double(hy)),
                 cz = 0.5 * (double(lz) + double(hz));
    c.centre[0] = cx, c.centre[1] = cy, c.centre[2] = cz;
    double r2 = 0;
#pragma omp simd reduction(max : r2)
    for (std::uint32_t i = 0; i < n; ++i) {
      const double dx = double(px[i]) - cx, dy = double(py[i]) - cy, dz = double(pz[i]) - cz;
      r2 = std::max(r2, dx * dx + dy * dy + dz * dz);
    }
    c.radius = std::sqrt(r2) * (1 + 1e-12);
  }

  // A parent's centre: its children's bounding boxes' centre; radius bounded through them.
  void finish_parent(Cell& c) const {
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int k = 0; k < c.nchild; ++k) {
      const Cell& ch = cells[c.child + k];
      for (int a = 0; a < 3; ++a) {
        lo[a] = std::min(lo[a], ch.centre[a] - ch.radius);
        hi[a] = std::max(hi[a], ch.centre[a] + ch.radius);
      }
    }
    for (int a = 0; a < 3; ++a) c.centre[a] = 0.5 * (lo[a] + hi[a]);
    double r = 0;
    for (int k = 0; k < c.nchild; ++k) {
      const Cell& ch = cells[c.child + k];
      const double d[3] = {ch.centre[0] - c.centre[0], ch.centre[1] - c.centre[1],
                           ch.centre[2] - c.centre[2]};
      r = std::max(r, std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) + ch.radius);
    }
    c.radius = r * (1 + 1e-12);
  }

  // The bounding box of the cell's points: lo and hi per axis.
  void box(const Cell& c, double blo[3], double bhi[3]) const {
    for (int a = 0; a < 3; ++a) blo[a] = INFINITY, bhi[a] = -INFINITY;
    for (std::uint32_t i = c.begin; i < c.end; ++i) {
      const std::uint32_t o = point(i);
      const double p[3] = {double(x[o]), double(y[o]), double(z[o])};
      for (int a = 0; a < 3; ++a) blo[a] = std::min(blo[a], p[a]), bhi[a] = std::max(bhi[a], p[a]);
    }
  }

  // Cell `ci` holds [b, e) within the cube (lo, size) at `level`. `spread`: its points are
  // known not to coincide (a single-key ancestor's box was checked).
  void build(std::int32_t ci, int level, const double lo_in[3], double size, bool spread = false) {
    Cell c = cells[ci];
    if (jobs && level >= stop_level) {
      jobs->push_back(Job{ci, level, {lo_in[0], lo_in[1], lo_in[2]}, size});
      return;
    }
    depth = std::max(depth, level);
    if (int(c.count()) <= leaf_size || level >= kMaxLevel) {
      finish_leaf(c);
      cells[ci] = c;
      return;
    }
    double lo[3] = {lo_in[0], lo_in[1], lo_in[2]};
    // Points sharing one key may coincide: a cell whose points all lie at one point stays one
    // leaf (its radius 0), however many; splitting it would go down to kMaxLevel with one child
    // per level, a pass over its points each. Below the keys' resolution a cell whose points
    // spread is split about its points' bounding box, not its cube, so every level separates
    // them (nearly coincident points cost a few levels, not 30).
    if (keys[c.begin] == keys[c.end - 1] && (!spread || level >= kKeyLevels)) {
      double blo[3], bhi[3];
      box(c, blo, bhi);
      const double extent = std::max({bhi[0] - blo[0], bhi[1] - blo[1], bhi[2] - blo[2]});
      if (!(extent > 0)) {
        finish_leaf(c);
        cells[ci] = c;
        return;
      }
      spread = true;
      if (level >= kKeyLevels) {
        for (int a = 0; a < 3; ++a) lo[a] = blo[a];
        size = extent * (1 + 1e-9);
      }
    }
    std::uint32_t bounds[9];
    const double half = 0.5 * size;
    if (level < kKeyLevels) {
      // Octant from the key's 3 bits of this level. Keys are sorted, so ranges are contiguous.
      const int shift = 3 * (kKeyLevels - 1 - level);
      bounds[0] = c.begin;
      for (int o = 0; o < 8; ++o) {
        const std::uint32_t* first = keys + bounds[o];
        const std::uint32_t* last = keys + c.end;
        bounds[o + 1] = std::uint32_t(
            std::partition_point(first, last,
                                 [&](std::uint32_t k) { return int((k >> shift) & 7) <= o; }) -
            keys);
      }
    } else {
      // Below the key's resolution: partition the range about the cube's centre, x first, then
      // y and z within each half. Same octant numbering: bit 2 x, bit 1 y, bit 0 z. `order`
      // is not null here: build_cells() makes one when a key holds more than leaf_size points.
      const double mid[3] = {lo[0] + half, lo[1] + half, lo[2] + half};
      permuted = true;
      auto* ord = order;
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
    const std::int32_t first = std::int32_t(cells.size());
    cells.resize(cells.size() + n);
    int k = 0;
    for (int o = 0; o < 8; ++o) {
      if (bounds[o + 1] == bounds[o]) continue;
      Cell& ch = cells[first + k++];
      ch.begin = bounds[o], ch.end = bounds[o + 1];
    }
    c.child = first, c.nchild = n;
    cells[ci] = c;
    k = 0;
    for (int o = 0; o < 8; ++o) {
      if (bounds[o + 1] == bounds[o]) continue;
      const double clo[3] = {lo[0] + ((o >> 2) & 1) * half, lo[1] + ((o >> 1) & 1) * half,
                             lo[2] + (o & 1) * half};
      build(first + k++, level + 1, clo, half, spread && n == 1);
    }
    if (!jobs) finish_parent(cells[ci]);
  }
};


/// Levels of the scatter: about 16,000 points per bucket, so a bucket's sort stays in L2.
int top_levels(std::size_t n) {
  int l = 0;
  while (l < 4 && (n >> (3 * (l + 1))) >= 8192) ++l;
  return l;
}

/// Computes the points' bounding cube in one parallel pass into m.lo and m.size.
template <typename Real>
void bounding_cube(const Real* x, const Real* y, const Real* z, std::size_t n, MortonOrder& m) {
  if (n >= (std::size_t(1) << 32) - 1)
    throw Error("field tree: " + std::to_string(n) + " points exceed the tree's 2^32 - 1");
  double l0 = INFINITY, l1 = INFINITY, l2 = INFINITY, h0 = -INFINITY, h1 = -INFINITY,
         h2 = -INFINITY;
#pragma omp parallel for schedule(static) reduction(min : l0, l1, l2) reduction(max : h0, h1, h2)
  for (std::size_t i = 0; i < n; ++i) {
    const double a = double(x[i]), b = double(y[i]), c = double(z[i]);
    l0 = std::min(l0, a), h0 = std::max(h0, a);
    l1 = std::min(l1, b), h1 = std::max(h1, b);
    l2 = std::min(l2, c), h2 = std::max(h2, c);
  }
  m.lo[0] = l0, m.lo[1] = l1, m.lo[2] = l2;
  const double size = std::max({h0 - l0, h1 - l1, h2 - l2});
  m.size = size > 0 ? size * (1 + 1e-9) : 1.0;
}

/// Stable sort of the points by Morton key. m.keys gets the sorted keys. The caller's payload
/// follows through two callbacks: place(j, d) writes point j's payload at position d;
/// permute(s, len, perm) reorders positions [s, s + len) so position s + k receives the old
/// s + perm[k]. Two OpenMP phases: each thread scatters its contiguous chunk (key and place())
/// to the buckets of the keys' top 3 L bits, with per-thread offsets in thread order. Then each
/// bucket is sorted by the remaining bits (LSD, passes of <= 11 bits) in thread-local scratch,
/// and its payload reordered in place without a second full-size copy.
template <typename Real, typename Place, typename Permute>
void morton_sort(const Real* x, const Real* y, const Real* z, std::size_t n, MortonOrder& m,
                 Place place, Permute permute) {
  bounding_cube(x, y, z, n, m);
  if (n == 0) return;
  const int L = top_levels(n);
  const int shift = 3 * (kKeyLevels - L);
  const std::size_t B = std::size_t(1) << (3 * L);
  const double scale = double(1 << kKeyLevels) / m.size;
  const double lo[3] = {m.lo[0], m.lo[1], m.lo[2]};
  const int threads = std::max(1, std::min(omp_get_max_threads(), int(n / 65536) + 1));
  std::vector<std::size_t> count(std::size_t(threads) * B, 0), start(B + 1, 0);
  // The keys are computed twice, to count and to scatter, rather than stored: cheaper than a
  // fresh array of n keys, whose pages the kernel would clear.
  auto key_of = [&](std::size_t i) {
    std::uint32_t q[3];
    const double p[3] = {double(x[i]), double(y[i]), double(z[i])};
    for (int a = 0; a < 3; ++a)
      q[a] = std::uint32_t(std::clamp((p[a] - lo[a]) * scale, 0.0, double((1 << kKeyLevels) - 1)));
    return (spread(q[0]) << 2) | (spread(q[1]) << 1) | spread(q[2]);
  };
  BigVector<std::uint32_t> bkey(n);
#pragma omp parallel num_threads(threads)
  {
    const int t = omp_get_thread_num();
    const std::size_t b = n * std::size_t(t) / threads, e = n * std::size_t(t + 1) / threads;
    std::size_t* c = count.data() + std::size_t(t) * B;
    for (std::size_t i = b; i < e; ++i) ++c[key_of(i) >> shift];
#pragma omp barrier
#pragma omp single
    {
      std::size_t off = 0;
      for (std::size_t d = 0; d < B; ++d) {
        start[d] = off;
        for (int u = 0; u < threads; ++u) {
          const std::size_t v = count[std::size_t(u) * B + d];
          count[std::size_t(u) * B + d] = off;
          off += v;
        }
      }
      start[B] = off;
    }
    for (std::size_t i = b; i < e; ++i) {
      const std::uint32_t k = key_of(i);
      const std::size_t d = c[k >> shift]++;
      bkey[d] = k;
      place(i, d);
    }
  }
  // Each bucket sorted in place: its keys, and the payload through permute().
  std::uint32_t* out = bkey.data();
  constexpr int kBits = 11;
  const int passes = (shift + kBits - 1) / kBits;
  std::uint32_t longest = 0;
#pragma omp parallel num_threads(threads) reduction(max : longest)
  {
    std::vector<std::uint32_t> k1, k2, i1, i2, cnt(std::size_t(1) << kBits);
#pragma omp for schedule(dynamic, 1)
    for (std::size_t d = 0; d < B; ++d) {
      const std::size_t s = start[d], len = start[d + 1] - s;
      if (len == 0) continue;
      k1.assign(bkey.data() + s, bkey.data() + s + len);
      i1.resize(len), k2.resize(len), i2.resize(len);
      for (std::size_t j = 0; j < len; ++j) i1[j] = std::uint32_t(j);
      for (int pass = 0; pass < passes; ++pass) {
        const int sh = kBits * pass;
        const int bits = std::min(kBits, shift - sh);
        const std::uint32_t mask = (1u << bits) - 1;
        std::fill(cnt.begin(), cnt.begin() + (std::size_t(1) << bits), 0u);
        for (std::size_t j = 0; j < len; ++j) ++cnt[(k1[j] >> sh) & mask];
        std::uint32_t off = 0;
        for (std::size_t v = 0; v < (std::size_t(1) << bits); ++v) {
          const std::uint32_t c = cnt[v];
          cnt[v] = off, off += c;
        }
        for (std::size_t j = 0; j < len; ++j) {
          const std::uint32_t p = cnt[(k1[j] >> sh) & mask]++;
          k2[p] = k1[j], i2[p] = i1[j];
        }
        k1.swap(k2), i1.swap(i2);
      }
      std::uint32_t run = 1;
      for (std::size_t j = 0; j < len; ++j) {
        out[s + j] = k1[j];
        run = j > 0 && k1[j] == k1[j - 1] ? run + 1 : 1;
        longest = std::max(longest, run);
      }
      if (passes > 0) permute(s, len, i1.data());
    }
  }
  m.keys = std::move(bkey);
  m.longest_run = longest;
}

}  // namespace

/// Reorders v[s .. s + len) by perm (v[s + k] = old v[s + perm[k]]) through scratch.
template <typename T>
void permute_range(T* v, std::size_t s, std::size_t len, const std::uint32_t* perm,
                   std::vector<T>& scratch) {
  scratch.assign(v + s, v + s + len);
  for (std::size_t k = 0; k < len; ++k) v[s + k] = scratch[perm[k]];
}

template <typename Real>
MortonOrder morton_order(const Real* x, const Real* y, const Real* z, std::size_t n) {
  MortonOrder m;
  m.order.resize(n);
  std::uint32_t* order = m.order.data();
  morton_sort(
      x, y, z, n, m, [order](std::size_t j, std::size_t d) { order[d] = std::uint32_t(j); },
      [order](std::size_t s, std::size_t len, const std::uint32_t* perm) {
        thread_local std::vector<std::uint32_t> scratch;
        permute_range(order, s, len, perm, scratch);
      });
  return m;
}

MortonOrder morton_sorted_copy(const float* x, const float* y, const float* z, const float* q,
                               std::size_t n, float* sx, float* sy, float* sz, float* sq) {
  MortonOrder m;
  morton_sort(
      x, y, z, n, m,
      [&](std::size_t j, std::size_t d) { sx[d] = x[j], sy[d] = y[j], sz[d] = z[j], sq[d] = q[j]; },
      [&](std::size_t s, std::size_t len, const std::uint32_t* perm) {
        thread_local std::vector<float> scratch;
        for (float* v : {sx, sy, sz, sq}) permute_range(v, s, len, perm, scratch);
      });
  return m;
}

template <typename Real>
Octree build_cells(const Real* x, const Real* y, const Real* z, MortonOrder&& m, int leaf_size) {
  Octree t;
  const std::size_t n = m.keys.size();
  if (n == 0) return t;
  leaf_size = leaf_size < 1 ? 1 : leaf_size;
  t.order = std::move(m.order);
  // Without an order (the identity), points are only permuted by splits below the keys'
  // resolution, i.e. where more than leaf_size points share a key: the identity is made then.
  if (t.order.empty() && m.longest_run > std::uint32_t(leaf_size)) {
    t.order.resize(n);
#pragma omp parallel for schedule(static)
    for (std::size_t i = 0; i < n; ++i) t.order[i] = std::uint32_t(i);
  }
  // The top levels serially. Cells at stop_level, or leaves above it, are recorded as jobs.
  std::vector<Job> jobs;
  std::uint32_t* order = t.order.empty() ? nullptr : t.order.data();
  Builder<Real> top{x, y, z, leaf_size, t.cells, order, m.keys.data()};
  top.jobs = &jobs;
  top.stop_level = std::min(top_levels(n) + 1, kKeyLevels);
  t.cells.emplace_back();
  t.cells[0].begin = 0, t.cells[0].end = std::uint32_t(n);
  top.build(0, 0, m.lo, m.size);
  const std::size_t tops = t.cells.size();
  // Builds each job's subtree into its own cells, root first, then appends them in job order.
  std::vector<BigVector<Cell>> sub(jobs.size());
  std::vector<int> depth(jobs.size(), 0);
  std::vector<char> permuted(jobs.size(), 0);
#pragma omp parallel for schedule(dynamic, 1)
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    BigVector<Cell>& c = sub[j];
    c.reserve(2 * (t.cells[jobs[j].cell].count() / std::size_t(leaf_size)) + 8);
    c.push_back(t.cells[jobs[j].cell]);
    Builder<Real> b{x, y, z, leaf_size, c, order, m.keys.data()};
    b.build(0, jobs[j].level, jobs[j].lo, jobs[j].size);
    depth[j] = b.depth, permuted[j] = b.permuted;
  }
  std::vector<std::size_t> base(jobs.size() + 1, tops);
  for (std::size_t j = 0; j < jobs.size(); ++j) base[j + 1] = base[j] + sub[j].size() - 1;
  t.cells.resize(base[jobs.size()]);
  t.depth = top.depth;
#pragma omp parallel for schedule(dynamic, 1)
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    const BigVector<Cell>& c = sub[j];
    auto place = [&](Cell cell) {
      if (cell.nchild > 0) cell.child = std::int32_t(base[j] + std::size_t(cell.child) - 1);
      return cell;
    };
    t.cells[jobs[j].cell] = place(c[0]);
    for (std::size_t k = 1; k < c.size(); ++k) t.cells[base[j] + k - 1] = place(c[k]);
  }
  for (std::size_t j = 0; j < jobs.size(); ++j)
    t.depth = std::max(t.depth, depth[j]), t.permuted = t.permuted || permuted[j];
  // The top cells' centres and radii, children first; a parent precedes its children.
  std::vector<char> is_job(tops, 0);
  for (const Job& jb : jobs) is_job[std::size_t(jb.cell)] = 1;
  for (std::size_t c = tops; c-- > 0;)
    if (!is_job[c] && t.cells[c].nchild > 0) top.finish_parent(t.cells[c]);
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
