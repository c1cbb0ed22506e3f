#pragma once
/// @file Checkpoints of headless oscillators studies: DIR/checkpoint/ beside the outputs, written
/// as the study goes (oscillators::run_study_blocks), read by `--resume`, removed once the final
/// outputs are written.
///
/// simscope writes version 4 (below), one process and the ranks of an MPI job alike; a version-3
/// checkpoint left by an older build is imported into version 4 when resumed
/// (prepare_block_checkpoint); versions 1 and 2 (these files with block means x counts in place
/// of the groups' sums) are refused.
///
/// Format version 3: a folder of .npy files (C order, little endian, fp64 unless said) and
/// checkpoint.json naming them:
///   checkpoint.json           {"format": "simscope study checkpoint", "version": 3,
///                              "workload": "oscillators", "backend": "cpu", "params": {name:
///                              value as text, every parameter}, "members", "nodes", "samples",
///                              "block", "blocks_done", "generation", "seconds",
///                              "partial": {"step": S} when a block is under way}
///   block_BBBBB.msd.npy       (kb,) time-averaged msd of block B's members (NaN: failed)
///   block_BBBBB.failed.npy    (kb,) uint8, 1: the member went non-finite
///   block_BBBBB.state.npy     (kb, N, 2) final x, y (as state.npy)
///   gGGGGGG.sums.npy          (3, T) over the finished blocks, added in block order: each
///                             block's contribution (the fold of its reduction groups' sums, in
///                             group order) of msd, of R, and the counts of finite members
///   gGGGGGG.partial_state.npy (kb, N, 2) the block under way at step S
///   gGGGGGG.partial_acc.npy   (3, kb) its members' msd sums (completed windows, open window) and
///                             failed flags (0/1)
///   gGGGGGG.partial_series.npy (3, S / every, G) its samples so far, per reduction group
///                             (oscillators::study_group_members; G groups in the block): sums
///                             of msd, of R over the group's finite members, and their counts
/// Finished blocks' files are written once; the others carry the generation G of the
/// checkpoint.json that names them. Every file is written to NAME.tmp, flushed to disk and
/// renamed; checkpoint.json last, so a crash at any point leaves the previous checkpoint whole
/// (files of other generations are removed after the rename). Values are fp64 bit patterns, so a
/// resumed study continues exactly where the checkpoint was taken.
///
/// Format version 4 (any number of ranks, issue 13): finished blocks and blocks under way are kept
/// per block, so that R ranks each integrating their own blocks write into one folder, and any
/// rank count (one process too) resumes it:
///   checkpoint.json           as version 3 with "version": 4, no "partial"; "blocks_done" P and
///                             "generation" G name the prefix: blocks [0, P) whose series are
///                             folded (in block order) into gGGGGGG.sums.npy (a converted
///                             version-3 checkpoint's finished blocks; P = 0 for a new study);
///                             "seconds": the prefix's integration time
///   block_BBBBB.{msd,failed,state}.npy   as version 3, for every finished block
///   block_BBBBB.series.npy    (3, T) block B >= P's series contribution: the fold of its
///                             groups' sums of msd and of R at each sample, the counts
///   block_BBBBB.json          {"seconds": s}: block B >= P is finished (written last)
///   partial_BBBBB.json        {"generation": g, "step": S, "seconds": s}: block B under way
///   partial_BBBBB.gGGGGGG.{state,acc,series}.npy   its files, as version 3's partial files
/// Every file is written as in version 3 (NAME.tmp, flushed, renamed), each block's by the one
/// process that integrates it; checkpoint.json by one process before the ranks start.
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "core/backend.hpp"
#include "core/error.hpp"
#include "oscillators/study.hpp"
#include "params/schema.hpp"

