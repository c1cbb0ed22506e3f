#pragma once
/// @file The parameters of the `oscillators` workload (its Schema) and their readers.
#include <cstdint>

#include "oscillators/model.hpp"
#include "oscillators/study.hpp"
#include "oscillators/topology.hpp"
#include "params/schema.hpp"

namespace simscope::oscillators {

/// Members in the live view: the first min(ensemble.size, kLiveMembers).
constexpr int kLiveMembers = 64;

/// The workload's parameters: network.*, ensemble.size, model.*, init, init.seed, init.file,
/// integrator.*, record.every, precision, live.*, view.
const Schema& schema();

/// Readers of a validated ParamSet of schema(). `members` overrides ensemble.size when > 0 (the
/// live view integrates the first min(K, 64) members; member k is the same in both).
Model model_from(const ParamSet& p);
StudyOptions study_options_from(const ParamSet& p);
Precision precision_from(const ParamSet& p);
/// `first_member` f > 0: members f .. f + members - 1 of the ensemble.size members (a work range;
/// member k is the same as in the whole ensemble).
Topologies make_topologies(const ParamSet& p, int members = 0, int first_member = 0);
State make_initial_state(const ParamSet& p, int members = 0, int first_member = 0);

/// A ParamSet of schema() read once, typed: what the workload's studies and live view use besides
/// the networks and initial states (make_topologies and make_initial_state read those).
struct Settings {
  StudyOptions study;              ///< study_options_from
  std::int64_t transient = 0;      ///< integrator.transient as set (the live view's; a study's
                                   ///< may be a quarter of its steps: study_options_from)
  int members = 0;                 ///< ensemble.size
  int nodes = 0;                   ///< network.nodes
  std::int64_t live_topology = 0;  ///< live.topology: the member whose network is shown
  std::int64_t live_history = 0;   ///< live.history: samples of the series kept
  std::int64_t steps_per_frame = 0;  ///< live.steps_per_frame
};
/// The Settings of a validated ParamSet of schema().
Settings settings_from(const ParamSet& p);

}  // namespace simscope::oscillators
