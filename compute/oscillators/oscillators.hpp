#pragma once
/// @file The `oscillators` workload: ensembles of K networks of N Stuart-Landau oscillators
/// (DESIGN.md section 1.3), integrated with the classic fourth-order Runge-Kutta method.
///
/// Node i of member (network) k has the state z_i = x_i + i y_i and follows
///   dx_i/dt = x_i - w y_i - (x_i + c y_i)(x_i^2 + y_i^2) + (e/2) sum_j G_ij (x_j - x_i)
///   dy_i/dt = y_i + w x_i - (y_i - c x_i)(x_i^2 + y_i^2)
/// i.e. dz/dt = (1 + i w) z - (1 - i c)|z|^2 z plus diffusive (graph-Laplacian) coupling of x
/// through the symmetric weighted adjacency matrix G of the member's network. On a ring with two
/// neighbours this is exactly the original `(G.X - 2X) e/2`. An uncoupled oscillator settles on
/// the limit cycle |z| = 1 with angular frequency w + c (Stuart 1960, Landau 1944; the normal form
/// of a Hopf bifurcation, e.g. Kuramoto, "Chemical Oscillations, Waves, and Turbulence", 1984).
///
/// Time is in the model's own (dimensionless) unit; x and y are dimensionless.
///
/// Observables: msd(t) = (1/N) sum_i (x_i - mean_j x_j)^2 (mean square deviation), its time
/// average over the steps after a transient, the Kuramoto order parameter
/// R(t) = |(1/N) sum_i exp(i theta_i)| (Kuramoto 1984) and the phases theta_i = atan2(y_i, x_i).
///
/// Back ends: CPU (OpenMP over members, the reference) and CUDA (thread blocks that each integrate
/// a few members with their state in registers and shared memory; all observables accumulated on
/// the device). Both implement Ensemble.
#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/backend.hpp"
#include "core/device_view.hpp"
#include "core/params.hpp"
#include "core/precision.hpp"
#include "core/progress.hpp"
#include "core/range.hpp"
#include "io/npy.hpp"

namespace simscope::oscillators {

/// Arithmetic of the integration. Fp64 (the default; the original used float64) or Fp32 state
/// and stages. The observables are accumulated in double in both. (core/precision.hpp's type.)
using Precision = simscope::Precision;

/// The model's constants (dimensionless).
struct Model {
  double omega = 1.0;     ///< w: linear frequency
  double c = 1.0;         ///< c: nonlinear frequency shift (limit-cycle frequency is w + c)
  double coupling = 0.2;  ///< e: coupling strength; the Laplacian term is scaled by e/2
};

// ---- networks --------------------------------------------------------------------------------

/// K networks ("members") on the same N nodes, as symmetric weighted adjacency matrices G in
/// compressed sparse row form, one after the other. Graph g's row i holds the neighbours of node
/// i: col[e] for e in [row_ptr[g*N + i], row_ptr[g*N + i + 1]), sorted ascending, without i
/// itself, each undirected edge stored in both rows with the same weight. When `shared` is true
/// one graph serves every member (ring, file); otherwise graph k belongs to member k.
struct Topologies {
  int nodes = 0;    ///< N
  int members = 0;  ///< K
  bool shared = false;
  std::vector<std::int64_t> row_ptr;  ///< graphs() * N + 1 offsets into col/weight
  std::vector<std::int32_t> col;      ///< neighbour indices, 0..N-1
  std::vector<double> weight;         ///< G_ij per entry; empty: every weight is 1