namespace simscope::app {

/// The checkpoint formats this build reads (below): 3, imported; 4, per block, the one it writes.
/// Versions 1 and 2 (the same files with the series summed per block, before the reduction
/// groups) are refused with a message saying so.
constexpr int kStudyCheckpointVersion = 3;
constexpr int kBlockCheckpointVersion = 4;

/// A refused --resume (parameters that differ, no checkpoint) or a refused new study over an
/// interrupted one's checkpoint: a command-line error (exit status 2).
class CheckpointRefused : public Error {
 public:
  using Error::Error;
};

/// What the headless runner asks of a study (RunRequest::checkpoint), and what the study reports
/// back (guarded by `mutex`; read after the run ended).
struct StudyCheckpointRequest {
  std::string dir;         ///< the checkpoint folder, DIR/checkpoint
  bool resume = false;     ///< continue from it (else it must not exist)
  double interval_s = 60;  ///< at most this long between checkpoints (besides every 5 %)
  std::mutex mutex;
  std::string error;  ///< a checkpoint that could not be written
};

/// DIR/checkpoint for the output directory DIR.
std::string checkpoint_dir(const std::string& out_dir);

/// checkpoint.json of a checkpoint folder.
struct CheckpointHeader {
  int version = kStudyCheckpointVersion;  ///< 3: one process' (blocks in order); 4: per block
  std::string workload, backend;
  std::map<std::string, std::string> params;  ///< name -> format_value text
  /// File parameters (ParamType::Path) that named a file: name -> file_identity (path, size,
  /// modification time) when the checkpoint was written. Empty in checkpoints from before.
  std::map<std::string, std::string> files;
  int members = 0, nodes = 0, block = 0, blocks_done = 0;
  std::int64_t samples = 0, generation = 0;
  bool partial = false;
  std::int64_t partial_step = 0;
  double seconds = 0;
};

/// Reads `dir`/checkpoint.json; nothing when the file does not exist. Throws simscope::Error
/// naming the file when it is not a version-3 or version-4 checkpoint.
std::optional<CheckpointHeader> read_checkpoint_header(const std::string& dir);

/// Throws CheckpointRefused naming the first thing that differs between the checkpoint and this
/// command line: the workload, --backend, or a parameter (all but view and live.*, which do not
/// change a study's results), e.g. "--resume: integrator.steps is 4000 here but 3000 in the
/// checkpoint DIR/checkpoint; ..."), or an input file (network.file, init.file) edited since the
/// checkpoint was written (its size or modification time differ).
void check_resumable(const CheckpointHeader& h, const std::string& workload, const ParamSet& p,
                     Backend backend, const std::string& dir);

/// A headless run's checkpoint as the front ends open it (one process or every MPI rank).
struct OpenedCheckpoint {
  /// The request for DIR/checkpoint; null for a workload whose runs keep none.
  std::shared_ptr<StudyCheckpointRequest> request;
  std::optional<CheckpointHeader> header;  ///< the checkpoint found there, if any
};

/// Opens the checkpoint of a headless run of `workload` into `out_dir` by the resume rules: a
/// workload whose runs keep one (WorkloadDescriptor::keeps_checkpoint) gets a request; --resume
/// needs a checkpoint there, a checkpoint there needs --resume, and the checkpoint must fit
/// `params` and `backend` (check_resumable). Throws CheckpointRefused saying what to do, also
/// for --resume with a workload that keeps none; simscope::Error for an unreadable checkpoint.
OpenedCheckpoint open_study_checkpoint(const std::string& workload, const ParamSet& params,
                                       Backend backend, const std::string& out_dir, bool resume,
                                       double interval_s);

/// The resume rules of a checkpoint folder `dir` whose header (if any) is `header`: --resume
/// needs a checkpoint, a checkpoint needs --resume, and it must fit `params` and `backend`
/// (check_resumable). Throws CheckpointRefused saying what to do.
void check_resume_rules(const std::string& dir, bool resume,
                        const std::optional<CheckpointHeader>& header,
                        const std::string& workload, const ParamSet& params, Backend backend);

/// Reads the study's progress from a checkpoint folder (whose header was read and checked).
/// Throws simscope::Error naming a file that is missing or has the wrong dtype or shape.
oscillators::StudyProgress read_study_checkpoint(const std::string& dir, const CheckpointHeader& h);

/// Writes version-3 checkpoints of one study into `dir` (created), as the format above says: what
/// older builds wrote, kept for the tests of the import (simscope itself writes version 4).
class StudyCheckpointWriter {
 public:
  /// `header` the checkpoint resumed from (its blocks are on disk), or nothing for a new study
  /// (the folder is then emptied and created at the first write).
  StudyCheckpointWriter(std::string dir, const std::string& workload, const ParamSet& p,
                        Backend backend, const std::optional<CheckpointHeader>& header);
  /// Writes `sp` as the next generation. Throws simscope::Error naming the file that failed; the
  /// previous checkpoint then stays valid.
  void write(const oscillators::StudyProgress& sp);

