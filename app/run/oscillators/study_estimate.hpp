#pragma once
/// @file A study's projected time, from at most ~2 s of the study's own kernel on a sample of its
/// members (`simscope --headless --estimate`).
#include <cstdint>
#include <string>

#include "core/backend.hpp"
#include "params/schema.hpp"

namespace simscope::oscillators {

struct StudyEstimate {
  int members = 0, nodes = 0;
  std::int64_t steps = 0;
  double work = 0;             ///< K N steps, oscillator-steps
  double rate = 0;             ///< measured oscillator-steps per second (> 0)
  double projected_s = 0;      ///< work / rate
  int sample_members = 0;      ///< members integrated to measure the rate
  std::int64_t timed_steps = 0;  ///< steps of the timed stretch
  double timed_s = 0;          ///< its seconds
  double spent_s = 0;          ///< all the seconds spent, building the sample included
};

/// Times the study of `p` on `backend`: the first min(K, 512) members (their own networks and
/// initial states), advanced as the study advances them, in stretches of doubling length until
/// one takes >= 0.5 s or the next would pass `budget_s` (default 2 s) in all. The rate is the
/// last stretch's (building the networks' tables falls in the first ones).
/// Throws simscope::Error from the parameters or the back end.
StudyEstimate estimate_study(const ParamSet& p, Backend backend, double budget_s = 2.0);

/// --estimate's line for the study of `p` on `backend` (estimate_study), the oscillators'
/// WorkloadDescriptor::estimate: "simscope: estimate: 64 members x 100 nodes x 1000 steps = 6.4e+06
/// osc-steps at ... osc-steps/s (timed ...): about 1.2 s (0.00 h); the study was not run".
std::string estimate_line(const ParamSet& p, Backend backend);

/// The study's work, K N steps oscillator-steps ("osc-steps"): the oscillators'
/// WorkloadDescriptor::work.
double study_work(const ParamSet& p);

}  // namespace simscope::oscillators
