#pragma once
/// @file Checkpoints of headless runs as the front ends see them, whatever the workload: the
/// request a run keeps its checkpoint by (RunRequest::checkpoint), what the front ends do with it
/// (open it, make it ready for MPI ranks, say how far it got, remove it), and the refusal of a
/// --resume. A workload whose headless runs keep one opens it in
/// WorkloadDescriptor::open_checkpoint, e.g. the oscillators' studies
/// (oscillators/study_checkpoint.hpp).
#include <memory>
#include <mutex>
#include <string>

#include "core/backend.hpp"
#include "core/error.hpp"
#include "params/param_set.hpp"

namespace simscope::app {

/// A refused --resume, or a new run refused over an interrupted one's checkpoint.
/// A command-line error: exit status 2.
class CheckpointRefused : public Error {
 public:
  using Error::Error;
};

/// What a headless front end asks of a run (RunRequest::checkpoint) and what the run reports.
/// Fields below `mutex` are guarded by it; read them after the run ends. Each workload that
/// keeps checkpoints derives its own, e.g. StudyCheckpointRequest.
struct CheckpointRequest {
  virtual ~CheckpointRequest() = default;
  std::string dir;         ///< the checkpoint folder, DIR/checkpoint
  bool resume = false;     ///< continue from it (else it must not exist)
  double interval_s = 60;  ///< at most this long between checkpoints (besides every 5 %)
  std::mutex mutex;
  std::string error;  ///< a checkpoint that could not be written

  /// For a run split across ranks, on one process (rank 0) before the ranks run: makes `dir`
  /// ready for every rank, new or converted from an older version. Returns true when it made a
  /// new one. Throws simscope::Error naming a file that could not be read or written.
  virtual bool prepare_for_ranks(const ParamSet& params, Backend backend) = 0;
  /// Whether `dir` is a checkpoint that nothing was saved to yet, which a new run that fails
  /// removes. Throws nothing.
  virtual bool saved_nothing() const = 0;
  /// The line a run stopped by `signal` (e.g. "SIGINT") prints: "interrupted by SIGINT;
  /// checkpoint DIR: ... run the same command with --resume to continue it", or that nothing
  /// could be kept. Throws nothing.
  virtual std::string interrupted_message(const std::string& signal) = 0;
};

/// Opens the checkpoint of a headless run of `workload` into `out_dir`
/// (WorkloadDescriptor::open_checkpoint): --resume needs a checkpoint, a checkpoint needs
/// --resume, and it must fit `params` and `backend`. Null for a workload that keeps none.
/// Throws CheckpointRefused saying what to do, also for --resume with a workload that keeps
/// none; simscope::Error for an unreadable checkpoint.
std::shared_ptr<CheckpointRequest> open_checkpoint(const std::string& workload,
                                                   const ParamSet& params, Backend backend,
                                                   const std::string& out_dir, bool resume,
                                                   double interval_s);

/// The line a headless run stopped by `signal` prints, one process or MPI rank 0:
/// ck->interrupted_message, or with `ck` null "interrupted by SIGINT; no outputs written".
std::string interrupted_message(const std::string& signal, CheckpointRequest* ck);

/// Removes the checkpoint folder. Call after the outputs are written. Throws nothing.
void remove_checkpoint(const std::string& dir);

}  // namespace simscope::app
