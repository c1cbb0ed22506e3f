// The field workload's stats table (field_stat_labels.hpp).
#include "field_stat_labels.hpp"

namespace simscope::app {

std::vector<StatLabel> field_stat_labels() {
  using F = StatFormat;
  using S = StatShow;
  return {
      {"method", "method", F::Text},
      {"sources", "sources", F::Count},
      {"targets", "targets", F::Count},
      {"pairs", "pairs", F::Count, "", S::Never},
      {"pairs_per_s", "speed", F::Rate, "pairs/s", S::Present, "", "",
       "sources x targets / compute time: the pairs a direct sum evaluates, per second. A tree "
       "run evaluates far fewer (near pairs and expansions), so for it this is the direct sum's "
       "speed it matches, not work done.",
       "method_tree", "direct-equiv. speed"},
      {"skipped_coincidences", "skipped coincidences", F::Count, "", S::NonZero},
      {"peak_device_bytes", "device memory", F::Bytes, "", S::NonZero},
      {"method_tree", "tree method", F::Flag, "", S::Never, "yes", "no"},
      {"tree_order", "tree order", F::Count},
      {"tree_theta", "opening angle", F::Number},
      {"tree_build_seconds", "tree build", F::Seconds, "", S::NonZero},  // 0: a reused tree
      {"tree_preview_build_seconds", "preview's build", F::Seconds, "", S::NonZero},
      {"tree_eval_seconds", "tree eval", F::Seconds},
      {"tree_error_seconds", "error check", F::Seconds, "", S::NonZero},
      {"error_samples", "sample check", F::Count, "targets", S::NonZero, "", "",
       "The error sample: the targets where the tree's E is compared with fp64 direct sums, one "
       "drawn at random in each of as many equal runs of the plane's rows. The sample RMS and "
       "max errors are of this sample; the error view's subgrid is another check."},
      {"rms_rel_error", "sample RMS error", F::Error, "relative", S::Present, "", "",
       "||E_tree - E_direct|| / ||E||: the RMS of |E_tree - E_direct| over the error sample, "
       "divided by the RMS of |E| over all targets. tree.tolerance bounds it."},
      {"max_rel_error", "sample max error", F::Error, "relative", S::Present, "", "",
       "The largest |E_tree - E_direct| / |E_direct| of one target of the same error sample: "
       "larger than the RMS where |E| is small."},
      {"tolerance_met", "tolerance", F::Flag, "", S::Present, "met", "not met",
       "Met: the sample's RMS errors of E and of the potential are at most tree.tolerance."},
      {"error_pending", "error", F::Flag, "", S::NonZero, "being measured", ""},
      {"error_grid", "error grid", F::Count, "per side", S::Never},  // the error view says it
      {"sources_read_whole", "sources file", F::Flag, "", S::NonZero, "read whole", ""},
      // Python's only (simscope.field, simscope.Sources).
      {"tree_kept", "tree", F::Flag, "", S::Present, "kept", "built"},
      {"sources_conversions", "sources copies", F::Count, "", S::NonZero},
      {"targets_conversions", "targets copies", F::Count, "", S::NonZero},
      {"host_staging_bytes", "staged from device", F::Bytes, "", S::NonZero},
  };
}

}  // namespace simscope::app
