#pragma once
/// @file The source side of the tree method (not a public API): the octree of the sources with
/// their sorted fp32 copy, and the multipoles of every cell for one expansion order. Built once
/// per source set (Sources::generation) and kept by the evaluator; the multipoles are redone
/// only when the order changes (a new tolerance).
#include <cstdint>
#include <vector>

#include "field/field.hpp"
#include "field/tree/multi_index.hpp"
#include "field/tree/octree.hpp"

namespace simscope::field::tree {

struct SourceTree {
  Octree oct;
  std::vector<float> x, y, z, q;    ///< the sources in the tree's (sorted) order
  std::vector<std::int32_t> level;  ///< level of each cell (root 0)
  std::uint64_t generation = 0;     ///< Sources::generation it was built from (0: unknown)
  std::size_t size = 0;             ///< number of sources
  int order = -1;                   ///< order of `moments` (-1: none yet)
  std::vector<double> moments;      ///< terms(order) scaled multipoles per cell (expansions.hpp)
  const double* moment(std::size_t cell) const {
    return moments.data() + cell * std::size_t(terms(order));
  }
  /// Bytes held (sorted sources, cells, levels, multipoles).
  double bytes() const;
};

/// Sources per leaf of the source tree.
constexpr int kSourceLeaf = 64;

/// The tree of `s` (sorted copy, cells, levels; no multipoles). Throws simscope::Error when
/// memory runs out.
SourceTree build_source_tree(const Sources& s);

/// Computes t.moments for order p (P2M at the leaves, M2M upwards, OpenMP); nothing when
/// t.order == p already.
void compute_moments(SourceTree& t, int p);

}  // namespace simscope::field::tree
