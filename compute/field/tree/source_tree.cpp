// The source tree of the tree method (source_tree.hpp).
#include "field/tree/source_tree.hpp"

#include <omp.h>

#include <algorithm>
#include <new>

#include "core/error.hpp"
#include "field/tree/expansions.hpp"

namespace simscope::field::tree {

double SourceTree::bytes() const {
  return double(x.size()) * 16 + double(oct.cells.size()) * sizeof(Cell) +
         double(level.size()) * 4 + double(slot.size()) * 4 + double(moments.size()) * 8 +
         double(moments32.size()) * 4;
}

std::vector<double> SourceTree::moments_fp64() const {
  const std::size_t N = std::size_t(terms(order)), C = oct.cells.size();
  std::vector<double> out(C * N, 0.0), scratch(N);
  for (std::size_t c = 0; c < C; ++c)
    if (slot[c] != kNoMoment) {
      const double* M = moment(c, scratch.data());
      std::copy(M, M + N, out.begin() + std::ptrdiff_t(c * N));
    }
  return out;
}

SourceTree build_source_tree(const Sources& s) {
  SourceTree t;
  try {
    // Sort along the Morton curve, copy the sources into that order, then build the cells on
    // the copy (sequential reads); splits below the keys' resolution permute the copy once more.
    MortonOrder mo = morton_order(s.x.data(), s.y.data(), s.z.data(), s.size());
    // The gather reads one 16-byte record per source (an interleaved copy, prefetched ahead)
    // instead of four arrays at random: a quarter of the cache misses.
    const std::size_t n = s.size();
    t.x.resize(n), t.y.resize(n), t.z.resize(n), t.q.resize(n);
    {
      struct alignas(16) Rec {
        float x, y, z, q;
      };
      std::vector<Rec> rec(n);
#pragma omp parallel for
      for (std::size_t i = 0; i < n; ++i) rec[i] = Rec{s.x[i], s.y[i], s.z[i], s.q[i]};
      constexpr std::size_t kAhead = 16;
#pragma omp parallel for
      for (std::size_t i = 0; i < n; ++i) {
        if (i + kAhead < n) __builtin_prefetch(&rec[mo.order[i + kAhead]]);
        const Rec& r = rec[mo.order[i]];
        t.x[i] = r.x, t.y[i] = r.y, t.z[i] = r.z, t.q[i] = r.q;
        mo.order[i] = std::uint32_t(i);
      }
    }
    t.oct = build_cells(t.x.data(), t.y.data(), t.z.data(), std::move(mo), kSourceLeaf);
    bool identity = true;
    for (std::size_t i = 0; i < n && identity; ++i) identity = t.oct.order[i] == i;
    if (!identity) {
      std::vector<float> tmp(n);
      for (std::vector<float>* v : {&t.x, &t.y, &t.z, &t.q}) {
#pragma omp parallel for
        for (std::size_t i = 0; i < n; ++i) tmp[i] = (*v)[t.oct.order[i]];
        v->swap(tmp);
      }
    }
    // The permutation is not needed after the copy (outputs are per target).
    std::vector<std::uint32_t>().swap(t.oct.order);
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
  t.size = s.size();
  return t;
}

void compute_moments(SourceTree& t, int p, bool fp64) {
  if (holds_moments(t, p, fp64)) return;
  const bool single = p <= kSingleMomentsOrder && !fp64;
  const MultiIndex& m = multi_index(p);
  const std::size_t N = std::size_t(m.count), C = t.oct.cells.size();
  const auto& cells = t.oct.cells;
  try {
    std::vector<double>().swap(t.moments);
    std::vector<float>().swap(t.moments32);
    t.slot.assign(C, kNoMoment);
    std::size_t rows = 0;
    for (std::size_t c = 0; c < C; ++c)
      if (cells[c].count() > kFewSources) t.slot[c] = std::uint32_t(rows++);
    if (single)
      t.moments32.assign(rows * N, 0.0f);
    else
      t.moments.assign(rows * N, 0.0);
  } catch (const std::bad_alloc&) {
    throw Error("field tree: out of memory for the multipoles (" + std::to_string(C) + " cells x " +
                std::to_string(N) + " terms)");
  }
  t.order = p;
  const int depth = t.oct.depth;
  // Cells by level, deepest first: leaves get P2M, parents M2M from their (finished) children,
  // in fp64 (stored in fp32 when `single`: a child's rounded multipole is read back as fp64).
  std::vector<std::vector<std::int32_t>> by_level(depth + 1);
  for (std::size_t c = 0; c < C; ++c) by_level[t.level[c]].push_back(std::int32_t(c));
  for (int l = depth; l >= 0; --l) {
    const auto& list = by_level[l];
#pragma omp parallel
    {
      std::vector<double> acc(single ? N : 0), child(N);
#pragma omp for schedule(dynamic, 16)
      for (std::size_t k = 0; k < list.size(); ++k) {
        const Cell& c = cells[list[k]];
        const std::size_t row = t.slot[list[k]];
        if (row == kNoMoment) continue;
        double* M = single ? acc.data() : t.moments.data() + row * N;
        if (single) std::fill(acc.begin(), acc.end(), 0.0);
        if (c.leaf()) {
          p2m(m, c.centre, t.x.data() + c.begin, t.y.data() + c.begin, t.z.data() + c.begin,
              t.q.data() + c.begin, int(c.count()), M);
        } else {
          for (int j = 0; j < c.nchild; ++j) {
            const std::int32_t ch = c.child + j;
            const Cell& cc = cells[ch];
            if (t.slot[ch] == kNoMoment)  // a child of few sources: its sources directly
              p2m(m, c.centre, t.x.data() + cc.begin, t.y.data() + cc.begin, t.z.data() + cc.begin,
                  t.q.data() + cc.begin, int(cc.count()), M);
            else
              m2m(m, c.centre, cc.centre, t.moment(std::size_t(ch), child.data()), M);
          }
        }
        if (single) {
          float* out = t.moments32.data() + row * N;
          for (std::size_t q = 0; q < N; ++q) out[q] = float(acc[q]);
        }
      }
    }
  }
}

}  // namespace simscope::field::tree
