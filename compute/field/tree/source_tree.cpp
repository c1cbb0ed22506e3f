// The source tree of the tree method (source_tree.hpp).
#include "field/tree/source_tree.hpp"

#include <omp.h>

#include <algorithm>
#include <new>
#include <thread>

#include "core/error.hpp"
#include "field/tree/expansions.hpp"
#include "field/tree/tree_internal.hpp"

namespace simscope::field::tree {

double SourceTree::bytes() const {
  return double(x.size()) * 16 + double(oct.cells.size()) * sizeof(Cell) +
         double(level.size()) * 4 + double(slot.size()) * 4 + double(moments.size()) * 8 +
         double(moments32.size()) * 4;
}

void SourceTree::ensure_row(std::size_t cell) const {
  if (!made || made[cell].load(std::memory_order_acquire) == 2) return;
  std::uint8_t expected = 0;
  if (made[cell].compare_exchange_strong(expected, 1, std::memory_order_acq_rel)) {
    // The row is a cache of the leaf's sources; making it leaves every other member as it is.
    leaf_row(const_cast<SourceTree&>(*this), cell);
    made[cell].store(2, std::memory_order_release);
    return;
  }
  while (made[cell].load(std::memory_order_acquire) != 2) std::this_thread::yield();
}

void SourceTree::ensure_all_rows(const Progress* progress) const {
  if (!made) return;
  const std::size_t C = oct.cells.size();
  // Chunks of about 1/32 of the leaves' P2M each (a few ms at 8e6 sources), so that a newer
  // request cancels within one.
  const std::size_t chunk = progress ? std::max<std::size_t>(C / 32, 4096) : C;
  for (std::size_t c0 = 0; c0 < C; c0 += chunk) {
    progress_check(progress);
    const std::size_t c1 = std::min(C, c0 + chunk);
#pragma omp parallel for schedule(dynamic, 64)
    for (std::size_t c = c0; c < c1; ++c) ensure_row(c);
  }
}

const double* SourceTree::row(std::size_t cell, double* scratch) const {
  ensure_row(cell);
  const std::size_t N = std::size_t(terms(order)), r = slot[cell];
  if (!single()) return moments.data() + r * N;
  const float* f = moments32.data() + r * N;
  for (std::size_t k = 0; k < N; ++k) scratch[k] = f[k];
  return scratch;
}

const double* SourceTree::moment(std::size_t cell, double* scratch) const {
  const std::size_t N = std::size_t(terms(order));
  const double* H = row(cell, scratch + N);
  layout_row(multi_index(order), H, scratch);
  return scratch;
}

std::vector<double> SourceTree::moments_fp64() const {
  ensure_all_rows();
  const std::size_t N = std::size_t(terms(order)), C = oct.cells.size();
  std::vector<double> out(C * N, 0.0), scratch(2 * N);
  for (std::size_t c = 0; c < C; ++c)
    if (slot[c] != kNoMoment) {
      const double* M = moment(c, scratch.data());
      std::copy(M, M + N, out.begin() + std::ptrdiff_t(c * N));
    }
  return out;
}

std::uint64_t SourceTree::merged_coincidences(const Targets& t, const IndexRange& r) const {
  std::uint64_t n = 0;
  if (merged.empty()) return n;
  for (std::size_t i = r.begin; i < r.end; ++i) {
    const Merged key{t.x[i], t.y[i], t.z[i], 0};
    const auto it = std::lower_bound(merged.begin(), merged.end(), key);
    if (it != merged.end() && it->x == key.x && it->y == key.y && it->z == key.z) n += it->extra;
  }
  return n;
}

namespace {

/// Merges the sources at the same point within each run of more than kSourceLeaf equal keys of
/// the sorted copy into one source, the charge summed in float64. Compacts t.x, y, z, q and
/// m.keys in place and records the merged points in t.merged.
void merge_coincident(SourceTree& t, MortonOrder& m) {
  const std::size_t n = m.keys.size();
  std::size_t w = 0;
  std::vector<std::uint32_t> idx;
  std::vector<float> rx, ry, rz, rq;
  std::uint32_t longest = 0;
  auto put = [&](float x, float y, float z, double q, std::uint32_t key, std::uint64_t count) {
    t.x[w] = x, t.y[w] = y, t.z[w] = z, t.q[w] = float(q), m.keys[w] = key;
    if (count > 1) t.merged.push_back({double(x), double(y), double(z), count - 1});
    ++w;
  };
  for (std::size_t b = 0; b < n;) {
    std::size_t e = b + 1;
    while (e < n && m.keys[e] == m.keys[b]) ++e;
    const std::uint32_t key = m.keys[b];
    const std::size_t w0 = w;
    if (e - b <= std::size_t(kSourceLeaf)) {
      for (std::size_t i = b; i < e; ++i) put(t.x[i], t.y[i], t.z[i], t.q[i], key, 1);
    } else {
      // The run's points in (x, y, z) order, copied first: the compacted run may overwrite it.
      rx.assign(t.x.data() + b, t.x.data() + e), ry.assign(t.y.data() + b, t.y.data() + e);
      rz.assign(t.z.data() + b, t.z.data() + e), rq.assign(t.q.data() + b, t.q.data() + e);
      const std::size_t len = e - b;
      bool one = true;
      for (std::size_t i = 1; i < len && one; ++i)
        one = rx[i] == rx[0] && ry[i] == ry[0] && rz[i] == rz[0];
      idx.resize(len);
      for (std::size_t i = 0; i < len; ++i) idx[i] = std::uint32_t(i);
      if (!one)
        std::sort(idx.begin(), idx.end(), [&](std::uint32_t a, std::uint32_t c) {
          return rx[a] != rx[c] ? rx[a] < rx[c] : ry[a] != ry[c] ? ry[a] < ry[c] : rz[a] < rz[c];
        });
      for (std::size_t i = 0; i < len;) {
        const std::uint32_t a = idx[i];
        double q = 0;
        std::size_t j = i;
        for (; j < len && rx[idx[j]] == rx[a] && ry[idx[j]] == ry[a] && rz[idx[j]] == rz[a]; ++j)
          q += double(rq[idx[j]]);
        put(rx[a], ry[a], rz[a], q, key, j - i);
        i = j;
      }
    }
    longest = std::max(longest, std::uint32_t(w - w0));
    b = e;
  }
  for (BigVector<float>* v : {&t.x, &t.y, &t.z, &t.q}) v->resize(w);
  m.keys.resize(w);
  m.longest_run = longest;
  std::sort(t.merged.begin(), t.merged.end());
}

}  // namespace

SourceTree build_source_tree(const Sources& s) {
  SourceTree t;
  try {
    // The sort itself copies the sources in Morton order (morton_sorted_copy); cells are built
    // on the copy for sequential reads. Splits below the keys' resolution permute it again.
    const std::size_t n = s.size();
    t.x.resize(n), t.y.resize(n), t.z.resize(n), t.q.resize(n);
    MortonOrder mo = morton_sorted_copy(s.x.data(), s.y.data(), s.z.data(), s.q.data(), n,
                                        t.x.data(), t.y.data(), t.z.data(), t.q.data());
    if (mo.longest_run > std::uint32_t(kSourceLeaf)) merge_coincident(t, mo);
    const std::size_t held = t.x.size();
    t.oct = build_cells(t.x.data(), t.y.data(), t.z.data(), std::move(mo), kSourceLeaf);
    if (t.oct.permuted) {
      BigVector<float> tmp(held);
      for (BigVector<float>* v : {&t.x, &t.y, &t.z, &t.q}) {
#pragma omp parallel for schedule(static)
        for (std::size_t i = 0; i < held; ++i) tmp[i] = (*v)[t.oct.order[i]];
        v->swap(tmp);
      }
    }
    // The permutation is not needed after the copy, since outputs are per target.
    BigVector<std::uint32_t>().swap(t.oct.order);
    t.level.assign(t.oct.cells.size(), 0);
    for (std::size_t c = 0; c < t.oct.cells.size(); ++c) {
      const Cell& cell = t.oct.cells[c];
      for (int k = 0; k < cell.nchild; ++k) t.level[cell.child + k] = t.level[c] + 1;
    }
  } catch (const std::bad_alloc&) {
    throw Error("field tree: out of memory building the tree of " + std::to_string(s.size()) +
                " sources");
  }
  t.generation = s.generation;
  t.size = t.x.size();
  t.input_size = s.size();
  return t;
}

void compute_moments(SourceTree& t, int p, bool fp64) {
  if (holds_moments(t, p, fp64)) return;
  const bool single = p <= kSingleMomentsOrder && !fp64;
  const MultiIndex& m = multi_index(p);
  const std::size_t N = std::size_t(m.count), C = t.oct.cells.size();
  const auto& cells = t.oct.cells;
  try {
    BigVector<double>().swap(t.moments);
    BigVector<float>().swap(t.moments32);
    t.slot.assign(C, kNoMoment);
    t.few = few_sources(p, single ? 4 : 8);
    std::size_t rows = 0;
    for (std::size_t c = 0; c < C; ++c)
      if (cells[c].count() > t.few) t.slot[c] = std::uint32_t(rows++);
    // Not zeroed here: the thread that computes each row below zeroes or writes it.
    if (single)
      t.moments32.resize(rows * N);
    else
      t.moments.resize(rows * N);
  } catch (const std::bad_alloc&) {
    throw Error("field tree: out of memory for the multipoles (" + std::to_string(C) + " cells x " +
                std::to_string(N) + " terms)");
  }
  t.order = p;
  t.rows_fp32 = single;
  // Leaves' rows: made on first use (ensure_row).
  t.made = std::make_unique<std::atomic<std::uint8_t>[]>(C);
  for (std::size_t c = 0; c < C; ++c)
    t.made[c].store(cells[c].leaf() && t.slot[c] != kNoMoment ? 0 : 2, std::memory_order_relaxed);
  moment_rows(t, single);
}

}  // namespace simscope::field::tree
