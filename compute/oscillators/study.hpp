#pragma once
/// @file Headless studies of the `oscillators` workload: every member integrated for a fixed
/// number of steps, whole, in checkpointed blocks of members, or in work ranges merged bit for bit.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "core/range.hpp"
#include "oscillators/ensemble.hpp"

namespace simscope::oscillators {

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

/// Mean and standard error (std with ddof 1 over sqrt(n)) of the finite values of v, and how
/// many there were.
void ensemble_mean(const std::vector<double>& v, double& mean, double& sem, std::int64_t& n);

}  // namespace simscope::oscillators
