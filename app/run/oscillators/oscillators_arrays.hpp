#pragma once
/// @file The oscillators workload on a caller's arrays (simscope.oscillators): a study from an
/// initial state (K, N, 2) or (N, 2), host or CUDA, on the schema's networks or the caller's,
/// with the CLI study's outputs, warnings and stats (fill_study_result); and an ensemble that
/// advances n steps at a time and reads its state and phases.
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "arrays/array_input.hpp"
#include "arrays/call_settings.hpp"
#include "oscillators/ensemble.hpp"
#include "oscillators/study.hpp"
#include "oscillators/topology.hpp"
#include "workload.hpp"

namespace simscope::app {

/// Networks a caller gives, one per member unless `shared`: G = `count` networks, network g's
/// entries [offsets[g], offsets[g + 1]) of `i`, `j` and `w` (null: unweighted), as a matrix's
/// entries when matrix[g] is 1, else as edges (the Python module's simscope/_networks.py hands
/// them over so). The caller's memory, read while the call takes them.
struct GivenNetworks {
  std::size_t count = 0;
  const std::int64_t* offsets = nullptr;  ///< count + 1
  const std::int32_t* i = nullptr;
  const std::int32_t* j = nullptr;
  const double* w = nullptr;
  const std::uint8_t* matrix = nullptr;  ///< count
  bool shared = false;
};

/// A study on a caller's arrays: made and given its arrays on the caller's thread, run on a
/// worker (run), its result taken once (result).
class StudyArrays {
 public:
  /// The call's parameters and back end, checked (validate); throws simscope::Error with the
  /// CLI's messages.
  StudyArrays(const Settings& settings, const std::string& backend);
  /// Takes the networks (null: the schema's) and the initial state: None (the schema's), Copy
  /// (read as initial_state_from_npy reads a file, naming "initial"), or Device (read in place
  /// on its device: a CUDA back end on a visible device, else simscope::Error).
  void take(const ArrayInput& initial, const GivenNetworks* networks);
  /// The study's work in oscillator-steps, K N steps, for a progress rate.
  double units() const;
  /// Runs the study on the calling thread (the caller's device for a CUDA initial state).
  void run(Progress* progress);
  /// The CLI study's result (fill_study_result) with the warnings of settings not used (with
  /// networks given, also theirs) and of literal coupling, stats "host_staging_bytes" 0 (a CUDA
  /// initial state is read in place). total_seconds counts from construction. Once, after run.
  RunResult result();

  const BackendChoice& choice() const { return choice_; }
  /// "device" for a CUDA initial state read in place, else "host".
  const char* input_route() const { return device_init_ ? "device" : "host"; }

 private:
  std::chrono::steady_clock::time_point t0_;
  ParamSet params_;
  BackendChoice choice_;
  oscillators::StudyOptions options_;
  oscillators::Topologies topologies_;
  oscillators::State init_;
  const DeviceView* device_init_ = nullptr;
  bool networks_given_ = false;
  oscillators::StudyResult study_;
};

/// What EnsembleArrays::advance records: per sample the global step, the ensemble means of msd
/// and R, and the members in the means.
struct EnsembleSeries {
  std::vector<std::int64_t> step;
  std::vector<double> msd, order;
  std::vector<std::int64_t> finite;
};

/// An ensemble being integrated: oscillators::Ensemble with the schema's network (or the
/// caller's), initial state, model, dt and recording. Not for two threads at once.
class EnsembleArrays {
 public:
  /// Made and loaded on the calling thread; a CUDA initial state on its own device, on a thread
  /// of its own, read in place (no host copy). Throws simscope::Error as StudyArrays does.
  EnsembleArrays(const Settings& settings, const std::string& backend, const ArrayInput& initial,
                 const GivenNetworks* networks);
  /// Advances `steps` steps (>= 0) on the calling thread.
  EnsembleSeries advance(std::int64_t steps, Progress* progress);

  std::int64_t step() const { return ensemble_->steps_done(); }
  /// x, y of every oscillator, (K, N, 2) C order.
  std::vector<double> state() const;
  /// Phases, (K, N) C order.
  std::vector<double> phases() const;
  /// Each member's time average of msd past the transient (NaN for failed ones), (K,).
  std::vector<double> msd_mean() const;
  /// 1 for each member whose state went non-finite, (K,).
  std::vector<std::uint8_t> failed() const;
  int members() const { return topologies_.members; }
  int nodes() const { return topologies_.nodes; }
  const BackendChoice& choice() const { return choice_; }
  const ParamSet& params() const { return params_; }

 private:
  ParamSet params_;
  BackendChoice choice_;
  oscillators::StudyOptions options_;
  oscillators::Topologies topologies_;
  std::unique_ptr<oscillators::Ensemble> ensemble_;
};

}  // namespace simscope::app
