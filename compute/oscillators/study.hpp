#pragma once
/// @file Headless studies of the `oscillators` workload: every member integrated a fixed number
/// of steps, whole, in checkpointed blocks of members, or in work ranges merged bit for bit.
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
  /// Part of `seconds` spent in earlier sessions: blocks read from a checkpoint and a resumed
  /// block's time before the interruption. 0 for a fresh study.
  double seconds_before = 0;
  /// Range results only (run_study_range); empty for whole studies.
  /// Holds the range's first member, the block and group sizes of the whole K, and the range's
  /// series contributions: (units, T) row-major, one row per unit of study_units(K, range) in
  /// member order. A whole block's row folds its groups' sums of msd and R in group order from 0.
  /// A group's row, for a block the range cuts, holds that group's own sums.
  /// block_finite holds the counts of finite members.
  /// merge_study_ranges folds cut blocks' groups into block rows and adds block rows in block
  /// order, as run_study_blocks does, so merged series equal unsplit ones bit for bit.
  std::size_t member_begin = 0;
  int members_total = 0;  ///< K of the whole study
  int block = 0;
  int group = 0;
  std::vector<double> block_msd_sum, block_order_sum;
  std::vector<std::int64_t> block_finite;
};

/// Checks StudyOptions: integrator.dt, integrator.steps, integrator.transient, record.every,
/// and the series length T = steps / every <= 1e7. Messages name the parameter.
void validate(const StudyOptions& o);

/// Loads `t` and `init` into `ensemble`, integrates, and collects the results.
/// Progress and cancellation as Ensemble::advance.
/// Throws simscope::Error from validation or load, or Cancelled.
StudyResult run_study(Ensemble& ensemble, const Topologies& t, const State& init,
                      const StudyOptions& o, Progress* progress = nullptr);

/// Members per block of a checkpointed study: ceil(K / 20), at least min(K, 64) so a block keeps
/// a many-core CPU busy. Depends on K only, so an interrupted study and its resumption split
/// the members the same way.
int study_block_members(int members);

/// Members per reduction group of a study (Recording::group). A block's series fold its groups'
/// sums in group order. Work ranges start and end on group boundaries, so several ranks can
/// share a block. Groups of block b start at b * block + q * group; the last may be shorter.
/// Value: for K >= 64, ceil(block / 16) rounded up to a multiple of 8, at most the block, so at
/// most 16 groups per block; the multiple of 8 keeps the CPU's lane groups full (cpu_lanes.hpp).
/// For K < 64 (one block of K members) 1, so a study of K members spreads over up to K ranks.
/// Depends on K only.
int study_group_members(int members);

/// A unit of a study's series contributions (StudyResult::block_*): members [begin, end) of
/// block `block`, either the whole block or one of its groups.
struct StudyUnit {
  int block = 0;
  int begin = 0, end = 0;
  bool whole = false;
};

/// The units of members `range` of a study of `members` members, in member order: each block
/// the range covers whole, and each group of the blocks it cuts.
/// Throws simscope::Error unless the range is within [0, K) and starts and ends on group
/// boundaries.
std::vector<StudyUnit> study_units(int members, const IndexRange& range);

/// The state a checkpoint holds for a checkpointed study. Members are integrated in blocks of
/// `block` consecutive members, one block after another, each for all steps.
/// Blocks [0, blocks_done) are finished; the next may be under way (`partial`).
/// A finished block's series contribution, the fold of its groups' sums in group order, is
/// merged into the sums in block order. The merged series therefore do not depend on where a
/// study was interrupted.
struct StudyProgress {
  int members = 0, nodes = 0;  ///< K, N
  std::int64_t samples = 0;    ///< T = steps / every
  int block = 0;               ///< study_block_members(K); 0: not started (run_study_blocks sets)
  int blocks_done = 0;
  /// Finished members [0, members_done()): time-averaged msd (NaN when failed), failed flags and
  /// final states.
  std::vector<double> msd;
  std::vector<std::uint8_t> failed;
  State final_state;
  /// Length T, over the finished blocks: sums of their msd and R contributions, and the counts of
  /// members finite at each sample.
  std::vector<double> msd_sum, order_sum;
  std::vector<std::int64_t> finite;
  /// Block `blocks_done` under way: its ensemble at a chunk boundary and its samples so far.
  /// Its Series::group_* sums make its contribution. Of Series::msd, order and finite only the
  /// length is used.
  bool partial = false;
  EnsembleSnapshot snapshot;
  Series series;
  double seconds = 0;  ///< integration wall time so far, over all sessions

  int members_done() const { return int(msd.size()); }
  int blocks() const { return block > 0 ? (members + block - 1) / block : 0; }
  /// Member-steps done, finished blocks and the partial one, over K * steps.
  double fraction(std::int64_t steps) const;
};

/// How run_study_blocks saves progress. `save` may be empty, meaning no checkpoints.
/// It is called after every finished block, and once when the study is cancelled, after which
/// Cancelled is rethrown. It is also called mid-block, where the ensemble can_snapshot(), after
/// a stretch of steps once `interval_s` seconds or 5 % of the member-steps have passed since the
/// last save. `interval_s` <= 0 disables the time trigger.
struct StudyCheckpointing {
  double interval_s = 60;
  std::function<void(const StudyProgress&)> save;
};

