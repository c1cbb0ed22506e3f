#include "oscillators_stats.hpp"

#include <cmath>

namespace simscope::app {
namespace {

/// Adds `v` as `key` when it is finite.
void put(std::map<std::string, double>& m, const char* key, double v) {
  if (std::isfinite(v)) m[key] = v;
}
void put(std::map<std::string, double>& m, const char* key, const std::optional<double>& v) {
  if (v) put(m, key, *v);
}

}  // namespace

StudyStats StudyStats::of(const oscillators::StudyResult& s, const oscillators::StudyOptions& o) {
  StudyStats t;
  const double K = double(s.msd.size()), N = double(s.final_state.nodes);
  const std::size_t T = s.msd_t.size();
  t.msd_mean = s.msd_mean, t.msd_sem = s.msd_sem;
  t.members = K, t.valid_members = double(s.valid), t.nonfinite_members = double(s.failed_count);
  t.nodes = N;
  t.steps = double(o.steps), t.transient = double(o.transient);
  t.averaged_steps = double(o.steps - o.transient);
  t.record_every = double(o.every), t.samples = double(T);
  t.dt = o.dt, t.time = o.dt * double(o.steps);
  t.osc_steps = K * N * double(o.steps);
  t.osc_steps_per_s = s.seconds > 0 ? t.osc_steps / s.seconds : 0;
  t.peak_device_bytes = s.peak_device_bytes;
  if (T > 0) t.final_msd = s.msd_t.back(), t.final_order = s.order_t.back();
  if (s.seconds_before > 0)
    t.compute_s_earlier_sessions = s.seconds_before, t.compute_s_all_sessions = s.seconds;
  return t;
}

std::map<std::string, double> StudyStats::to_map() const {
  std::map<std::string, double> m;
  put(m, "msd_mean", msd_mean);
  put(m, "msd_sem", msd_sem);
  put(m, "members", members);
  put(m, "valid_members", valid_members);
  put(m, "nonfinite_members", nonfinite_members);
  put(m, "nodes", nodes);
  put(m, "steps", steps);
  put(m, "transient", transient);
  put(m, "averaged_steps", averaged_steps);
  put(m, "record_every", record_every);
  put(m, "samples", samples);
  put(m, "dt", dt);
  put(m, "time", time);
  put(m, "osc_steps", osc_steps);
  put(m, "osc_steps_per_s", osc_steps_per_s);
  put(m, "peak_device_bytes", peak_device_bytes);
  put(m, "final_msd", final_msd);
  put(m, "final_order", final_order);
  put(m, "compute_s_earlier_sessions", compute_s_earlier_sessions);
  put(m, "compute_s_all_sessions", compute_s_all_sessions);
  return m;
}

std::map<std::string, double> LiveStats::to_map() const {
  std::map<std::string, double> m;
  put(m, "step", step);
  put(m, "time", time);
  put(m, "live_members", live_members);
  put(m, "nodes", nodes);
  put(m, "order", order);
  put(m, "msd", msd);
  return m;
}

}  // namespace simscope::app
