#pragma once
/// @file The octree of the tree method (not a public API): points sorted along a Morton
/// (Z-order) curve, cells as contiguous ranges of the sorted points.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "field/tree/big_vector.hpp"

namespace simscope::field::tree {

/// One cell: the sorted points [begin, end), a centre (the centre of their bounding box) and a
/// radius (every point lies within `radius` of the centre). Children are cells
/// [child, child + nchild), contiguous; a leaf has nchild == 0.
struct Cell {
  double centre[3] = {0, 0, 0};
  double radius = 0;
  std::uint32_t begin = 0, end = 0;
  std::int32_t child = -1;
  std::int32_t nchild = 0;
  std::uint32_t count() const { return end - begin; }
  bool leaf() const { return nchild == 0; }
};

/// An octree of n points. cells[0] is the root (absent when n == 0); `order[i]` is the input
/// index of sorted point i. A parent precedes its children.
struct Octree {
  std::vector<Cell> cells;
  BigVector<std::uint32_t> order;
  int depth = 0;  ///< deepest level of a cell (root: 0)
  bool permuted = false;  ///< build_cells() reordered points below the keys' resolution
};

/// Builds the octree of the points (x[i], y[i], z[i]), i < n (fp32 or fp64 coordinates, all
/// finite), splitting every cell with more than `leaf_size` points (>= 1) until level 40 (a
/// leaf may hold more points when they coincide to within 2^-40 of the bounding cube). Keys of
/// 10 bits per axis are sorted (stable, OpenMP: a scatter by the top levels' bits, then each
/// bucket by the rest); cells below level 10 with too many points are split by partitioning
/// about their cube's centre. Throws simscope::Error when n >= 2^32 - 1.
template <typename Real>
Octree build_octree(const Real* x, const Real* y, const Real* z, std::size_t n, int leaf_size);

/// The two halves of build_octree(): the points' bounding cube and their order along the
/// Morton curve (keys sorted, order[i] the input index of the i-th) ...
struct MortonOrder {
  double lo[3] = {0, 0, 0};
  double size = 1;
  BigVector<std::uint32_t> keys, order;
};
template <typename Real>
MortonOrder morton_order(const Real* x, const Real* y, const Real* z, std::size_t n);
/// ... or, for fp32 points with a charge, the points themselves copied in that order into
/// sx, sy, sz, sq (n each; `order` left empty).
MortonOrder morton_sorted_copy(const float* x, const float* y, const float* z, const float* q,
                               std::size_t n, float* sx, float* sy, float* sz, float* sq);
/// ... and the cells. The points x, y, z are indexed through m.order: a caller that has
/// already permuted its points into that order passes them with m.order the identity (the
/// cells then read memory in sequence); Octree::order is then the permutation of the permuted
/// points made by the splits below level 10 (the identity, and `permuted` false, when there
/// were none). Subtrees below the top levels are built in parallel.
template <typename Real>
Octree build_cells(const Real* x, const Real* y, const Real* z, MortonOrder&& m, int leaf_size);

}  // namespace simscope::field::tree