/// A study integrated in blocks of members (study_block_members), resumable from `sp`.
/// An empty StudyProgress{} starts from the beginning. One saved by an interrupted call with the
/// same t, init and o continues it.
/// On a back end that can_snapshot(), the result equals the uninterrupted call's bit for bit:
/// per-member msd, failed and final state, and the merged series. On others the block under way
/// is redone, also bit for bit where the back end is deterministic.
/// Per member, results equal run_study(); the series equal its series up to summation order.
/// Throws simscope::Error from validation, load, a `sp` that does not match t and o, or `save`.
/// Throws Cancelled after saving.
StudyResult run_study_blocks(Ensemble& ensemble, const Topologies& t, const State& init,
                             const StudyOptions& o, StudyProgress& sp,
                             const StudyCheckpointing& checkpointing, Progress* progress = nullptr);

/// Runs members [members.begin, members.end) of the study run_study_blocks(t, init, o) runs,
/// in the same blocks. t and init hold all K members. The range must start and end on group
/// boundaries; see study_units and split_study_members.
/// A block the range cuts is integrated on its own: the range's members, in the block's chunks
/// and segments (Recording::chunk_members).
/// The result holds the range's members only (msd, failed, final_state, member_begin), its
/// series contributions (StudyResult::block_*), and the series and ensemble statistics of the
/// range alone. Per member, results equal run_study_blocks() bit for bit. merge_study_ranges()
/// of consecutive ranges equals it bit for bit, series included. No checkpoints.
/// Throws simscope::Error for a range outside [0, K) or off group boundaries, and as
/// run_study_blocks. Throws Cancelled.
/// With `total` > 0, t and init hold only the range's members of a study of `total` members,
/// built with first_member = members.begin. Results are the same; other members' networks are
/// not built.
StudyResult run_study_range(Ensemble& ensemble, const Topologies& t, const State& init,
                            const StudyOptions& o, const IndexRange& members,
                            Progress* progress = nullptr, int total = 0);

/// Runs block `b` of the checkpointed study of `total` members on its own.
/// The block is members [b * block, min(total, (b + 1) * block)) with
/// block = study_block_members(total). t and init hold only that block's members, built with
/// first_member = b * block.
/// Resumes from `sp` when it holds block b under way, as `checkpointing.save` was given it:
/// sp.partial, sp.blocks_done == b, sums zero. Otherwise starts afresh and replaces sp.
/// Calls `checkpointing.save` as run_study_blocks does: with block b under way, and once it is
/// finished. Then sp.blocks_done == b + 1, sp.msd, failed and final_state hold the block's
/// members, and sp.msd_sum, order_sum and finite its series contribution.
/// Returns what run_study_range(..., {b * block, end}, ..., total) returns, bit for bit.
/// Throws simscope::Error for a block not in the study, a `sp` that does not fit, and as
/// run_study_range. Throws Cancelled after saving.
StudyResult run_study_block(Ensemble& ensemble, const Topologies& t, const State& init,
                            const StudyOptions& o, int total, int b, StudyProgress& sp,
                            const StudyCheckpointing& checkpointing, Progress* progress = nullptr);

/// Cuts [0, K) into `parts` consecutive ranges. With parts <= blocks, whole blocks are shared
/// out as evenly as possible. With more parts, ranges cut on group boundaries (study_cuts):
/// range r ends at the boundary nearest (r + 1) K / parts, since members cost the same.
/// Up to G ranges have work, G the study's group count; the rest are empty when parts > G.
/// Throws simscope::Error when parts is 0 or K < 1.
std::vector<IndexRange> split_study_members(int members, std::size_t parts);

/// The places where a study's work ranges may start and end, in order: every group boundary of
/// every block, from 0 to K (study_units).
std::vector<std::size_t> study_cuts(int members);

/// Members `range` of a finished one-block result `block`, e.g. read from a checkpoint, as the
/// result of that range. Per-member arrays are sliced. The block's series contribution goes in
/// the row of its first group when the range holds it, zeros in the other groups' rows;
/// merge_study_ranges folds them back into exactly the block's row.
/// The whole block gives `block` itself.
/// Throws simscope::Error when the range is not on group boundaries inside the block.
StudyResult slice_study_block(const StudyResult& block, const IndexRange& range);

/// Merges the results of consecutive member ranges of one study (run_study_range) into one
/// StudyResult. parts[k + 1] starts where parts[k] ends; empty ranges are allowed.
/// Per-member arrays and states are concatenated. Groups of a block cut between parts fold in
/// group order into the block's row; series are summed block by block in block order.
/// msd_mean, msd_sem, valid and failed_count cover all members; seconds are summed;
/// peak_device_bytes is the largest. Equals run_study_blocks() of the whole study bit for bit.
/// Throws simscope::Error when the parts do not fit together (gaps, other T or N, other block
/// size) or none is given.
StudyResult merge_study_ranges(const std::vector<StudyResult>& parts);

/// Mean and standard error, std with ddof 1 over sqrt(n), of the finite values of v, and their
/// count.
void ensemble_mean(const std::vector<double>& v, double& mean, double& sem, std::int64_t& n);

}  // namespace simscope::oscillators
