#pragma once
/// @file The oscillators' stats: run.json "stats" and Python's result.stats.
#include <map>
#include <optional>
#include <string>

#include "oscillators/study.hpp"

namespace simscope::app {

/// A study's stats. Counts are whole numbers held as double.
/// to_map() leaves out non-finite values, since JSON has no NaN.
struct StudyStats {
  double msd_mean = 0, msd_sem = 0;  ///< the ensemble mean of the members' time-averaged msd
  double members = 0, valid_members = 0, nonfinite_members = 0, nodes = 0;
  double steps = 0, transient = 0, averaged_steps = 0, record_every = 0, samples = 0;
  double dt = 0, time = 0;  ///< time = dt x steps
  double osc_steps = 0;     ///< members x nodes x steps
  /// osc_steps over the integration time of every session of a resumed study.
  double osc_steps_per_s = 0;
  double peak_device_bytes = 0;
  std::optional<double> final_msd, final_order;  ///< the last sample's; none without samples
  /// A resumed study's integration time in seconds: before this session, and over all sessions.
  std::optional<double> compute_s_earlier_sessions, compute_s_all_sessions;

  /// The stats of the study result `s` run with options `o`.
  static StudyStats of(const oscillators::StudyResult& s, const oscillators::StudyOptions& o);
  std::map<std::string, double> to_map() const;
};

/// A live frame's stats: the state after `step` RK4 steps.
struct LiveStats {
  double step = 0, time = 0, live_members = 0, nodes = 0;
  std::optional<double> order, msd;  ///< the newest sample's R and msd; none when not finite
  std::map<std::string, double> to_map() const;
};

}  // namespace simscope::app
