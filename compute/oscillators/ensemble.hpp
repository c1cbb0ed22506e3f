#pragma once
/// @file The Ensemble interface of the `oscillators` workload and what it records.
/// Back ends: CPU, OpenMP over members, the reference; and CUDA, where each thread block
/// integrates a few members in registers and shared memory and accumulates all observables on
/// the device.
#include <cstdint>
#include <memory>
#include <vector>

#include "core/backend.hpp"
#include "core/device_view.hpp"
#include "core/progress.hpp"
#include "oscillators/model.hpp"
#include "oscillators/topology.hpp"

namespace simscope::oscillators {

/// What Ensemble::advance records. Steps g are counted from the last load().
/// A sample is taken after every step g with g % every == 0.
/// Steps g > transient add their msd to each member's time average.
struct Recording {
  std::int64_t transient = 0;  ///< steps 1..transient are left out of the time average
  std::int64_t every = 1;      ///< sample interval in steps (>= 1)
  int watch = -1;              ///< member whose own samples are returned too, or -1
  /// Members per reduction group; 0 means none. With g > 0, advance() also returns per sample the
  /// sums over each group of g consecutive members (Series::group_*); the last group may be
  /// shorter. Studies use study_group_members(K), so ranks integrating some of a block's groups
  /// can form the block's series.
  int group = 0;
  /// Member count the CPU back end sizes its chunks of steps for; 0 means the loaded K.
  /// A member that goes non-finite is frozen at the end of its chunk. A part of a study block
  /// passes the block's count here, so its members' results equal the block's bit for bit.
  /// The CUDA back end sizes chunks by measured rate and ignores this.
  int chunk_members = 0;
};

/// Samples appended by Ensemble::advance: per sample, ensemble means over the members whose
/// state is finite then. A member that went non-finite is left out from then on.
struct Series {
  std::vector<std::int64_t> step;              ///< global step g of each sample
  std::vector<double> msd, order;              ///< ensemble means of msd and R
  std::vector<std::int64_t> finite;            ///< members in the means
  std::vector<double> watch_msd, watch_order;  ///< the watched member's (NaN when non-finite)
  /// With Recording::group = g > 0: (samples, G) row-major, G = ceil(K / g).
  /// Per sample and group q, members [q g, min(K, (q + 1) g)): the sums of msd and R over members
  /// finite then, and their count.
  /// count. The summation order is fixed: member order from 0 on the CPU, a fixed tree on CUDA.
  /// A group's sums therefore depend only on its members' samples.
  std::vector<double> group_msd, group_order;
  std::vector<std::int64_t> group_finite;
  std::size_t size() const { return step.size(); }
  void clear();
};

/// Per-member results since load().
struct MemberStats {
  /// Time average of msd over steps g > transient. NaN for failed members and while no step is
  /// past the transient. The sum is kept in fp64 in windows of 1024 steps aligned to g, so it does
  /// not depend on how steps were split into calls.
  std::vector<double> msd_mean;
  std::vector<std::uint8_t> failed;  ///< 1 when the member's state went non-finite
  std::int64_t averaged_steps = 0;   ///< steps in each time average
};

/// State of the first `members` members for drawing: per oscillator (theta, r) as floats,
/// theta = atan2(y, x) in (-pi, pi], r = |z|. Oscillator (k, i) is at [2 (k N + i)].
struct Frame {
  int members = 0, nodes = 0;
  std::int64_t step = 0;
  std::vector<float> theta_r;
  /// CUDA: the same values in device memory, kept alive by this pointer. The ensemble never
  /// writes a frame while anyone holds it. Null on the CPU back end.
  std::shared_ptr<const float> device;
};

/// All that resuming an ensemble between two chunks of steps needs: step count, state, each
/// member's msd time-average sums (completed windows' total and the open window, see
/// MemberStats) and the failed flags. The state is held in fp64, exact for fp32 ensembles too,
/// so restore(snapshot()) continues bit for bit.
struct EnsembleSnapshot {
  std::int64_t step = 0;
  State state;
  std::vector<double> total, window;  ///< (K,)
  std::vector<std::uint8_t> failed;   ///< (K,)
};

/// An ensemble being integrated on one back end. Not thread-safe: one thread at a time.
class Ensemble {
 public:
  virtual ~Ensemble() = default;
  virtual Backend backend() const = 0;

