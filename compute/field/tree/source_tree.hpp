#pragma once
/// @file The source side of the tree method. Not a public API. Holds the octree of the sources
/// with their sorted fp32 copy, and every cell's multipoles for one expansion order. Built once
/// per source set (Sources::generation) and kept by the evaluator. The multipoles are redone
/// only when the order changes, i.e. for a new tolerance.
#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/progress.hpp"
#include "field/field.hpp"
#include "field/tree/multi_index.hpp"
#include "field/tree/octree.hpp"

namespace simscope::field::tree {

/// A source cell with at most few_sources() sources keeps no multipole and is always summed
/// directly (tree_internal.hpp classify). Its parent's multipole takes its sources by P2M.
/// The least such count at any order.
constexpr std::uint32_t kFewSources = 8;
/// At order p with multipoles of `bytes` per term (4: fp32, 8: fp64): kFewSources, or
/// terms(p) bytes / 24 where more (fp32: 20 at order 7, 36 at order 9; fp64: 40 and 73). So a
/// cell keeps a multipole only when its row takes at most 1.5 times its sources' 16 bytes
/// each. With <= 64 sources per leaf and 8 children per parent this bounds the tree at about
/// 47 bytes per source at every order and either storage (NOTES.md "The tree on any CPU and
/// at any plane"). A cell of no more sources is summed directly by every target cell that
/// accepts it, instead of an M2L.
inline std::uint32_t few_sources(int p, int bytes) {
  const std::uint32_t by_terms = std::uint32_t(terms(p) * bytes / 24);
  return by_terms > kFewSources ? by_terms : kFewSources;
}
/// SourceTree::slot of a cell without a multipole.
constexpr std::uint32_t kNoMoment = 0xffffffffu;

struct SourceTree {
  Octree oct;
  BigVector<float> x, y, z, q;      ///< the sources in the tree's (sorted) order
  std::vector<std::int32_t> level;  ///< level of each cell (root 0)
  std::uint64_t generation = 0;     ///< Sources::generation it was built from (0: unknown)
  std::size_t size = 0;             ///< number of sources held (coincident ones merged)
  std::size_t input_size = 0;       ///< Sources::size() it was built from
  /// A point where sources coincided (the same x, y, z) and were merged into one source
  /// holding their summed charge: `extra` sources fewer are held there.
  struct Merged {
    double x, y, z;
    std::uint64_t extra;
    bool operator<(const Merged& o) const {
      return x != o.x ? x < o.x : y != o.y ? y < o.y : z < o.z;
    }
  };
  std::vector<Merged> merged;  ///< sorted by x, y, z; empty when no sources coincided
  /// The (source, target) coincidences of targets [r.begin, r.end) of `t` that merging removed:
  /// the sum of `extra` over the targets at a merged point. eps = 0 skips and counts each
  /// pair, so the evaluator adds these to the pairs it skipped.
  std::uint64_t merged_coincidences(const Targets& t, const IndexRange& r) const;
  int order = -1;                   ///< order of the multipoles (-1: none yet)
  /// few_sources() of the multipoles' order and storage: cells of at most `few` sources have
  /// no multipole.
  std::uint32_t few = kFewSources;
  /// terms(order) scaled multipoles per cell (expansions.hpp), computed in fp64. Stored in fp32
  /// (`moments32`) for orders up to kSingleMomentsOrder, in fp64 (`moments`) above. The fp32
  /// rounding, 3e-8 of each term, is 30x below those orders' tolerances (>= 1e-6) and halves the
  /// tree's memory (NOTES.md "field tree", memory).
  /// Rows of terms(order) values in the harmonic row form (multi_index.hpp harmonic_row), so the
  /// eps = 0 M2L of order q reads a row's first (q+1)^2 values: row slot[c] is cell c's.
  /// kNoMoment: none, for cells with count() <= few. A leaf's row is made on first use
  /// (ensure_row), not by compute_moments(): read one only after ensure_row().
  BigVector<double> moments;
  BigVector<float> moments32;
  std::vector<std::uint32_t> slot;
  /// Per cell: 2 when its row is made (or it has none), 0 when not yet, 1 while being made.
  std::unique_ptr<std::atomic<std::uint8_t>[]> made;
  bool single() const { return !moments32.empty(); }
  /// The storage compute_moments() chose, fp32 rows or fp64, also when no cell has a row.
  bool rows_fp32 = false;
  /// Makes the row of `cell` when it is a leaf's not yet made: P2M of its sources, at the CPU's
  /// instruction-set level. Thread-safe: one thread makes it, others wait for it. The tree is
  /// otherwise unchanged, so this counts as reading it.
  void ensure_row(std::size_t cell) const;
  /// ensure_row() of every cell, with OpenMP (for copies such as moments_fp64(), and the
  /// window's idle time: Evaluator::complete_cache). With `progress`, in chunks, throwing
  /// simscope::Cancelled between them; the rows made stay made.
  void ensure_all_rows(const Progress* progress = nullptr) const;
  /// The row of `cell`, which must have one, in fp64 (harmonic row form). Returns a pointer
  /// into `moments`, or `scratch` (terms(order) doubles) filled from `moments32`.
  const double* row(std::size_t cell, double* scratch) const;
  /// The multipole of `cell`, which must have one, in fp64 in the layout of multi_index.hpp:
  /// `scratch` (2 terms(order) doubles) filled from its row.
  const double* moment(std::size_t cell, double* scratch) const;
  /// Every cell's multipole in fp64, one row per cell, zeros where none. A copy for uploads.
  std::vector<double> moments_fp64() const;
  /// Bytes held by sorted sources, cells, levels and multipoles.
  double bytes() const;
};

/// The highest expansion order whose multipoles are stored in fp32 under precision=fp32.
/// tree_rule uses these orders for tolerances >= 1e-6.
constexpr int kSingleMomentsOrder = 9;

/// Sources per leaf of the source tree.
constexpr int kSourceLeaf = 64;

/// Builds the tree of `s`: sorted copy, cells, levels; no multipoles. Sources at exactly the
/// same point, where more than kSourceLeaf share a Morton key, are merged into one source with
/// their summed charge (rounded once to float32): every term of theirs has the same distance,
/// so the field is theirs to that rounding, and a leaf of millions of coincident sources costs
/// one term (the seed's `torch.ones` positions). Throws simscope::Error when memory runs out.
SourceTree build_source_tree(const Sources& s);

/// Computes t.moments for order p: each inner cell's by M2M from its inner children and P2M of
/// its leaf children's sources, with OpenMP; leaves' rows are made on first use (ensure_row),
/// so a build does not pay for those no M2L reads (a far plane reads none). Stored in fp32 for
/// orders up to kSingleMomentsOrder unless `fp64` is set (precision=fp64). Does nothing when t
/// already holds those.
void compute_moments(SourceTree& t, int p, bool fp64 = false);

/// True when t holds the multipoles compute_moments(t, p, fp64) computes, order and storage.
inline bool holds_moments(const SourceTree& t, int p, bool fp64) {
  return t.order == p && t.rows_fp32 == (p <= kSingleMomentsOrder && !fp64);
}

}  // namespace simscope::field::tree