  int graphs() const { return shared ? 1 : members; }
  bool weighted() const { return !weight.empty(); }
  /// The graph of member k (0 when shared).
  int graph_of(int member) const { return shared ? 0 : member; }
  std::int64_t begin(int member, int node) const {
    return row_ptr[std::size_t(graph_of(member)) * nodes + node];
  }
  std::int64_t end(int member, int node) const {
    return row_ptr[std::size_t(graph_of(member)) * nodes + node + 1];
  }
  /// Weighted degree sum_j G_ij of node i in member k.
  double degree(int member, int node) const;
  /// Undirected edges of member k as (i, j) pairs with i < j, in row order.
  std::vector<std::pair<int, int>> edges(int member) const;
};

/// A ring lattice: every node joined to its k/2 nearest neighbours on each side (k even,
/// 2 <= k < N), unit weights, one graph for all K members. Throws simscope::Error naming
/// network.k / network.nodes when k is odd, < 2 or >= N.
Topologies ring(int nodes, int k, int members);

/// Watts & Strogatz (1998), "Collective dynamics of 'small-world' networks", Nature 393: a ring
/// lattice of degree k whose edges (u, u + j), j = 1..k/2, are each rewired with probability p to
/// (u, w), w uniform among the nodes that are neither u nor already joined to u (the procedure of
/// networkx.watts_strogatz_graph). K different graphs: member k uses its own random stream derived
/// from (seed, k), so member k's graph does not depend on K or on the thread count. Unit weights.
/// Throws simscope::Error for k odd, < 2 or >= N, or p outside [0, 1].
/// With `first_member` f > 0: the members f .. f + members - 1 of that ensemble (a work range).
Topologies watts_strogatz(int nodes, int k, double p, int members, std::uint64_t seed,
                          int first_member = 0);

/// Erdos & Renyi (1959) / Gilbert (1959) G(N, p): each of the N(N-1)/2 node pairs joined with
/// probability p, sampled in O(N + edges) with the geometric skips of Batagelj & Brandes (2005),
/// "Efficient generation of large random networks", Phys. Rev. E 71. K different graphs, member k
/// from (seed, k) as above. Unit weights. Throws simscope::Error for p outside [0, 1].
/// `first_member` as for watts_strogatz.
Topologies erdos_renyi(int nodes, double p, int members, std::uint64_t seed, int first_member = 0);

/// One graph from an edge-list text file, shared by all K members: one undirected edge per line,
/// "i j" or "i j weight" (0-based node indices, separated by blanks or a comma; blank lines and
/// lines starting with '#' are skipped). An edge listed twice (also as "j i") counts once if the
/// weights agree. A weight is any finite number (default 1): negative weights give signed,
/// repulsive coupling G_ij < 0, and 0 keeps the edge in the list without coupling (the Laplacian
/// term e/2 * sum_j G_ij (x_j - x_i) of DESIGN.md 1.3 is used as is, with no normalisation).
/// Throws simscope::Error naming the file and the line (1-based) for: a line that
/// is not two integers and an optional finite number, a node < 0 or >= N (network.nodes), a
/// self-loop, the same edge with two different weights; and for a missing or empty file.
Topologies load_edge_list(const std::string& path, int nodes, int members);

/// Checks the invariants documented on Topologies (sizes, sorted rows, indices in range, no
/// self-loops, symmetry with equal weights, finite weights). Throws simscope::Error saying what
/// is wrong. Generators and load_edge_list produce valid topologies; for hand-made ones.
void validate(const Topologies& t);

// ---- states ------------------------------------------------------------------------------------

/// The state of K members of N oscillators: x[k*N + i], y[k*N + i].
struct State {
  int members = 0, nodes = 0;
  std::vector<double> x, y;
};

/// Initial states: "random" (x and y independent standard normal, as the original
/// `rng.standard_normal`), "uniform_phase" (on the limit cycle, z = exp(i theta) with theta
/// uniform in [0, 2 pi)). Member k uses its own stream from (seed, k). Throws simscope::Error for
/// an unknown kind.
/// With `first_member` f > 0: the states of members f .. f + members - 1 (a work range).
State initial_state(const std::string& kind, int nodes, int members, std::uint64_t seed,
                    int first_member = 0);

/// Reads an initial state from .npy (float32 or float64): shape (N, 2) [x, y] used for every
/// member, or (K, N, 2) one per member (what state.npy of a study holds). Throws simscope::Error
/// naming the file for a wrong shape (saying which was expected), dtype, or a non-finite value
/// (with its index).
State load_initial_state(const std::string& path, int nodes, int members);
/// The initial state of an array as read from a .npy file (what load_initial_state does after
/// reading; the Python module passes numpy arrays through here): the same checks and messages,
/// `name` in place of the file name.
State initial_state_from_npy(const io::NpyArray& a, const std::string& name, int nodes,
                             int members);

// ---- observables (host reference implementations) ------------------------------------------

/// (1/N) sum_i (x_i - mean x)^2, two-pass; 0 for n == 0.
double mean_square_deviation(const double* x, int n);
/// Kuramoto's R = |(1/N) sum_i exp(i theta_i)|, theta_i = atan2(y_i, x_i) (theta = 0 at z = 0).
double order_parameter(const double* x, const double* y, int n);
/// theta = atan2(y, x) in (-pi, pi].
inline double phase(double x, double y);

/// The right-hand side for member k of `t` at state (x, y) (N values each): dx, dy (N values).
/// The Laplacian sum_j G_ij (x_j - x_i) is formed from the CSR rows (no dense G). Reference code
/// for tests; the integrators inline the same formula (sl_rhs.hpp).
void rates(const Topologies& t, int member, const Model& model, const double* x, const double* y,
           double* dx, double* dy);

// ---- integration -------------------------------------------------------------------------------

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

// ---- studies -----------------------------------------------------------------------------------

/// A headless study: every member integrated `steps` steps from its initial state.
struct StudyOptions {
  Model model;
  double dt = 0.01;
  std::int64_t steps = 1000;
  std::int64_t transient = 0;  ///< < steps
  std::int64_t every = 10;     ///< sample interval of msd_t / order_t
  Precision precision = Precision::Fp64;
};

struct StudyResult {
  std::vector<double> msd;             ///< (K,) time-averaged msd after the transient; NaN: failed
  std::vector<double> msd_t;           ///< (T,) ensemble mean msd at steps every, 2 every, ...
  std::vector<double> order_t;         ///< (T,) ensemble mean R at the same steps
  std::vector<std::int64_t> finite_t;  ///< (T,) members in each mean
  State final_state;
  std::vector<std::uint8_t> failed;  ///< (K,)
  std::int64_t failed_count = 0;
  std::int64_t valid = 0;  ///< members in the ensemble statistics
  double msd_mean = 0;     ///< mean of msd over valid members (NaN when none)
  double msd_sem = 0;      ///< its standard error, std (ddof 1) / sqrt(valid) (NaN when < 2)
  double seconds = 0;      ///< wall time of the integration
  double peak_device_bytes = 0;
  /// Of `seconds`, the integration time of earlier sessions (the blocks read from a
  /// checkpoint, and a resumed block's time before the interruption); 0 for a fresh study.
  double seconds_before = 0;
  /// A study of a members range (run_study_range): the range's first member, the block and
  /// group sizes (study_block_members, study_group_members of the whole K), and the range's
  /// contributions to the series, one row of T per unit of study_units(K, range) in member
  /// order, (units, T) row-major: a whole block's row is the fold (in group order, from 0) of
  /// its groups' sums of msd and of R at each sample, a group's row (of a block the range cuts)
  /// its own sums; and the counts of finite members. merge_study_ranges folds the groups of a
  /// cut block into the block's row and adds the blocks' rows in block order, as
  /// run_study_blocks does: the merged series equal the unsplit ones bit for bit.
  /// Empty for whole studies.
  std::size_t member_begin = 0;
  int members_total = 0;  ///< K of the whole study
  int block = 0;
  int group = 0;
  std::vector<double> block_msd_sum, block_order_sum;
  std::vector<std::int64_t> block_finite;
};

/// Checks StudyOptions (the messages name the parameters: integrator.dt, integrator.steps,
/// integrator.transient, record.every) and the series length T = steps / every <= 1e7.
void validate(const StudyOptions& o);

/// Loads `t` and `init` into `ensemble`, integrates, and collects the results. Progress and
/// cancellation as Ensemble::advance. Throws simscope::Error (validate, load) or Cancelled.
StudyResult run_study(Ensemble& ensemble, const Topologies& t, const State& init,
                      const StudyOptions& o, Progress* progress = nullptr);

// ---- checkpointed studies ---------------------------------------------------------------------

/// Members per block of a checkpointed study: ceil(K / 20) (5 % of the members), at least
/// min(K, 64) so that a block keeps a many-core CPU busy. A function of K only, so that an
/// interrupted study and its resumption split the members the same way.
int study_block_members(int members);

/// Members per reduction group of a study (Recording::group): a block's series are the fold of
/// its groups' sums, in group order, and work ranges may start and end on group boundaries
/// (the groups of block b start at b * block + q * group; the block's last may be shorter), so
/// that a block can be shared by several ranks. ceil(block / 16) rounded up to a multiple of 8
/// (the CPU's lane groups, cpu_lanes.hpp: a range of whole groups keeps its lane groups full),
/// at most the block: at most 16 groups per block. A function of K only.
int study_group_members(int members);

/// A unit of a study's series contributions (StudyResult::block_*): block `block`'s members
/// [begin, end), the whole block or one of its groups.
struct StudyUnit {
  int block = 0;
  int begin = 0, end = 0;
  bool whole = false;
};

/// The units of the members `range` of a study of `members` members: each block the range
/// covers whole, and each group of the blocks it cuts, in member order. Throws simscope::Error
/// when the range is not within [0, K) or does not start and end on group boundaries.
std::vector<StudyUnit> study_units(int members, const IndexRange& range);

/// Where a checkpointed study stands (what a checkpoint holds). The members are integrated in
/// blocks of `block` consecutive members, one block after the other, every block all the steps;
/// blocks [0, blocks_done) are finished, and the next one may be under way (`partial`). The
/// series contribution of a finished block (the fold of its reduction groups' sums, in group
/// order) is merged into the sums in block order, so the merged series do not depend on where a
/// study was interrupted.
struct StudyProgress {
  int members = 0, nodes = 0;  ///< K, N
  std::int64_t samples = 0;    ///< T = steps / every
  int block = 0;               ///< study_block_members(K); 0: not started (run_study_blocks sets)
  int blocks_done = 0;
  /// The finished members [0, members_done()): time-averaged msd (NaN: failed), failed flags,
  /// final states.
  std::vector<double> msd;
  std::vector<std::uint8_t> failed;
  State final_state;
  /// (T,) over the finished blocks: sum of their contributions of msd and R (each the fold of
  /// its groups' sums), and the counts (members finite at each sample).
  std::vector<double> msd_sum, order_sum;
  std::vector<std::int64_t> finite;
  /// The block `blocks_done` under way: its ensemble at a chunk boundary and its samples so far
  /// (Series::group_*: its groups' sums, which make its contribution; Series::msd/order/finite:
  /// means over the block's finite members, whose length only is used).
  bool partial = false;
  EnsembleSnapshot snapshot;
  Series series;
  double seconds = 0;  ///< integration wall time so far, over all sessions

