#pragma once
/// @file The field's run.json statistics (FieldStats), shared by the workload adapter and the
/// Python module's array path (so both report the same keys).
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "field/field.hpp"
#include "workload.hpp"

namespace simscope::app {

/// The field's stats (run.json "stats", Python's result.stats), by name in to_map(), and the
/// method text (stat_texts "method"). An unset optional is a stat the result does not carry.
struct FieldStats {
  double sources = 0;               ///< the sources evaluated (a share's own in a source share)
  double targets = 0;               ///< the targets evaluated
  double skipped_coincidences = 0;  ///< source-target coincidences skipped (eps = 0)
  double peak_device_bytes = 0;
  std::optional<double> method_tree;  ///< 1 when the tree method ran, 0 for direct sums
  std::string method;                 ///< "direct" or "tree" (auto resolved); empty: none ran
  std::optional<double> pairs, pairs_per_s;  ///< sources x targets, over compute_seconds
  /// The tree method's times (s), order and opening angle.
  std::optional<double> tree_build_seconds, tree_eval_seconds, tree_error_seconds, tree_order,
      tree_theta;
  /// The window's full run that reused its preview's tree: that preview's build time (s).
  std::optional<double> tree_preview_build_seconds;
  /// The tree's error measured at error_samples targets against fp64 direct sums
  /// (field::TreeStats); tolerance_met 1 when within tree.tolerance, else 0.
  std::optional<double> error_samples, rms_rel_error, max_rel_error, tolerance_met;
  std::optional<double> error_pending;       ///< 1: the measured error is deferred (follow_up)
  std::optional<double> error_grid;          ///< the error view's subgrid extent m
  std::optional<double> sources_read_whole;  ///< 1: a source share read the whole file (.csv)

  /// Sets `method`, `method_tree` and, for the tree method, tree_build/eval/error_seconds,
  /// tree_order, tree_theta, error_samples and, when targets were sampled, rms_rel_error,
  /// max_rel_error and tolerance_met (1 when the larger of the field's and the potential's RMS
  /// errors is within `params`' tree.tolerance; 0 with a warning appended to `warnings`: the
  /// outputs are then the tree's best, not what was asked for); with the error deferred
  /// (field::TreeStats::error_deferred) error_pending 1 and no error yet.
  void set_method(const field::Result& fr, const ParamSet& params,
                  std::vector<std::string>& warnings);

  /// The stats as run.json names them: the four counts always, the optional ones when set.
  std::map<std::string, double> to_map() const;
  /// The stat texts: "method" when set.
  std::map<std::string, std::string> text_map() const;
  /// The stats of `r` (its stats and stat_texts). Throws simscope::Error naming a missing key.
  static FieldStats from(const RunResult& r);
  /// Sets r's stats and stat_texts named by to_map() and text_map(); other keys are kept.
  void store(RunResult& r) const;
  /// Removes r's stat error_pending (its deferred error now measured).
  static void erase_pending(RunResult& r);

  /// Consecutive target ranges as one run over `targets` targets: the first part's stats with
  /// skipped_coincidences summed, peak_device_bytes the largest and the tree's merged
  /// (merge_tree).
  static FieldStats merged_ranges(const std::vector<FieldStats>& parts, double targets);
  /// Shares of the sources as one run over `targets` targets: sources summed, method,
  /// method_tree and each tree_* stat the first part's that has it, skipped_coincidences summed,
  /// peak_device_bytes the largest and the tree's merged (merge_tree); no other stats.
  static FieldStats merged_shares(const std::vector<FieldStats>& parts, double targets);

 private:
  /// When tree_order is set: the tree's times summed over `parts` (0 where unset),
  /// error_samples summed over the parts with rms_rel_error, rms_rel_error their
  /// sample-weighted RMS and max_rel_error the largest (when samples > 0), tolerance_met the
  /// smallest of the parts' that have it.
  void merge_tree(const std::vector<FieldStats>& parts);
  /// skipped_coincidences summed, peak_device_bytes the largest, then merge_tree.
  void merge_counts(const std::vector<FieldStats>& parts);
};

/// Sets r's method stats from `fr` (FieldStats::set_method with r.params and r.warnings).
/// Requires r's stats to hold the four counts (FieldStats::from).
void add_tree_stats(const field::Result& fr, RunResult& r);

}  // namespace simscope::app
