#pragma once
/// @file The GUI payload of an oscillators run (RunResult::payload).
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "oscillators/ensemble.hpp"
#include "oscillators/model.hpp"
#include "oscillators/study.hpp"
#include "workload.hpp"

namespace simscope::app {

/// Phases theta = oscillators::phase(x, y) in (-pi, pi], 0 at the origin, of a state's K x N
/// oscillators. Shape (K, N), C order: a study's `phases` output.
std::vector<double> phases_of(const oscillators::State& s);
/// x, y of a state's oscillators interleaved, (K, N, 2) C order: the `state` output.
std::vector<double> interleave(const oscillators::State& s);
/// Fills `r` from study result `s` run with options `o`; sets r.compute_seconds.
/// Adds the outputs (msd, msd_t, order_t, phases, state; float64), the warnings (non-finite
/// members, fewer than two finite members, no samples) and the stats (StudyStats).
/// Used for whole, merged and Python studies alike.
void fill_study_result(RunResult& r, const oscillators::StudyResult& s,
                       const oscillators::StudyOptions& o);

/// Node positions of one member's network for the phase view, in [-1, 1]^2.
struct OscillatorsLayout {
  int member = 0, nodes = 0;
  std::vector<float> circle;               ///< nodes on a circle, in index order
  std::vector<float> spring;               ///< a force-directed layout of the network
  std::vector<std::pair<int, int>> edges;  ///< the member's undirected edges (i < j)
};

/// RunResult::payload of the oscillators workload.
struct OscillatorsPayload final : RunPayload {
  bool study = false;        ///< a study's final state, else a live frame
  oscillators::Frame frame;  ///< (theta, r) of the first members (host; device on CUDA)
  int shown = 0;             ///< the member shown (live.topology, clamped to the frame)
  std::shared_ptr<const OscillatorsLayout> layout;  ///< of the shown member
  double dt = 0;
  std::int64_t every = 1;  ///< steps between samples
  /// Recent samples, at most live.history; a study's series is decimated to that many.
  /// Global step, ensemble means of msd and R, and the shown member's own.
  std::vector<double> step, msd, order, watch_msd, watch_order;
  // summary
  int members = 0;  ///< K of the run (the live view integrates the first 64)
  double msd_mean = 0, msd_sem = 0;
  std::int64_t valid = 0, failed = 0;
  double osc_steps_per_s = 0;
  Backend backend = Backend::Cpu;
};

}  // namespace simscope::app
