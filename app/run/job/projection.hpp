#pragma once
/// @file A long job's projection from its progress: the rate so far and the time left and in all.
/// The window's progress bars use eta_from_start; the batch progress line uses project.
#include <optional>

namespace simscope::app {

/// Rate and times of a job of known work (e.g. a study's oscillator-steps), measured between
/// two progress reports.
struct Projection {
  double rate = 0;     ///< work per second between the reports
  double eta_s = 0;    ///< seconds left: work (1 - f) / rate
  double total_s = 0;  ///< seconds of the whole job at this rate: work / rate
};

/// The projection of a job of `work` units (> 0) from its first progress report (fraction f0 at
/// t0 seconds) and a later one (f at t). nullopt until progress has moved 0.5 % over at least
/// 0.5 s since the first report (a resumed job starts part-way, so its rate is from f0 on).
inline std::optional<Projection> project(double work, double f0, double t0, double f, double t) {
  const double gained = f - f0, dt = t - t0;
  if (!(work > 0) || f0 < 0 || !(gained > 0.005) || !(dt > 0.5)) return std::nullopt;
  Projection p;
  p.rate = work * gained / dt;
  p.eta_s = work * (1 - f) / p.rate;
  p.total_s = work / p.rate;
  return p;
}

/// Seconds left of a job `fraction` done after `elapsed` seconds, at its mean rate since the
/// start: elapsed (1 - fraction) / fraction. nullopt while fraction <= `min_fraction` (>= 0):
/// too early to tell. The window's bars wait for 1 %, a sweep for its first whole frame.
inline std::optional<double> eta_from_start(double fraction, double elapsed,
                                            double min_fraction = 0.01) {
  if (!(fraction > min_fraction)) return std::nullopt;
  return elapsed * (1 - fraction) / fraction;
}

}  // namespace simscope::app
