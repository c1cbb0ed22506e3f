#pragma once
/// @file Internals of the tree method shared by its files. Not a public API.
#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "core/isa.hpp"
#include "field/field.hpp"
#include "field/tree/source_tree.hpp"

namespace simscope::field::tree {

constexpr int kTargetLeaf = 32;  ///< targets per leaf of the target tree
/// Cost of an M2L in direct-loop pairs per pair of its index table; calibrated in NOTES.md.
/// An accepted pair is summed directly when that is cheaper.
constexpr double kM2LPairs = 0.5;
/// The same for eps = 0, where the CPU's M2L takes the harmonic form (m2l8_harmonic), per pair of
/// the full table: low enough that every accepted pair of cells with multipoles is an M2L at the
/// tolerances' orders (NOTES.md "The kept tree's evaluation of a new plane", second pass).
constexpr double kHarmonicM2LPairs = 0.08;
/// Cost of one M2L in direct-loop pairs, for softening eps2. A source cell of at most
/// SourceTree::few sources is always summed directly; such cells keep no multipole
/// (source_tree.hpp few_sources). Every back end takes the same, so they make the same decisions.
inline double m2l_pair_cost(const MultiIndex& m, double eps2) {
  return (eps2 == 0 ? kHarmonicM2LPairs : kM2LPairs) * double(m.pair_b.size());
}

/// What the dual traversal does with a pair of cells, A targets and B sources. Every back end
/// follows it.
enum class Action { M2L, P2P, SplitTarget, SplitSource };
/// M2L when r_A + r_B < theta |z_A - c_B| and a direct sum costs more: n_A n_B > m2l_cost and
/// n_B > few (SourceTree::few: B has a multipole). P2P when accepted but cheaper that way, or
/// when both are leaves. Else split the larger cell, or the target cell when the source cell
/// is a leaf. Counts are the cells' own, not a work range's, so decisions do not depend on
/// the range.
inline Action classify(const Cell& A, const Cell& B, double theta, double m2l_cost,
                       std::uint32_t few) {
  const double dx = A.centre[0] - B.centre[0], dy = A.centre[1] - B.centre[1],
               dz = A.centre[2] - B.centre[2];
  // r_A + r_B < theta d, squared: no square root on the traversal's path.
  const double rr = A.radius + B.radius;
  const bool accept = rr * rr < theta * theta * (dx * dx + dy * dy + dz * dz);
  const bool cheap = double(A.count()) * double(B.count()) <= m2l_cost || B.count() <= few;
  if (accept) return cheap ? Action::P2P : Action::M2L;
  if (A.leaf() && B.leaf()) return Action::P2P;
  if (B.leaf() || (!A.leaf() && A.radius >= B.radius)) return Action::SplitTarget;
  return Action::SplitSource;
}

/// The order of an accepted pair's M2L, the same in every back end: the lowest q <= p with
/// ((r_A + r_B) / d)^(q+1) <= kOrderMargin theta^(p+1), and at least kMinM2LOrder. Its
/// truncation bound is then at most a fraction of the loosest accepted pair's at order p, so
/// pairs well inside the opening angle use fewer terms.
constexpr double kOrderMargin = 0.25;
constexpr int kMinM2LOrder = 2;
class M2LOrder {
 public:
  M2LOrder(double theta, int p) : p_(p) {
    const double bound = kOrderMargin * std::pow(theta, p + 1);
    for (int q = 0; q <= p; ++q) {
      const double limit = std::pow(bound, 1.0 / (q + 1));
      limit2_[q] = limit * limit;
    }
  }
  int operator()(const Cell& A, const Cell& B) const {
    const double dx = A.centre[0] - B.centre[0], dy = A.centre[1] - B.centre[1],
                 dz = A.centre[2] - B.centre[2];
    const double rr = A.radius + B.radius;
    const double d2 = dx * dx + dy * dy + dz * dz;
    // limit2_ increases with q, so the orders that fail are a prefix: counted without branches.
    int q = p_ < kMinM2LOrder ? p_ : kMinM2LOrder;
    const double r2 = rr * rr;
    for (int k = q; k < p_; ++k) q += r2 > limit2_[k] * d2;
    return q;
  }

