// The lsq workload's stats table (lsq_stat_labels.hpp).
#include "lsq_stat_labels.hpp"

namespace simscope::app {

std::vector<StatLabel> lsq_stat_labels() {
  using F = StatFormat;
  using S = StatShow;
  return {
      {"pixels", "pixels", F::Count},
      {"observations", "observations", F::Count},
      {"unknowns", "unknowns", F::Count},
      {"pixels_per_s", "speed", F::Rate, "pixels/s"},
      {"preview_stride", "preview stride", F::Count, "", S::NonZero},
      {"status_ok", "ok (status 0)", F::Count},
      {"status_underdetermined", "underdetermined", F::Count, "", S::NonZero},
      {"status_rank_deficient", "rank deficient", F::Count, "", S::NonZero},
      {"status_all_missing", "all missing", F::Count, "", S::NonZero},
      {"gap_free_pixels", "gap-free pixels", F::Count, "", S::NonZero},
      {"downdate_pixels", "downdated pixels", F::Count, "", S::NonZero},
      {"minnorm_pixels", "min-norm pixels", F::Count, "", S::NonZero},
      {"pattern_pixels", "shared-pattern pixels", F::Count, "", S::NonZero},
      {"fallback_pixels", "fallback pixels", F::Count, "", S::NonZero},
      {"host_pixels", "host pixels", F::Count, "", S::NonZero},
      {"design_rank", "design rank", F::Count, "", S::NonNegative},
      {"method_on_host", "method", F::Flag, "", S::NonZero, "ran on the host", ""},
      {"peak_device_bytes", "device memory", F::Bytes, "", S::NonZero},
      // Python's only (simscope.lsq).
      {"cube_copied_bytes", "cube copied", F::Bytes, "", S::NonZero},
      {"host_staging_bytes", "staged from device", F::Bytes, "", S::NonZero},
  };
}

}  // namespace simscope::app
