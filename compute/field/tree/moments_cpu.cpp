// The multipoles of the source tree on the CPU (source_tree.hpp compute_moments), compiled
// once per instruction-set level: each inner cell's by M2M from its inner children, 8 at a
// time, and P2M of its leaf children's sources, level by level from the deepest, with OpenMP.
// A leaf's row only when first used (leaf_row). Rows are stored in the harmonic row form
// (multi_index.hpp harmonic_row); M2M reads its children's back in the layout.
#include <omp.h>

#include <algorithm>
#include <vector>

#include "field/tree/expansions.hpp"
#include "field/tree/source_tree.hpp"
#include "field/tree/tree_internal.hpp"

namespace simscope::field::tree {

SIMSCOPE_ISA_BEGIN

void moment_rows(SourceTree& t, bool single) {
  const MultiIndex& m = multi_index(t.order);
  const std::size_t N = std::size_t(m.count), C = t.oct.cells.size();
  const auto& cells = t.oct.cells;
  const int depth = t.oct.depth;
  // Inner cells by level, deepest first, in fp64 from their finished inner children (M2M) and
  // their leaf children's sources (P2M). When `single`, stored in fp32, and a child's rounded
  // row is read back as fp64.
  std::vector<std::vector<std::int32_t>> by_level(std::size_t(depth) + 1);
  for (std::size_t c = 0; c < C; ++c)
    if (t.slot[c] != kNoMoment && !cells[c].leaf())
      by_level[std::size_t(t.level[c])].push_back(std::int32_t(c));
  for (int l = depth; l >= 0; --l) {
    const auto& list = by_level[std::size_t(l)];
#pragma omp parallel
    {
      std::vector<double> acc(N), soa(N * 8), row(N), child(N);
      double centres[8][3];
#pragma omp for schedule(dynamic, 16)
      for (std::size_t k = 0; k < list.size(); ++k) {
        const Cell& c = cells[std::size_t(list[k])];
        const std::size_t slot = t.slot[std::size_t(list[k])];
        double* M = acc.data();
        std::fill(M, M + N, 0.0);
        // Inner children: one M2M across them in 8 lanes. Leaves (whose rows may not be
        // made) by P2M of their sources, so the result does not depend on which rows are.
        int lanes = 0;
        for (int j = 0; j < c.nchild; ++j) {
          const std::size_t ch = std::size_t(c.child + j);
          const Cell& cc = cells[ch];
          const std::size_t r = t.slot[ch];
          if (r == kNoMoment || cc.leaf()) {
            p2m(m, c.centre, t.x.data() + cc.begin, t.y.data() + cc.begin, t.z.data() + cc.begin,
                t.q.data() + cc.begin, int(cc.count()), M);
            continue;
          }
          if (lanes == 0) std::fill(soa.begin(), soa.end(), 0.0);
          for (int a = 0; a < 3; ++a) centres[lanes][a] = cc.centre[a];
          if (single) {
            const float* f = t.moments32.data() + r * N;
            std::copy(f, f + N, row.begin());
            layout_row(m, row.data(), child.data());
          } else {
            layout_row(m, t.moments.data() + r * N, child.data());
          }
          for (std::size_t q = 0; q < N; ++q) soa[q * 8 + std::size_t(lanes)] = child[q];
          ++lanes;
        }
        if (lanes > 0) m2m8(m, c.centre, lanes, centres, soa.data(), M);
        harmonic_row(m, M, row.data());
        if (single) {
          float* out = t.moments32.data() + slot * N;
          for (std::size_t q = 0; q < N; ++q) out[q] = float(row[q]);
        } else {
          std::copy(row.begin(), row.end(), t.moments.data() + slot * N);
        }
      }
    }
  }
}

void leaf_row(SourceTree& t, std::size_t cell) {
  const MultiIndex& m = multi_index(t.order);
  const std::size_t N = std::size_t(m.count), row = t.slot[cell];
  const Cell& c = t.oct.cells[cell];
  static thread_local std::vector<double> acc, h;
  acc.assign(N, 0.0), h.resize(N);
  p2m(m, c.centre, t.x.data() + c.begin, t.y.data() + c.begin, t.z.data() + c.begin,
      t.q.data() + c.begin, int(c.count()), acc.data());
  harmonic_row(m, acc.data(), h.data());
  if (t.single()) {
    float* out = t.moments32.data() + row * N;
    for (std::size_t q = 0; q < N; ++q) out[q] = float(h[q]);
  } else {
    std::copy(h.begin(), h.end(), t.moments.data() + row * N);
  }
}

SIMSCOPE_ISA_END

}  // namespace simscope::field::tree