  int members_done() const { return int(msd.size()); }
  int blocks() const { return block > 0 ? (members + block - 1) / block : 0; }
  /// Member-steps done (finished blocks and the partial one) over K * steps.
  double fraction(std::int64_t steps) const;
};

/// What run_study_blocks does with its progress: `save` (may be empty: no checkpoints) is called
/// after every finished block, after a stretch of steps when `interval_s` seconds (<= 0: never)
/// or 5 % of the study's member-steps have passed since the last save (mid-block only where the
/// ensemble can_snapshot()), and once when the study is cancelled (then Cancelled is rethrown).
struct StudyCheckpointing {
  double interval_s = 60;
  std::function<void(const StudyProgress&)> save;
};

/// A study integrated in blocks of members (study_block_members), resumable from `sp`: an empty
/// StudyProgress{} starts from the beginning; one saved by an interrupted call (the same t, init
/// and o) continues it. The result equals the uninterrupted call's bit for bit on a back end
/// that can_snapshot() (per member: msd, failed, final state; the merged series); on others the
/// block under way is redone, also bit for bit where the back end is deterministic. Per member,
/// the results are those of run_study() (member k's integration does not depend on the others);
/// the series equal its series up to rounding (a different order of summation). Throws
/// simscope::Error (validate, load, a `sp` that does not match t and o, and what `save` throws)
/// and Cancelled (after saving).
StudyResult run_study_blocks(Ensemble& ensemble, const Topologies& t, const State& init,
                             const StudyOptions& o, StudyProgress& sp,
                             const StudyCheckpointing& checkpointing, Progress* progress = nullptr);

/// The members [members.begin, members.end) of the study run_study_blocks(t, init, o) runs (a
/// work range: t and init hold all K members), in the same blocks: the range must start and end
/// on group boundaries (study_units; split_study_members gives such ranges). A block the range
/// cuts is integrated on its own (its members in the range, in the block's chunks and segments:
/// Recording::chunk_members). The result holds the range's members only (msd, failed,
/// final_state; member_begin), its series contributions (StudyResult::block_*: whole blocks',
/// and the groups' of the blocks it cuts) and the series and ensemble statistics of the range
/// alone. Per member the results are bit-identical to the whole study's (run_study_blocks), and
/// merge_study_ranges() of consecutive ranges equals it bit for bit, series included. No
/// checkpoints. Throws simscope::Error for a range that is not within [0, K) or not on group
/// boundaries, and as run_study_blocks; Cancelled.
/// With `total` > 0, t and init hold the range's members only (make_topologies / make_initial_state
/// with first_member = members.begin) of a study of `total` members: the same results, without
/// building the other members' networks.
StudyResult run_study_range(Ensemble& ensemble, const Topologies& t, const State& init,
                            const StudyOptions& o, const IndexRange& members,
                            Progress* progress = nullptr, int total = 0);

/// Block `b` of the checkpointed study of `total` members on its own (members [b * block,
/// min(total, (b + 1) * block)), block = study_block_members(total)): t and init hold that
/// block's members only (make_topologies / make_initial_state with first_member = b * block).
/// Resumed from `sp` when it holds block b under way (sp.partial, sp.blocks_done == b, as
/// `checkpointing.save` was given it; its sums zero), else started afresh (sp is replaced).
/// `checkpointing.save` is called as run_study_blocks calls it: with block b under way (partial)
/// and once the block is finished (sp.blocks_done == b + 1; sp.msd, failed, final_state the
/// block's members, sp.msd_sum / order_sum / finite its series contribution). Returns what
/// run_study_range(..., {b * block, end}, ..., total) returns, bit for bit. Throws
/// simscope::Error for a block that is not one of the study's, a `sp` that does not fit, and as
/// run_study_range; Cancelled (after saving).
StudyResult run_study_block(Ensemble& ensemble, const Topologies& t, const State& init,
                            const StudyOptions& o, int total, int b, StudyProgress& sp,
                            const StudyCheckpointing& checkpointing, Progress* progress = nullptr);

/// [0, K) cut into `parts` consecutive ranges: with parts <= blocks, whole blocks shared out as
/// evenly as possible (as before the groups); with more parts, on group boundaries
/// (study_cuts), range r ending at the boundary nearest (r + 1) K / parts (the members cost the
/// same), so that up to (groups of the study) ranges have work; a range may be empty when parts
/// exceeds them. Throws simscope::Error when parts is 0 or K < 1.
std::vector<IndexRange> split_study_members(int members, std::size_t parts);

/// The places a study's work ranges may start and end, in order: every group boundary of
/// every block, from 0 to K (study_units).
std::vector<std::size_t> study_cuts(int members);

/// Members `range` of a finished block's result `block` (a one-block range result, e.g. read
/// from a checkpoint) as the result of that range: per-member arrays sliced; the block's series
/// contribution carried by the row of its first group when the range holds it, zeros in the
/// other groups' rows (merge_study_ranges folds them into exactly the block's row). The whole
/// block gives `block` itself. Throws simscope::Error when the range is not on group
/// boundaries inside the block.
StudyResult slice_study_block(const StudyResult& block, const IndexRange& range);

/// The results of consecutive member ranges of one study (run_study_range; parts[k + 1] starts
/// where parts[k] ends; empty ranges allowed) as one StudyResult: per-member arrays and states
/// concatenated, the groups of a block cut between parts folded in group order into the block's
/// row, the series summed block by block in block order, msd_mean / msd_sem / valid /
/// failed_count from all members, seconds summed, peak_device_bytes the largest. Equal bit for
/// bit to run_study_blocks() of the whole study. Throws simscope::Error when the parts do not fit
/// together (gaps, other T or N, other block size) or none is given.
StudyResult merge_study_ranges(const std::vector<StudyResult>& parts);

/// The frame (Frame::theta_r) of the first min(members, s.members) members of a host state.
Frame frame_of(const State& s, int members, std::int64_t step);

/// Mean and standard error (std with ddof 1 over sqrt(n)) of the finite values of v, and how
/// many there were.
void ensemble_mean(const std::vector<double>& v, double& mean, double& sem, std::int64_t& n);

// ---- layouts for drawing -----------------------------------------------------------------------

/// Node positions on the unit circle, node 0 at the top, counter-clockwise: (x0, y0, x1, ...).
std::vector<float> circle_layout(int nodes);
/// A force-directed layout of member k's graph (Fruchterman & Reingold 1991, "Graph drawing by
/// force-directed placement", Software: Practice and Experience 21), started from the circle,
/// deterministic, scaled into [-1, 1]^2.
std::vector<float> spring_layout(const Topologies& t, int member, int iterations = 200);

// ---- schema ------------------------------------------------------------------------------------

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

inline double phase(double x, double y) { return (x == 0 && y == 0) ? 0.0 : std::atan2(y, x); }

}  // namespace simscope::oscillators
