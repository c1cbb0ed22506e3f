#pragma once
/// @file This process' place in an MPI job: MPI initialised once (MPI_THREAD_FUNNELED: only the
/// main thread calls MPI), a Communicator over MPI_COMM_WORLD, the node-local rank and size
/// (MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)) and the host name; MPI finalised when it goes.
#include <memory>
#include <string>

#include "communicator.hpp"

namespace simscope::app::mpi {

/// The ranks a launcher (mpirun, srun) says this job has, from its environment
/// (OMPI_COMM_WORLD_SIZE, PMI_SIZE, PMIX_SIZE, or SLURM_NTASKS inside an srun step; 1 when none
/// is set): read before MPI starts, so that a plain `simscope` never initialises MPI.
int launched_ranks();

/// This process' rank as the launcher's environment gives it (OMPI_COMM_WORLD_RANK, PMI_RANK,
/// PMIX_RANK; 0 when none is set), before MPI starts.
int launched_rank();

/// Under a launcher with several ranks, the ranks other than 0 write nothing to stderr while this
/// lives (e.g. while the command line is parsed: every rank parses the same one, and rank 0
/// reports its errors once). Elsewhere it does nothing.
class QuietUnlessRank0 {
 public:
  QuietUnlessRank0();
  ~QuietUnlessRank0();
  QuietUnlessRank0(const QuietUnlessRank0&) = delete;
  QuietUnlessRank0& operator=(const QuietUnlessRank0&) = delete;

 private:
  int saved_ = -1;
};

/// `status`, after a short wait on the ranks other than 0 under a launcher (a command line
/// refused before MPI starts): rank 0 exits first, so the launcher forwards its message before it
/// ends the job for the others' status.
int exit_after_rank0(int status);

/// Whether this build has the MPI front end (SIMSCOPE_MPI found MPI).
bool built_with_mpi();

class Job {
 public:
  /// Joins the job (MPI_Init_thread). Throws simscope::Error when MPI cannot start or this build
  /// has no MPI ("this simscope was built without MPI (SIMSCOPE_MPI=OFF or MPI not found) ...").
  static std::unique_ptr<Job> join();
  ~Job();  ///< MPI_Finalize
  Job(const Job&) = delete;
  Job& operator=(const Job&) = delete;

  Communicator& world();
  int rank() const;
  int size() const;
  int local_rank() const { return local_rank_; }
  int local_size() const { return local_size_; }
  const std::string& host() const { return host_; }

 private:
  Job();
  std::unique_ptr<Communicator> world_;
  int local_rank_ = 0, local_size_ = 1;
  std::string host_;
};

}  // namespace simscope::app::mpi
