#pragma once
/// @file One run split across the ranks of a job.
/// Each rank computes one work range (split_merge.hpp) while the ranks exchange progress; rank 0
/// gathers the parts and merges them. Free of MPI: the transport is a Communicator, which app/mpi/
/// implements.
///
/// Faults: when a rank's run throws, every rank stops at the next progress exchange and throws.
/// Rank 0 throws the failing rank's message, so one message is printed and nothing is written.
/// A rank that dies is left to the launcher (mpirun and srun end the job).
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ranges/communicator.hpp"
#include "core/error.hpp"
#include "workload.hpp"

namespace simscope::app {

/// Thrown on ranks other than 0 when the job failed. Rank 0 reports the error.
class JobFailed : public Error {
 public:
  using Error::Error;
};

/// Thrown on every rank when a rank asked the job to stop (DistributedOptions::stop).
/// The runs were cancelled and nothing was gathered; a study's checkpoint keeps what was saved.
class JobStopped : public Error {
 public:
  /// `code`: the stop code of the lowest asking rank, e.g. SIGINT's number.
  explicit JobStopped(int code) : Error("the job was stopped"), code(code) {}
  int code;
};

/// What one rank did; run.json's "mpi" section.
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
  /// max / mean of run seconds over the ranks with work; 1 is balanced.
  double imbalance() const;
};

/// How this rank takes part.
struct DistributedOptions {
  RankReport me;  ///< host, device, threads of this rank (the rest is filled in)
  /// Rank 0: called about every `poll_seconds` with the job's fraction done and elapsed seconds.
  std::function<void(double fraction, double elapsed)> progress;
  /// Called first on the compute thread, e.g. to select this rank's GPU and threads.
  std::function<void()> on_compute_thread;
  /// A study's checkpoint request for this rank's range; null for none.
  /// Rank 0 must prepare it with CheckpointRequest::prepare_for_ranks before the call.
  std::shared_ptr<CheckpointRequest> checkpoint;
  /// The axis to split (Workload::split_axis). Empty: work_axis().
  std::string axis;
  /// Polled at each progress exchange: 0 to go on, a positive code to stop the job.
  /// On a stop every rank cancels its run and throws JobStopped with the lowest asking rank's code.
  /// Empty: never stops.
  std::function<int()> stop;
  double poll_seconds = 0.1;
};

/// Collective over `comm`: runs this rank's share of `w` and merges on rank 0.
/// Splits the run into comm.size() work ranges of options.axis (split_work) and merges with
/// Workload::merge_ranges. Ranks with an empty range run nothing, except on a WorkAxis::reduced
/// axis: there the parts' "sum:..." sums are reduced to rank 0's part instead of gathered.
/// Throws simscope::Error on rank 0 with the first failing rank's message, prefixed "rank R of N: "
/// for R > 0, and JobFailed on the others. Throws JobStopped on every rank when a rank asked to
/// stop (options.stop) before every run had ended.
DistributedRun run_distributed(Workload& w, const ParamSet& params, Backend backend,
                               Communicator& comm, const DistributedOptions& options);

/// Collective: every rank reports whether its last step failed (`error` not empty).
/// If one did, throws on every rank: Error with the first failing rank's message on rank 0,
/// JobFailed on the others. For the steps before the run, such as reading the command line.
void agree(Communicator& comm, const std::string& error);

}  // namespace simscope::app
