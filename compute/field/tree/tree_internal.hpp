#pragma once
/// @file Internals of the tree method shared by its files (not a public API).
#include <cstdint>
#include <memory>
#include <vector>

#include "field/field.hpp"
#include "field/tree/source_tree.hpp"

namespace simscope::field::tree {

/// The targets [r.begin, r.end) of t by the tree method (tree_cpu.cpp): acc gets 4 doubles per
/// target of the range in the direct evaluator's convention (sum q (x - y) / r^3, sum q / r;
/// without k); stats gets eval_seconds, m2l and p2p_pairs; skipped the coincidences (eps = 0).
/// `s` must hold moments of rule.order. Throws simscope::Cancelled when cancelled.
void tree_evaluate(const SourceTree& s, const Targets& t, const IndexRange& r, const Options& o,
                   const TreeRule& rule, std::vector<double>& acc, TreeStats& stats,
                   std::uint64_t& skipped, Progress* progress);

/// Direct fp64 sums of every source of `s` at n targets (OpenMP over targets x chunks of
/// sources): acc[4 i + c] in the convention above. Coincidences (r^2 == 0) are skipped.
void direct_fp64(const SourceTree& s, const double* x, const double* y, const double* z,
                 std::size_t n, double eps2, double* acc);

/// The number of sampled targets for `requested` (Options::error_samples) with P sources and
/// T targets in the range (error_sample.cpp).
std::size_t error_sample_count(std::int64_t requested, std::size_t P, std::size_t T);

/// Measures the error of the tree's acc (targets r.begin + i) against direct fp64 sums at a
/// random sample of the range's targets: fills stats.rms_rel_error, max_rel_error,
/// error_samples and error_seconds (error_sample.cpp).
void measure_error(const SourceTree& s, const Targets& t, const IndexRange& r, const Options& o,
                   const std::vector<double>& acc, TreeStats& stats);

/// Rung `rung` (0: the rule itself) of the ladder of ever tighter settings the evaluators climb
/// when the measured error exceeds the tolerance (near-cancelling fields: dipole pairs, an
/// alternating lattice seen from afar): theta x 0.8 per rung down to 0.3, then order + 2 per
/// rung up to 16 (tree_rule.cpp); a negative rung loosens theta by 1/0.85 per rung up to 0.7
/// (where the measured error was far below the tolerance: a far plane).
TreeRule refine(const TreeRule& rule, int rung);
/// The first and last rungs.
constexpr int kMinRung = -2, kMaxRung = 8;

/// The CPU tree evaluator (tree_evaluator.cpp) and the auto evaluators (auto_evaluator.cpp).
std::unique_ptr<Evaluator> make_cpu_tree_evaluator();
std::unique_ptr<Evaluator> make_auto_evaluator(Backend backend);

}  // namespace simscope::field::tree