 private:
  std::string dir_;
  CheckpointHeader base_;
  int blocks_on_disk_ = 0;
  std::int64_t generation_ = 0;
  bool fresh_ = true;
};

/// Makes `dir` a version-4 checkpoint of the study `p` and returns its header: a new one (the
/// folder emptied; prefix 0) when `header` is nothing; a version-3 one converted (its finished
/// blocks become the prefix, its block under way that block's partial files); a version-4 one
/// kept as it is. Called by one process (rank 0) before the ranks run, after check_resumable.
/// Throws simscope::Error naming the file that could not be read or written.
CheckpointHeader prepare_block_checkpoint(const std::string& dir, const std::string& workload,
                                          const ParamSet& p, Backend backend,
                                          const std::optional<CheckpointHeader>& header);

/// The members of finished blocks in the checkpoint in `dir` with header `h` (version 3: blocks
/// [0, blocks_done); version 4: the prefix and every block marked finished).
int checkpoint_members_done(const std::string& dir, const CheckpointHeader& h);

/// The share of the study the checkpoint in `dir` holds, 0..1: its finished members, and its
/// blocks under way at their saved step.
double checkpoint_fraction_done(const std::string& dir, const CheckpointHeader& h);

/// The one line a headless run stopped by `signal` (e.g. "SIGINT") prints, one process or rank
/// 0 of an MPI job: "interrupted by SIGINT; checkpoint DIR: 40 of 300 members done, 12.3 % of
/// the study; run the same command with --resume to continue it"; "... before the first
/// checkpoint; no outputs written (nothing to resume)"; "...; the checkpoint could not be written
/// (why); no outputs written"; without a checkpoint (`ck` null) "interrupted by SIGINT; no
/// outputs written".
std::string interrupted_message(const std::string& signal, StudyCheckpointRequest* ck);

/// Whether the version-4 checkpoint in `dir` holds progress: a prefix, a finished block or a
/// block under way.
bool block_checkpoint_has_progress(const std::string& dir, const CheckpointHeader& h);

/// The members `members` (a work range of the study, on group boundaries) of the study `p`,
/// whose version-4 checkpoint is in ck.dir (prepare_block_checkpoint): blocks finished there are
/// read (the range's members of them, oscillators::slice_study_block, when the range cuts one),
/// the others integrated on `backend` block by block (oscillators::run_study_block, resumed
/// where one was under way), each block's progress saved there as it goes (every ck.interval_s
/// at the block's segment ends, and when it is finished). A block the range cuts (more ranks
/// than blocks) and that is not finished is integrated in part without checkpoints: it is
/// redone after an interruption (a block under way there is not resumed). The result equals
/// oscillators::run_study_range of the range bit for bit (for [0, K): the whole study's
/// run_study_blocks, series included), whoever wrote the checkpoint: the prefix's series sums
/// stand in for block 0's contribution (the blocks after it add none), so that
/// merge_study_ranges folds them first. Throws simscope::Error (a checkpoint that does not fit
/// the study, a file missing or of the wrong shape, one that cannot be written: then also in
/// ck.error, as run_study_block), Cancelled (after saving).
oscillators::StudyResult run_block_checkpointed(StudyCheckpointRequest& ck, const ParamSet& p,
                                                Backend backend, const IndexRange& members,
                                                Progress* progress = nullptr);

/// Removes the checkpoint folder (after the final outputs were written). Throws nothing.
void remove_checkpoint(const std::string& dir);

}  // namespace simscope::app
