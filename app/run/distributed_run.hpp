#pragma once
/// @file One run split across the ranks of a job (issue 13): each rank computes one work range
/// (split_merge.hpp) while the ranks exchange their progress, rank 0 gathers the parts and merges
/// them into the result of the whole run. Free of MPI: the transport is a Communicator
/// (app/mpi/ implements it over MPI).
///
/// Faults: a rank whose run throws (bad input, a device error) makes every rank stop at the next
/// progress exchange (the others' runs are cancelled); every rank then throws, rank 0 with the
/// failing rank's message, so that one clear message is printed and nothing is written. A rank
/// that dies is the launcher's to detect (mpirun and srun end the job).
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "communicator.hpp"
#include "core/error.hpp"
#include "workload.hpp"

namespace simscope::app {

/// Thrown on ranks other than 0 when the job failed: rank 0 reports the error, these stay quiet.
class JobFailed : public Error {
 public:
  using Error::Error;
};

/// Thrown on every rank when a rank asked the job to stop (DistributedOptions::stop): the runs
/// were cancelled (a study's checkpoint keeps what was saved) and nothing was gathered.
class JobStopped : public Error {
 public:
  /// `code`: the stop code of the lowest rank that asked (e.g. SIGINT's number).
  explicit JobStopped(int code) : Error("the job was stopped"), code(code) {}
  int code;
};

/// What one rank did (run.json's "mpi" section).
struct RankReport {
  int rank = 0;
  std::string host, device;        ///< e.g. "node12", "NVIDIA H200 (device 1)" or "cpu"
  int threads = 0;                 ///< CPU threads it used
  std::size_t begin = 0, end = 0;  ///< its work range
  double seconds = 0;              ///< its run's wall time
  double result_bytes = 0;         ///< its encoded result
};

/// The outcome of run_distributed.
struct DistributedRun {
  RunResult result;               ///< rank 0: the merged result; other ranks: empty
  std::vector<RankReport> ranks;  ///< rank 0: every rank's, in rank order
  WorkAxis axis;                  ///< the axis split
  double wall_seconds = 0;        ///< from the start to the merged result (rank 0)
  double gather_seconds = 0;      ///< rank 0: the gather of the parts
  double merge_seconds = 0;       ///< rank 0: decoding and merging
  double reduce_seconds = 0;      ///< the reduction of added sums (WorkAxis::reduced)
  double reduced_bytes = 0;       ///< the sums each rank contributed to it
  /// max / mean of the ranks' run seconds over the ranks with work (1: balanced).
  double imbalance() const;
};

/// How this rank takes part.
struct DistributedOptions {
  RankReport me;  ///< host, device, threads of this rank (the rest is filled in)
  /// Rank 0: called about every `poll_seconds` with the whole job's fraction done and the
  /// seconds since the start.
  std::function<void(double fraction, double elapsed)> progress;
  /// Called first in the thread that computes (e.g. to select this rank's GPU and threads).
  std::function<void()> on_compute_thread;
  /// A study's checkpoint (RunRequest::checkpoint of this rank's range; version 2, made ready by
  /// rank 0 with prepare_block_checkpoint before the call); null: none.
  std::shared_ptr<StudyCheckpointRequest> checkpoint;
  /// The axis to split (Workload::split_axis; empty: work_axis(), e.g. the field's targets).
  std::string axis;
  /// Polled at each progress exchange: 0 to go on, or a positive code (e.g. the signal that
  /// asked this process to stop) to stop the job; then every rank cancels its run and throws
  /// JobStopped with the code of the lowest rank that asked. Empty: never stops.
  std::function<int()> stop;
  double poll_seconds = 0.1;
};

/// Collective over `comm`: splits the run of `w` with `params` on `backend` into comm.size()
/// work ranges of options.axis (split_work), runs this rank's, and merges on rank 0
/// (Workload::merge_ranges). Ranks with an empty range run nothing, except on a reduced axis
/// (WorkAxis::reduced), whose parts' "sum:..." sums are reduced to rank 0 (reduce_sum) instead
/// of being gathered: rank 0's merge sees them in its own part only. Throws simscope::Error on rank
/// 0 with the first failing rank's message (prefixed "rank R of N: " for R > 0), JobFailed on the
/// other ranks; JobStopped on every rank when a rank asked to stop (options.stop) before its
/// run and every other had ended.
DistributedRun run_distributed(Workload& w, const ParamSet& params, Backend backend,
                               Communicator& comm, const DistributedOptions& options);

/// Collective: every rank says whether its last step failed (`error` not empty). When one did,
/// throws on every rank: Error with the first failing rank's message on rank 0 (prefixed as
/// above), JobFailed on the others. For the steps before the run (reading the command line).
void agree(Communicator& comm, const std::string& error);

}  // namespace simscope::app
