#pragma once
/// @file This process' place in an MPI job.
/// MPI is initialised once with MPI_THREAD_FUNNELED: only the main thread calls MPI. Provides a
/// Communicator over MPI_COMM_WORLD, the node-local rank and size
/// (MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)) and the host name. MPI is finalised when it goes.
#include <memory>
#include <string>

#include "ranges/communicator.hpp"
#include "core/error.hpp"

namespace simscope::app::mpi {

/// The rank count a launcher (mpirun, srun) gives this job in its environment; 1 when none is set.
/// Reads OMPI_COMM_WORLD_SIZE, PMI_SIZE, PMIX_SIZE, or SLURM_NTASKS inside an srun step. Read
/// before MPI starts, so a plain `simscope` never initialises MPI.
int launched_ranks();

/// This process' rank from the launcher's environment (OMPI_COMM_WORLD_RANK, PMI_RANK, PMIX_RANK);
/// 0 when none is set. Read before MPI starts.
int launched_rank();

/// While alive under a launcher with several ranks, ranks other than 0 write nothing to stderr.
/// E.g. while every rank parses the same command line, rank 0 reports its errors once.
/// Elsewhere it does nothing.
class QuietUnlessRank0 {
 public:
  QuietUnlessRank0();
  ~QuietUnlessRank0();
  QuietUnlessRank0(const QuietUnlessRank0&) = delete;
  QuietUnlessRank0& operator=(const QuietUnlessRank0&) = delete;

 private:
  int saved_ = -1;
};

/// Returns `status`, after a short wait on ranks other than 0 under a launcher.
/// For a command line refused before MPI starts: rank 0 exits first, so the launcher forwards its
/// message before ending the job.
int exit_after_rank0(int status);

/// Whether this build has the MPI front end (SIMSCOPE_MPI found MPI).
bool built_with_mpi();

/// An error every rank of the job raised alike (the CPU kernels' level): rank 0 reports it.
struct AgreedError : Error {
  using Error::Error;
};

/// The launcher started the ranks in a way this MPI library cannot join, found from the
/// environment before MPI starts: every rank raises it alike, rank 0 reports it.
struct LaunchRefused : AgreedError {
  using AgreedError::AgreedError;
};

/// The MPI library as MPI_Get_library_version names it (its first line, e.g. "Open MPI v4.1.4,
/// package: ..."), read before MPI starts; "" in a build without MPI.
std::string mpi_library();

/// Whether the MPI library can take its ranks from Slurm's PMI-1 / PMI-2 (srun --mpi=pmi2).
/// Open MPI 4 only with its pmix s1 or s2 component (Debian's has neither), Open MPI 5 never;
/// true for any other library and in a build without MPI.
bool mpi_takes_slurm_pmi();

/// One line saying why the tasks of this srun step cannot join an MPI job, "" when nothing is
/// known to stand in the way. Refused: a step of several tasks started without PMIx (srun
/// --mpi=pmi2, pmi1, none: no PMIX_NAMESPACE in the environment) when `library` is Open MPI and
/// `takes_slurm_pmi` is false; the line says to use srun --mpi=pmix. Ranks started by mpirun
/// (OMPI_COMM_WORLD_SIZE) are never refused. Reads the environment only.
std::string slurm_pmi_refusal(const std::string& library, bool takes_slurm_pmi);

class Job {
 public:
  /// Joins the job (MPI_Init_thread). Throws simscope::Error when MPI cannot start or this build
  /// has no MPI: "this simscope was built without MPI (SIMSCOPE_MPI=OFF or MPI not found) ...".
  /// Throws LaunchRefused, before MPI starts, for an srun step that MPI cannot join
  /// (slurm_pmi_refusal: Open MPI would abort in MPI_Init with its own messages).
  /// Every rank then runs the CPU kernels at the lowest instruction-set level among the ranks
  /// (core/isa.hpp; run.json's backend.cpu_kernels_chosen_by says so).
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
  void agree_on_isa_level();  ///< collective: set_isa_level(the ranks' lowest)
  std::unique_ptr<Communicator> world_;
  int local_rank_ = 0, local_size_ = 1;
  std::string host_;
};

}  // namespace simscope::app::mpi
