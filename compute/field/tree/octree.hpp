#pragma once
/// @file The octree of the tree method. Not a public API. Points are sorted along a Morton
/// (Z-order) curve; cells are contiguous ranges of the sorted points.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/big_vector.hpp"

namespace simscope::field::tree {

/// One cell: the sorted points [begin, end), a centre at their bounding box's centre, and a
/// radius: every point lies within `radius` of the centre. Children are the contiguous cells
/// [child, child + nchild). A leaf has nchild == 0.
struct Cell {
  double centre[3] = {0, 0, 0};
  double radius = 0;
  std::uint32_t begin = 0, end = 0;
  std::int32_t child = -1;
  std::int32_t nchild = 0;
  std::uint32_t count() const { return end - begin; }
  bool leaf() const { return nchild == 0; }
};

/// An octree of n points. cells[0] is the root, absent when n == 0. `order[i]` is the input
/// index of sorted point i; empty for the identity (build_cells). A parent precedes its
/// children.
struct Octree {
  BigVector<Cell> cells;
  BigVector<std::uint32_t> order;
  int depth = 0;  ///< deepest level of a cell (root: 0)
  bool permuted = false;  ///< build_cells() reordered points below the keys' resolution
};

/// Builds the octree of the points (x[i], y[i], z[i]), i < n, in fp32 or fp64, all finite.
/// Splits every cell with more than `leaf_size` (>= 1) points until level 40, except a cell whose
/// points all coincide, which stays one leaf of radius 0 however many it holds. Keys of 10 bits per axis are
/// sorted stably with OpenMP: a scatter by the top levels' bits, then each bucket by the rest.
/// Cells below level 10 with too many points are split by partitioning about the centre of
/// their points' bounding cube. Throws simscope::Error when n >= 2^32 - 1.
template <typename Real>
Octree build_octree(const Real* x, const Real* y, const Real* z, std::size_t n, int leaf_size);

/// First half of build_octree(): the points' bounding cube and their order along the Morton
/// curve. Keys are sorted; order[i] is the input index of the i-th.
struct MortonOrder {
  double lo[3] = {0, 0, 0};
  double size = 1;
  BigVector<std::uint32_t> keys, order;
  std::uint32_t longest_run = 0;  ///< most points sharing one key
};
template <typename Real>
MortonOrder morton_order(const Real* x, const Real* y, const Real* z, std::size_t n);
/// Variant of morton_order for fp32 points with a charge: copies the points in that order
/// into sx, sy, sz, sq (n each) and leaves `order` empty.
MortonOrder morton_sorted_copy(const float* x, const float* y, const float* z, const float* q,
                               std::size_t n, float* sx, float* sy, float* sz, float* sq);
/// Second half of build_octree(): the cells. Points x, y, z are indexed through m.order. A
/// caller that already permuted its points into that order passes m.order empty (the
/// identity), so cells read memory in sequence. Octree::order is then the permutation made by
/// the splits below level 10, made only when a key holds more than leaf_size points; empty,
/// with `permuted` false, when there are none. Subtrees below the top levels are built in
/// parallel.
template <typename Real>
Octree build_cells(const Real* x, const Real* y, const Real* z, MortonOrder&& m, int leaf_size);

}  // namespace simscope::field::tree
