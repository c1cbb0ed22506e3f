#pragma once
/// @file The field's run.json statistics of the method that ran, shared by the workload adapter
/// and the Python module's array path (so both report the same keys).
#include "field/field.hpp"
#include "workload.hpp"

namespace simscope::app {

/// Sets r.stat_texts "method" ("direct" or "tree": the method that computed `fr`, method=auto
/// resolved). Adds to r.stats "method_tree" (1 when the tree method computed `fr`, else 0) and,
/// for the
/// tree method, "tree_build_seconds", "tree_eval_seconds", "tree_error_seconds" (s),
/// "tree_order", "tree_theta", "error_samples" and, when targets were sampled,
/// "rms_rel_error" and "max_rel_error" (the error measured against fp64 direct sums at the
/// sampled targets: field::TreeStats) and "tolerance_met" (1 when the larger of the field's and
/// the potential's RMS errors is within tree.tolerance; 0 with a warning in r.warnings saying
/// so: the outputs are then the tree's best, not what was asked for); with the error deferred
/// (the window's frame: field::TreeStats::error_deferred) "error_pending" 1 and no error yet.
void add_tree_stats(const field::Result& fr, RunResult& r);

}  // namespace simscope::app
