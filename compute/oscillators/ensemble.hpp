#pragma once
/// @file An ensemble of the `oscillators` workload being integrated (the Ensemble interface and
/// what it records). Back ends: CPU (OpenMP over members, the reference) and CUDA (thread blocks
/// that each integrate a few members with their state in registers and shared memory; all
/// observables accumulated on the device).
#include <cstdint>
#include <memory>
#include <vector>

#include "core/backend.hpp"
#include "core/device_view.hpp"
#include "core/progress.hpp"
#include "oscillators/model.hpp"
#include "oscillators/topology.hpp"

namespace simscope::oscillators {

/// What Ensemble::advance records. Steps are counted from the last load() (the global step g):
/// a sample is taken after every step g with g % every == 0, and steps g > transient add their
/// msd to each member's time average.
struct Recording {
  std::int64_t transient = 0;  ///< steps 1..transient are left out of the time average
  std::int64_t every = 1;      ///< sample interval in steps (>= 1)
  int watch = -1;              ///< member whose own samples are returned too, or -1
  /// Members per reduction group (0: none): advance() also returns, per sample, the sums over
  /// each group of `group` consecutive members (Series::group_*; the last group may be
  /// shorter). Studies use study_group_members(K), so that a block's series can be formed from
  /// ranks that each integrate some of its groups.
  int group = 0;
  /// The member count the CPU back end's chunks of steps are sized for (0: the loaded
  /// ensemble's K). A member that goes non-finite is frozen at the end of its chunk, so a part
  /// of a study block passes the block's count here to be integrated in the block's chunks (its
  /// members' results then equal the block's bit for bit). The CUDA back end sizes its chunks
  /// by the measured rate and ignores it.
  int chunk_members = 0;
};

/// Samples appended by Ensemble::advance: ensemble means, at each sample, over the members whose
/// state is finite then (a member that went non-finite is left out from then on).
struct Series {
  std::vector<std::int64_t> step;              ///< global step g of each sample
  std::vector<double> msd, order;              ///< ensemble means of msd and R
  std::vector<std::int64_t> finite;            ///< members in the means
  std::vector<double> watch_msd, watch_order;  ///< the watched member's (NaN when non-finite)
  /// With Recording::group = g > 0: (samples, G) row-major, G = ceil(K / g): per sample and
  /// group q (members [q g, min(K, (q + 1) g))), the sums of msd and of R over the group's
  /// members finite then, and their count (CPU: added in member order from 0; CUDA: a fixed
  /// tree over the group). Fixed order: a group's sums depend only on its members' samples.
  std::vector<double> group_msd, group_order;
  std::vector<std::int64_t> group_finite;
  std::size_t size() const { return step.size(); }
  void clear();
};

/// Per-member results since load().
struct MemberStats {
  /// Time average of msd over the steps g > transient (the sum is kept in fp64 in windows of
  /// 1024 steps aligned to g, so it does not depend on how the steps were split into calls).
  /// NaN for failed members and while no step is past the transient.
  std::vector<double> msd_mean;
  std::vector<std::uint8_t> failed;  ///< 1 when the member's state went non-finite
  std::int64_t averaged_steps = 0;   ///< steps in each time average
};

/// The state of the first `members` members for drawing: per oscillator (theta, r) as floats,
/// theta = atan2(y, x) in (-pi, pi], r = |z|; oscillator (k, i) at [2 (k N + i)].
struct Frame {
  int members = 0, nodes = 0;
  std::int64_t step = 0;
  std::vector<float> theta_r;
  /// CUDA: the same values in device memory (kept alive by this pointer; the ensemble never
  /// writes a frame while anyone holds it). Null on the CPU back end.
  std::shared_ptr<const float> device;
};

/// An ensemble between two chunks of steps, as much as resuming its integration needs: the step
/// count, the state, each member's msd time-average sums (the completed windows' total and the
/// open window, see MemberStats) and the failed flags. The state is held in fp64, which is exact
/// for an fp32 ensemble too, so restore(snapshot()) continues bit for bit.
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

  /// Takes the topologies and initial state (state.members == t.members, state.nodes ==
  /// t.nodes), sets the step count to 0 and clears the accumulators. Throws simscope::Error for
  /// mismatched or invalid input, N or K < 1, sizes the back end cannot hold (CUDA: a clear
  /// message with the memory asked and free; network.nodes above max_nodes()).
  virtual void load(const Topologies& t, const State& s, Precision precision) = 0;
  /// CUDA only: load() with the initial state in CUDA device memory (issue 15: a torch / CuPy
  /// CUDA tensor of the Python module), read in place: (N, 2) for every member or (K, N, 2),
  /// float32/float64, any strides, converted on the device into the integrator's layout after
  /// the view's DeviceView::stream, with initial_state_from_npy's checks and messages
  /// (osc_device_state.hpp). Throws simscope::InputError for a bad view or value, as load()
  /// does otherwise; the default (the CPU back end) throws simscope::Error.
  virtual void load_device(const Topologies& t, const DeviceView& initial, Precision precision);

  /// Advances every member by `steps` RK4 steps of size dt (Hairer, Norsett & Wanner, "Solving
  /// Ordinary Differential Equations I", section II.1, the classic 4-stage method), recording as
  /// `rec` says; samples are appended to `out`. Members whose state went non-finite are flagged
  /// and left out of the means; the others go on. Progress in [0, 1] over this call; throws
  /// simscope::Cancelled between chunks of steps (the state is then consistent, at a chunk
  /// boundary, with the samples of completed chunks appended), simscope::Error for dt not finite
  /// and > 0, steps < 0, rec.every < 1, or before load().
  virtual void advance(const Model& model, double dt, std::int64_t steps, const Recording& rec,
                       Series& out, Progress* progress = nullptr) = 0;

  virtual std::int64_t steps_done() const = 0;
  virtual State state() const = 0;
  virtual MemberStats member_stats(std::int64_t transient) const = 0;
  /// (theta, r) of the first min(members, K) members.
  virtual Frame frame(int members) = 0;
  /// CUDA: peak device bytes allocated by this ensemble; 0 on the CPU.
  virtual double peak_device_bytes() const { return 0; }
  /// The largest N the back end integrates (CUDA: one thread block per network).
  virtual int max_nodes() const = 0;

  /// Whether snapshot() and restore() are implemented (the CPU back end; not yet CUDA, whose
  /// studies are checkpointed between blocks of members only).
  virtual bool can_snapshot() const { return false; }
  /// The ensemble as it stands (after load() or a completed / cancelled advance()). Throws
  /// simscope::Error when !can_snapshot() or before load().
  virtual EnsembleSnapshot snapshot() const;
  /// load(t, s.state, precision), then the step count, sums and flags of `s`: advancing
  /// afterwards gives what advancing the snapshotted ensemble would have given, bit for bit, when
  /// the same calls (the same end steps) follow. Throws simscope::Error as load() does, for
  /// sizes of `s` that do not match `t`, and when !can_snapshot().
  virtual void restore(const Topologies& t, const EnsembleSnapshot& s, Precision precision);
};

/// The ensemble for `backend`. Throws simscope::Error when the CUDA back end was not compiled or
/// cannot run (the runtime's reason).
std::unique_ptr<Ensemble> make_ensemble(Backend backend);

/// The frame (Frame::theta_r) of the first min(members, s.members) members of a host state.
Frame frame_of(const State& s, int members, std::int64_t step);

}  // namespace simscope::oscillators
