#pragma once
/// @file Checkpoints of headless oscillators studies in DIR/checkpoint/.
/// Written as the study runs (oscillators::run_study_blocks), read by `--resume`, removed once the
/// outputs are written.
///
/// This build writes version 5, for one process and for MPI ranks alike. It reads version 4 as
/// version 5 and imports version 3 on resume (prepare_block_checkpoint), both for studies of 64
/// members or more, and refuses the others, versions 1 and 2 included.
///
/// The formats (version 5, and version 3 as imported): README, "File formats".
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "job/checkpoint.hpp"
#include "core/backend.hpp"
#include "core/error.hpp"
#include "oscillators/study.hpp"
#include "params/schema.hpp"

namespace simscope::app {

/// Checkpoint versions this build knows. It writes kCheckpointVersionWritten (5: per block, any
/// rank count). kCheckpointVersionReadAsWritten (4) is version 5's format from before studies of
/// fewer than 64 members were summed per member (reduction groups of 1, study_group_members): it
/// is read as version 5 for kGroupsChangedBelow members or more. kCheckpointVersionImported (3:
/// one process' blocks in order) is read and converted on resume (prepare_block_checkpoint), also
/// for kGroupsChangedBelow members or more. Versions 1 and 2, and versions 3 and 4 of fewer
/// members, are refused with a message naming the version.
constexpr int kCheckpointVersionWritten = 5;
constexpr int kCheckpointVersionReadAsWritten = 4;
constexpr int kCheckpointVersionImported = 3;
constexpr int kGroupsChangedBelow = 64;

/// A study's checkpoint as the headless front ends handle it (checkpoint.hpp), opened by
/// open_study_checkpoint.
struct StudyCheckpointRequest : CheckpointRequest {
  std::string workload;  ///< the workload whose study it is, as checkpoint.json records it
  /// prepare_block_checkpoint with the header found in `dir`; true when there was none.
  bool prepare_for_ranks(const ParamSet& params, Backend backend) override;
  /// A header that reads, and no block_checkpoint_has_progress.
  bool saved_nothing() const override;
  /// "interrupted by SIGINT; checkpoint DIR: 40 of 300 members done, 12.3 % of the study; run
  /// the same command with --resume to continue it"; "... before the first checkpoint; no
  /// outputs written (nothing to resume)"; "...; the checkpoint could not be written (why); no
  /// outputs written".
  std::string interrupted_message(const std::string& signal) override;
};

/// DIR/checkpoint for the output directory DIR.
std::string checkpoint_dir(const std::string& out_dir);

/// checkpoint.json of a checkpoint folder.
struct CheckpointHeader {
  int version = kCheckpointVersionWritten;  ///< 5: per block; 3: one process' (blocks in order)
  std::string workload, backend;
  std::map<std::string, std::string> params;  ///< name -> format_value text
  /// File parameters (ParamType::Path) that named a file: name -> file_identity (path, size,
  /// modification time) at write time. Empty in older checkpoints.
  std::map<std::string, std::string> files;
  int members = 0, nodes = 0, block = 0, blocks_done = 0;
  std::int64_t samples = 0, generation = 0;
  bool partial = false;
  std::int64_t partial_step = 0;
  double seconds = 0;
};

/// Reads `dir`/checkpoint.json; nothing when the file does not exist.
/// Throws simscope::Error naming the file when it is not a checkpoint of a version this build
/// reads (kCheckpointVersionWritten, kCheckpointVersionReadAsWritten, kCheckpointVersionImported).
std::optional<CheckpointHeader> read_checkpoint_header(const std::string& dir);

/// Throws CheckpointRefused naming the first difference between the checkpoint and this command
/// line: the workload, --backend, a parameter, or an input file (network.file, init.file) whose
/// size or modification time changed. view and live.* parameters are not compared.
void check_resumable(const CheckpointHeader& h, const std::string& workload, const ParamSet& p,
                     Backend backend, const std::string& dir);

/// A headless run's checkpoint as the front ends open it (one process or every MPI rank).
struct OpenedCheckpoint {
  /// The request for DIR/checkpoint; null for a workload whose runs keep none.
  std::shared_ptr<StudyCheckpointRequest> request;
  std::optional<CheckpointHeader> header;  ///< the checkpoint found there, if any
};

/// Opens the checkpoint of a headless study of `workload` into `out_dir`: the oscillators'
/// WorkloadDescriptor::open_checkpoint. --resume needs a checkpoint, a checkpoint needs --resume,
/// and it must fit `params` and `backend` (check_resumable). Throws CheckpointRefused saying what
/// to do. Throws simscope::Error for an unreadable checkpoint.
OpenedCheckpoint open_study_checkpoint(const std::string& workload, const ParamSet& params,
                                       Backend backend, const std::string& out_dir, bool resume,
                                       double interval_s);

/// Applies the resume rules to folder `dir` with header `header`, if any.
/// --resume needs a checkpoint, a checkpoint needs --resume, and it must fit `params` and `backend`
/// (check_resumable). Throws CheckpointRefused saying what to do.
void check_resume_rules(const std::string& dir, bool resume,
                        const std::optional<CheckpointHeader>& header,
                        const std::string& workload, const ParamSet& params, Backend backend);

/// Reads the study's progress from a checkpoint folder whose header was read and checked.
/// Throws simscope::Error naming a file that is missing or has the wrong dtype or shape.
oscillators::StudyProgress read_study_checkpoint(const std::string& dir, const CheckpointHeader& h);

/// Makes `dir` a version-5 checkpoint of study `p` and returns its header.
/// No `header`: the folder is emptied and a new one made, prefix 0. Version 3: converted; its
/// finished blocks become the prefix and its block under way gets partial files. Version 5: kept.
/// Call from one process (rank 0) before the ranks run, after check_resumable.
/// Throws simscope::Error naming a file that could not be read or written.
CheckpointHeader prepare_block_checkpoint(const std::string& dir, const std::string& workload,
                                          const ParamSet& p, Backend backend,
                                          const std::optional<CheckpointHeader>& header);

/// Members of finished blocks in the checkpoint `dir` with header `h`.
/// Version 3: blocks [0, blocks_done). Version 5: the prefix and every block marked finished.
int checkpoint_members_done(const std::string& dir, const CheckpointHeader& h);

/// Share of the study held by the checkpoint in `dir`, 0..1.
/// Counts finished members and blocks under way at their saved step.
double checkpoint_fraction_done(const std::string& dir, const CheckpointHeader& h);

/// Whether the version-5 checkpoint in `dir` holds progress: a prefix, a finished block, or a block
/// under way.
bool block_checkpoint_has_progress(const std::string& dir, const CheckpointHeader& h);

/// Computes members `members` of study `p`, checkpointed in ck.dir (see prepare_block_checkpoint).
/// `members` is a work range on group boundaries. Blocks finished in the checkpoint are read;
/// oscillators::slice_study_block takes the range's part of a cut block. Other blocks run on
/// `backend` block by block (oscillators::run_study_block), resuming a block under way. Each
/// block's progress is saved every ck.interval_s at segment ends and when it finishes.
/// An unfinished block cut by the range (more ranks than blocks) runs in part without checkpoints
/// and is redone after an interruption.
/// Guarantees: the result equals oscillators::run_study_range of the range bit for bit, whoever
/// wrote the checkpoint; for [0, K) it equals run_study_blocks, series included. The prefix's sums
/// stand in for block 0's contribution, so merge_study_ranges folds them first.
/// Throws simscope::Error for a checkpoint that does not fit, a missing or misshapen file, or a
/// failed write (then also set in ck.error). Throws Cancelled after saving.
oscillators::StudyResult run_block_checkpointed(CheckpointRequest& ck, const ParamSet& p,
                                                Backend backend, const IndexRange& members,
                                                Progress* progress = nullptr);
/// The same with the study's options `o` read from `p` already (oscillators::study_options_from).
oscillators::StudyResult run_block_checkpointed(CheckpointRequest& ck, const ParamSet& p,
                                                const oscillators::StudyOptions& o,
                                                Backend backend, const IndexRange& members,
                                                Progress* progress = nullptr);

}  // namespace simscope::app
