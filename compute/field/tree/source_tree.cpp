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
    // The sort itself copies the sources in Morton order (morton_sorted_copy); cells are built
    // on the copy for sequential reads. Splits below the keys' resolution permute it again.
    const std::size_t n = s.size();
    t.x.resize(n), t.y.resize(n), t.z.resize(n), t.q.resize(n);
    MortonOrder mo = morton_sorted_copy(s.x.data(), s.y.data(), s.z.data(), s.q.data(), n,
                                        t.x.data(), t.y.data(), t.z.data(), t.q.data());
    mo.order.resize(n);
#pragma omp parallel for schedule(static)
    for (std::size_t i = 0; i < n; ++i) mo.order[i] = std::uint32_t(i);
    t.oct = build_cells(t.x.data(), t.y.data(), t.z.data(), std::move(mo), kSourceLeaf);
    if (t.oct.permuted) {
      BigVector<float> tmp(n);
      for (BigVector<float>* v : {&t.x, &t.y, &t.z, &t.q}) {
#pragma omp parallel for schedule(static)
        for (std::size_t i = 0; i < n; ++i) tmp[i] = (*v)[t.oct.order[i]];
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
    BigVector<double>().swap(t.moments);
    BigVector<float>().swap(t.moments32);
    t.slot.assign(C, kNoMoment);
    std::size_t rows = 0;
    for (std::size_t c = 0; c < C; ++c)
      if (cells[c].count() > kFewSources) t.slot[c] = std::uint32_t(rows++);
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
  const int depth = t.oct.depth;
  // Cells by level, deepest first: leaves get P2M, parents M2M from their finished children,
  // in fp64. When `single`, stored in fp32, and a child's rounded multipole is read back as fp64.
  std::vector<std::vector<std::int32_t>> by_level(depth + 1);
  for (std::size_t c = 0; c < C; ++c) by_level[t.level[c]].push_back(std::int32_t(c));
  for (int l = depth; l >= 0; --l) {
    const auto& list = by_level[l];
#pragma omp parallel
    {
      std::vector<double> acc(single ? N : 0), soa(N * 8);
      double centres[8][3];
#pragma omp for schedule(dynamic, 16)
      for (std::size_t k = 0; k < list.size(); ++k) {
        const Cell& c = cells[list[k]];
        const std::size_t row = t.slot[list[k]];
        if (row == kNoMoment) continue;
        double* M = single ? acc.data() : t.moments.data() + row * N;
        std::fill(M, M + N, 0.0);
        if (c.leaf()) {
          p2m(m, c.centre, t.x.data() + c.begin, t.y.data() + c.begin, t.z.data() + c.begin,
              t.q.data() + c.begin, int(c.count()), M);
        } else {
  // Children with a multipole: one M2M across them in 8 lanes. The others by P2M.
          int lanes = 0;
          std::fill(soa.begin(), soa.end(), 0.0);
          for (int j = 0; j < c.nchild; ++j) {
            const std::int32_t ch = c.child + j;
            const Cell& cc = cells[ch];
            const std::size_t r = t.slot[ch];
            if (r == kNoMoment) {  // a child of few sources: its sources directly
              p2m(m, c.centre, t.x.data() + cc.begin, t.y.data() + cc.begin, t.z.data() + cc.begin,
                  t.q.data() + cc.begin, int(cc.count()), M);
              continue;
            }
            for (int a = 0; a < 3; ++a) centres[lanes][a] = cc.centre[a];
            if (single) {
              const float* f = t.moments32.data() + r * N;
              for (std::size_t q = 0; q < N; ++q) soa[q * 8 + std::size_t(lanes)] = f[q];
            } else {
              const double* f = t.moments.data() + r * N;
              for (std::size_t q = 0; q < N; ++q) soa[q * 8 + std::size_t(lanes)] = f[q];
            }
            ++lanes;
          }
          if (lanes > 0) m2m8(m, c.centre, lanes, centres, soa.data(), M);
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
