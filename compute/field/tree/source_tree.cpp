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
         double(level.size()) * 4 + double(moments.size()) * 8;
}

SourceTree build_source_tree(const Sources& s) {
  SourceTree t;
  try {
    // Sort along the Morton curve, copy the sources into that order, then build the cells on
    // the copy (sequential reads); splits below the keys' resolution permute the copy once more.
    MortonOrder mo = morton_order(s.x.data(), s.y.data(), s.z.data(), s.size());
    const std::size_t n = s.size();
    t.x.resize(n), t.y.resize(n), t.z.resize(n), t.q.resize(n);
#pragma omp parallel for
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint32_t o = mo.order[i];
      t.x[i] = s.x[o], t.y[i] = s.y[o], t.z[i] = s.z[o], t.q[i] = s.q[o];
      mo.order[i] = std::uint32_t(i);
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

void compute_moments(SourceTree& t, int p) {
  if (t.order == p) return;
  const MultiIndex& m = multi_index(p);
  const std::size_t N = std::size_t(m.count), C = t.oct.cells.size();
  try {
    t.moments.assign(C * N, 0.0);
  } catch (const std::bad_alloc&) {
    throw Error("field tree: out of memory for the multipoles (" + std::to_string(C) + " cells x " +
                std::to_string(N) + " terms)");
  }
  t.order = p;
  const auto& cells = t.oct.cells;
  const int depth = t.oct.depth;
  // Cells by level, deepest first: leaves get P2M, parents M2M from their (finished) children.
  std::vector<std::vector<std::int32_t>> by_level(depth + 1);
  for (std::size_t c = 0; c < C; ++c) by_level[t.level[c]].push_back(std::int32_t(c));
  for (int l = depth; l >= 0; --l) {
    const auto& list = by_level[l];
#pragma omp parallel for schedule(dynamic, 16)
    for (std::size_t k = 0; k < list.size(); ++k) {
      const Cell& c = cells[list[k]];
      double* M = t.moments.data() + std::size_t(list[k]) * N;
      if (c.leaf()) {
        p2m(m, c.centre, t.x.data() + c.begin, t.y.data() + c.begin, t.z.data() + c.begin,
            t.q.data() + c.begin, int(c.count()), M);
      } else {
        for (int j = 0; j < c.nchild; ++j)
          m2m(m, c.centre, cells[c.child + j].centre,
              t.moments.data() + std::size_t(c.child + j) * N, M);
      }
    }
  }
}

}  // namespace simscope::field::tree
