// The oscillators workload's stats table (oscillators_stat_labels.hpp).
#include "oscillators_stat_labels.hpp"

namespace simscope::app {

std::vector<StatLabel> oscillators_stat_labels() {
  using F = StatFormat;
  using S = StatShow;
  return {
      // A live frame's (LiveStats).
      {"step", "step", F::Count},
      {"live_members", "live members", F::Count},
      // A study's (StudyStats); time and nodes both.
      {"members", "members", F::Count},
      {"valid_members", "valid members", F::Count, "", S::Never},
      {"nonfinite_members", "non-finite members", F::Count, "", S::NonZero},
      {"nodes", "nodes", F::Count},
      {"steps", "steps", F::Count},
      {"transient", "transient", F::Count, "steps", S::Never},  // parameters: the left panel
      {"averaged_steps", "averaged steps", F::Count, "", S::Never},
      {"record_every", "record every", F::Count, "steps", S::Never},
      {"samples", "samples", F::Count},
      {"dt", "dt", F::Number, "", S::Never},
      {"time", "model time", F::Number},
      {"order", "order R", F::Number},
      {"msd", "msd", F::Number},
      {"msd_mean", "msd (mean)", F::Number},
      {"msd_sem", "msd (std. error)", F::Number},
      {"final_msd", "final msd", F::Number},
      {"final_order", "final order R", F::Number},
      {"osc_steps", "oscillator steps", F::Count, "", S::Never},
      {"osc_steps_per_s", "speed", F::Rate, "osc. steps/s"},
      {"peak_device_bytes", "device memory", F::Bytes, "", S::NonZero},
      {"compute_s_earlier_sessions", "earlier sessions", F::Seconds},
      {"compute_s_all_sessions", "all sessions", F::Seconds},
      // Python's only.
      {"host_staging_bytes", "staged from device", F::Bytes, "", S::NonZero},
  };
}

}  // namespace simscope::app