 private:
  int p_;
  double limit2_[kMaxOrder + 1] = {};  ///< limit_q^2: ((r_A + r_B) / d)^2 at which order q fails
};

/// The target tree of an evaluation, shared by the back ends (target_tree.cpp). It is the
/// octree of the whole target set, so a target's arithmetic does not depend on the work range,
/// and marks which cells hold targets of the range r.
struct TargetTree {
  Octree tree;
  std::vector<std::uint32_t> prefix;  ///< prefix[i]: sorted targets before i that are in r
  IndexRange range;
  /// Whether cell a holds a target of the range.
  bool in_range(std::int32_t a) const {
    return prefix[tree.cells[a].end] > prefix[tree.cells[a].begin];
  }
  /// Whether sorted target i is in the range.
  bool target_in(std::uint32_t i) const {
    const std::uint32_t o = tree.order[i];
    return o >= range.begin && o < range.end;
  }
  /// Targets of the range in cell a.
  std::uint32_t count_in(std::int32_t a) const {
    return prefix[tree.cells[a].end] - prefix[tree.cells[a].begin];
  }
};
/// Builds it with leaf_size targets per leaf.
TargetTree build_target_tree(const Targets& t, const IndexRange& r, int leaf_size = kTargetLeaf);

/// Buffers of tree_evaluate() kept between evaluations, so their pages stay mapped. BigVector:
/// huge pages, and `local` is not zeroed (has_local says which rows are written).
struct TreeWorkspace {
  BigVector<double> local, sorted_acc;
  std::vector<std::uint8_t> has_local;
};

// Defined once per instruction-set level in tree_cpu.cpp; tree_cpu_dispatch.cpp calls the
// active level's (core/isa.hpp).
SIMSCOPE_ISA_BEGIN
/// Evaluates the targets [r.begin, r.end) of t by the tree method (tree_cpu.cpp). acc gets 4
/// doubles per target of the range in the direct evaluator's convention, without k:
/// sum q (x - y) / r^3, sum q / r. stats gets eval_seconds, m2l and p2p_pairs; skipped gets the
/// coincidences (eps = 0). `s` must hold moments of rule.order. Throws simscope::Cancelled when
/// cancelled. The optional `workspace` keeps the buffers for the next call.
void tree_evaluate(const SourceTree& s, const Targets& t, const IndexRange& r, const Options& o,
                   const TreeRule& rule, std::vector<double>& acc, TreeStats& stats,
                   std::uint64_t& skipped, Progress* progress,
                   TreeWorkspace* workspace = nullptr);

/// Direct fp64 sums of every source of `s` at n targets, with OpenMP over targets x source
/// chunks. acc[4 i + c] in the convention above. Coincidences (r^2 == 0) are skipped.
void direct_fp64(const SourceTree& s, const double* x, const double* y, const double* z,
                 std::size_t n, double eps2, double* acc);
/// Fills the rows of t.moments (or t.moments32 when `single`) of order t.order for the inner
/// cells with a slot (moments_cpu.cpp): M2M from inner children, P2M of leaf children's
/// sources, level by level upwards, with OpenMP. Rows and slots are allocated by
/// compute_moments().
void moment_rows(SourceTree& t, bool single);
/// Fills the row of leaf `cell` (P2M of its sources; SourceTree::ensure_row).
void leaf_row(SourceTree& t, std::size_t cell);
SIMSCOPE_ISA_END

/// The number of sampled targets for `requested` (Options::error_samples), with P sources and
/// T targets in the range. Defined in error_sample.cpp.
std::size_t error_sample_count(std::int64_t requested, std::size_t P, std::size_t T);

/// Direct fp64 sums at n targets into acc, 4 per target in the convention above.
using DirectSums = std::function<void(const double* x, const double* y, const double* z,
                                      std::size_t n, double* acc)>;

/// Measures the error of the tree's acc (targets r.begin + i) against direct fp64 sums made by
/// `direct` at a random sample of the range's targets. Fills stats.rms_rel_error,
/// max_rel_error, rms_rel_error_potential, error_samples and error_seconds (error_sample.cpp).
void measure_error(std::size_t sources, const Targets& t, const IndexRange& r, const Options& o,
                   const std::vector<double>& acc, const DirectSums& direct, TreeStats& stats);

/// The per-target relative error of E (Result::target_errors) at o.error_targets, indices into
/// t within r, of the tree's acc (targets r.begin + i) against direct fp64 sums made by
/// `direct` (error_sample.cpp). Adds the time to stats.error_seconds.
std::vector<float> target_errors(const Targets& t, const IndexRange& r, const Options& o,
                                 const std::vector<double>& acc, const DirectSums& direct,
                                 TreeStats& stats);

/// Throws simscope::Error when an entry of o.error_targets is outside r.
void check_error_targets(const Options& o, const IndexRange& r);

/// One back end of the tree method: the evaluation proper and the direct sums of the measured
/// error. The evaluator around it (tree_evaluator.cpp) keeps the source tree, climbs the
/// ladder and writes the Result.
class TreeBackend {
 public:
  virtual ~TreeBackend() = default;
  virtual Backend backend() const = 0;
  /// Fills acc (4 doubles per target of r, in range order), stats.eval_seconds, m2l,
  /// p2p_pairs and skipped. `s` holds moments of rule.order.
  virtual void evaluate(const SourceTree& s, const Targets& t, const IndexRange& r,
                        const Options& o, const TreeRule& rule, std::vector<double>& acc,
                        TreeStats& stats, std::uint64_t& skipped, Progress* progress) = 0;
  /// Direct fp64 sums of every source of `s` at n targets.
  virtual void direct(const SourceTree& s, const double* x, const double* y, const double* z,
                      std::size_t n, double eps2, double* acc) = 0;
  /// Called after the source tree is rebuilt: device copies of its sources, cells and
  /// multipoles are stale.
  virtual void tree_changed() {}
  /// Called after only the multipoles are recomputed for another order or storage: device
  /// copies of the multipoles are stale, those of the sources and cells are not.
  virtual void moments_changed() {}
  virtual double peak_device_bytes() const { return 0; }
};

/// The tree evaluator over a back end (tree_evaluator.cpp).
std::unique_ptr<Evaluator> make_tree_evaluator(std::unique_ptr<TreeBackend> backend);
/// The CUDA back end, in tree_cuda.cu. Only with SIMSCOPE_HAVE_CUDA.
std::unique_ptr<TreeBackend> make_cuda_tree_backend();
/// The CUDA tree evaluator. Throws simscope::Error where the CUDA back end is not compiled.
std::unique_ptr<Evaluator> make_cuda_tree_evaluator();

/// Rung `rung` of the ladder of ever tighter settings the evaluators climb when the measured
/// error exceeds the tolerance, as for near-cancelling fields (dipole pairs, an alternating
/// lattice seen from afar). Rung 0 is the rule itself. Each rung multiplies theta by 0.8 down
/// to 0.3, then adds 2 to the order up to 16 (tree_rule.cpp). A negative rung loosens theta by
/// 1/0.85 per rung up to 0.7, for an error far below the tolerance, e.g. a far plane.
TreeRule refine(const TreeRule& rule, int rung);
/// The first and last rungs.
constexpr int kMinRung = -2, kMaxRung = 8;

/// The CPU tree evaluator (tree_evaluator.cpp) and the auto evaluators (auto_evaluator.cpp).
std::unique_ptr<Evaluator> make_cpu_tree_evaluator();
std::unique_ptr<Evaluator> make_auto_evaluator(Backend backend);

}  // namespace simscope::field::tree
