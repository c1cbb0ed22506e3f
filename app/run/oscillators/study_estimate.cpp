#include "study_estimate.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "oscillators/ensemble.hpp"
#include "oscillators_params.hpp"

namespace simscope::oscillators {

StudyEstimate estimate_study(const ParamSet& p, Backend backend, double budget_s) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  const auto since = [](Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
  };
  const StudyOptions o = study_options_from(p);
  validate(o);
  StudyEstimate e;
  e.members = int(p.get_int("ensemble.size"));
  e.nodes = int(p.get_int("network.nodes"));
  e.steps = o.steps;
  e.work = double(e.members) * double(e.nodes) * double(e.steps);
  e.sample_members = std::min(e.members, 512);
  const Topologies t = make_topologies(p, e.sample_members, 0);
  const State s0 = make_initial_state(p, e.sample_members, 0);
  auto ens = make_ensemble(backend);
  ens->load(t, s0, o.precision);
  Recording rec;  // as the study records (run_study_blocks)
  rec.transient = o.transient;
  rec.every = o.every;
  rec.group = study_group_members(e.members);
  rec.chunk_members = std::min(e.members, study_block_members(e.members));
  Series out;
  std::int64_t s = 8;
  for (;;) {
    out.clear();
    const auto t0 = Clock::now();
    ens->advance(o.model, o.dt, s, rec, out);
    const double secs = since(t0);
    e.timed_steps = s, e.timed_s = secs;
    const double left = budget_s - since(start);
    if (secs >= 0.5 || 2.2 * secs > left || s >= (std::int64_t(1) << 40)) break;
    s *= 2;
  }
  e.rate = double(e.sample_members) * e.nodes * double(e.timed_steps) /
           std::max(e.timed_s, 1e-9);
  e.projected_s = e.work / e.rate;
  e.spent_s = since(start);
  return e;
}

std::string estimate_line(const ParamSet& p, Backend backend) {
  const StudyEstimate e = estimate_study(p, backend);
  char buf[512];
  std::snprintf(
      buf, sizeof buf,
      "simscope: estimate: %d members x %d nodes x %lld steps = %.6g osc-steps at %.6g "
      "osc-steps/s (timed %.2f s: %d members x %lld steps on %s): about %.6g s (%.2f h); the "
      "study was not run",
      e.members, e.nodes, static_cast<long long>(e.steps), e.work, e.rate, e.timed_s,
      e.sample_members, static_cast<long long>(e.timed_steps), to_string(backend),
      e.projected_s, e.projected_s / 3600);
  return buf;
}

double study_work(const ParamSet& p) {
  return double(p.get_int("ensemble.size")) * double(p.get_int("network.nodes")) *
         double(p.get_int("integrator.steps"));
}

}  // namespace simscope::oscillators