  /// Takes the topologies and initial state, with state.members == t.members and
  /// state.nodes == t.nodes. Sets the step count to 0 and clears the accumulators.
  /// Throws simscope::Error for mismatched or invalid input, N or K < 1, or sizes the back end
  /// cannot hold. On CUDA the message gives memory asked and free, or N above max_nodes().
  virtual void load(const Topologies& t, const State& s, Precision precision) = 0;
  /// CUDA only: load() with the initial state read in place from CUDA device memory, e.g. a
  /// torch or CuPy tensor. Shape (N, 2) for every member or (K, N, 2); float32 or float64; any
  /// strides. Converted on the device into the integrator's layout after DeviceView::stream.
  /// Checks and messages as initial_state_from_npy (osc_device_state.hpp).
  /// Throws simscope::InputError for a bad view or value, else as load().
  /// The default implementation, used by the CPU back end, throws simscope::Error.
  virtual void load_device(const Topologies& t, const DeviceView& initial, Precision precision);

  /// Advances every member by `steps` classic 4-stage RK4 steps of size dt, recording as `rec`
  /// says and appending samples to `out`. Method: Hairer, Norsett & Wanner, "Solving Ordinary
  /// Differential Equations I", section II.1.
  /// Members whose state goes non-finite are flagged and left out of the means; the others go on.
  /// Progress is in [0, 1] over this call.
  /// Throws simscope::Cancelled between chunks of steps; the state is then at a chunk boundary,
  /// with the samples of completed chunks appended.
  /// Throws simscope::Error unless dt is finite and > 0, steps >= 0 and rec.every >= 1, or
  /// before load().
  virtual void advance(const Model& model, double dt, std::int64_t steps, const Recording& rec,
                       Series& out, Progress* progress = nullptr) = 0;

  virtual std::int64_t steps_done() const = 0;
  virtual State state() const = 0;
  virtual MemberStats member_stats(std::int64_t transient) const = 0;
  /// (theta, r) of the first min(members, K) members.
  virtual Frame frame(int members) = 0;
  /// CUDA: peak device bytes allocated by this ensemble. 0 on the CPU.
  virtual double peak_device_bytes() const { return 0; }
  /// Largest N the back end integrates. On CUDA one thread block holds one network.
  virtual int max_nodes() const = 0;

  /// Whether snapshot() and restore() are implemented: true on the CPU back end. CUDA studies
  /// are checkpointed between blocks of members only.
  virtual bool can_snapshot() const { return false; }
  /// The ensemble as it stands after load() or a completed or cancelled advance().
  /// Throws simscope::Error when !can_snapshot() or before load().
  virtual EnsembleSnapshot snapshot() const;
  /// load(t, s.state, precision), then the step count, sums and flags of `s`.
  /// When the same calls with the same end steps follow, advancing gives what advancing the
  /// snapshotted ensemble would have given, bit for bit.
  /// Throws simscope::Error as load() does, for sizes of `s` that do not match `t`, and when
  /// !can_snapshot().
  virtual void restore(const Topologies& t, const EnsembleSnapshot& s, Precision precision);
};

/// The ensemble for `backend`. Throws simscope::Error, with the runtime's reason, when the CUDA
/// back end was not compiled or cannot run.
std::unique_ptr<Ensemble> make_ensemble(Backend backend);

/// Frame::theta_r of the first min(members, s.members) members of a host state.
Frame frame_of(const State& s, int members, std::int64_t step);

}  // namespace simscope::oscillators
