// README ("Clusters (Slurm)"): under srun with a PMI that this simscope's MPI cannot use
// (--mpi=pmi2, pmi1, none with Debian's Open MPI), simscope stops with one line saying to use
// --mpi=pmix. slurm_pmi_refusal decides from the environment, simulated here as srun sets it
// (variables read off srun -n 2 --mpi=pmi2 / pmix / none under Slurm 22.05); the real srun runs
// in tests/e2e/slurm/e2e_slurm.py. Compiled from app/mpi/mpi_job.cpp without MPI, like
// test_no_mpi.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "mpi_job.hpp"

namespace simscope::app::mpi {
namespace {

const char* const kVars[] = {"SLURM_STEP_ID",
                             "SLURM_STEPID",
                             "SLURM_NTASKS",
                             "SLURM_NPROCS",
                             "SLURM_STEP_NUM_TASKS",
                             "SLURM_PROCID",
                             "SLURM_MPI_TYPE",
                             "PMI_FD",
                             "PMI_RANK",
                             "PMI_SIZE",
                             "PMI_JOBID",
                             "PMIX_NAMESPACE",
                             "PMIX_RANK",
                             "OMPI_COMM_WORLD_SIZE",
                             "OMPI_COMM_WORLD_RANK"};
const std::string kOpenMpi4 =
    "Open MPI v4.1.4, package: Debian OpenMPI, ident: 4.1.4, repo rev: "
    "v4.1.4, May 26, 2022";

class SlurmPmi : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* v : kVars) unsetenv(v);
  }
  void TearDown() override { SetUp(); }
  /// An srun step of `tasks` tasks, this one rank 1, as srun sets it for every --mpi plugin.
  static void step(int tasks) {
    const std::string n = std::to_string(tasks);
    setenv("SLURM_STEP_ID", "0", 1);
    setenv("SLURM_STEPID", "0", 1);
    setenv("SLURM_NTASKS", n.c_str(), 1);
    setenv("SLURM_STEP_NUM_TASKS", n.c_str(), 1);
    setenv("SLURM_PROCID", "1", 1);
  }
  static void pmi2(int tasks) {
    step(tasks);
    setenv("SLURM_MPI_TYPE", "pmi2", 1);
    setenv("PMI_FD", "11", 1);
    setenv("PMI_RANK", "1", 1);
    setenv("PMI_SIZE", std::to_string(tasks).c_str(), 1);
    setenv("PMI_JOBID", "8.0", 1);
  }
};

TEST_F(SlurmPmi, Pmi2WithOpenMpiWithoutSlurmPmiIsRefusedInOneLineNamingPmix) {
  pmi2(2);
  EXPECT_EQ(launched_ranks(), 2);  // the headless run goes to the MPI front end
  EXPECT_EQ(launched_rank(), 1);
  const std::string why = slurm_pmi_refusal(kOpenMpi4, false);
  EXPECT_EQ(why,
            "srun --mpi=pmi2 started these 2 tasks, but this simscope's MPI (Open MPI v4.1.4) "
            "joins them only through PMIx: use srun --mpi=pmix (srun --mpi=list shows this "
            "Slurm's plugins)");
  EXPECT_EQ(why.find('\n'), std::string::npos);
}

TEST_F(SlurmPmi, NoPmiAtAllIsRefusedNamingNone) {
  step(3);  // srun --mpi=none: no SLURM_MPI_TYPE, no PMI variables
  EXPECT_EQ(launched_ranks(), 3);
  const std::string why = slurm_pmi_refusal(kOpenMpi4, false);
  EXPECT_EQ(why.rfind("srun --mpi=none started these 3 tasks", 0), 0u) << why;
  EXPECT_NE(why.find("use srun --mpi=pmix"), std::string::npos) << why;
}

TEST_F(SlurmPmi, PmixIsJoined) {
  step(2);
  setenv("SLURM_MPI_TYPE", "pmix", 1);
  setenv("PMIX_NAMESPACE", "slurm.pmix.10.0", 1);
  setenv("PMIX_RANK", "1", 1);
  EXPECT_EQ(slurm_pmi_refusal(kOpenMpi4, false), "");
}

TEST_F(SlurmPmi, MpirunInsideAnAllocationIsJoined) {
  // mpirun's ranks inherit the step variables of the orted that srun started.
  step(2);
  setenv("OMPI_COMM_WORLD_SIZE", "4", 1);
  setenv("OMPI_COMM_WORLD_RANK", "1", 1);
  EXPECT_EQ(slurm_pmi_refusal(kOpenMpi4, false), "");
}

TEST_F(SlurmPmi, AnOpenMpiWithSlurmPmiOrAnotherLibraryIsNotRefused) {
  pmi2(2);
  EXPECT_EQ(slurm_pmi_refusal(kOpenMpi4, true), "");  // built --with-pmi: its s2 component
  EXPECT_EQ(slurm_pmi_refusal("MPICH Version: 4.0.2", false), "");
  EXPECT_EQ(slurm_pmi_refusal("", false), "");  // a build without MPI: Job::join's own refusal
}

TEST_F(SlurmPmi, OneTaskOrNoStepIsNotRefused) {
  pmi2(1);  // srun -n 1: one process, MPI never starts
  EXPECT_EQ(slurm_pmi_refusal(kOpenMpi4, false), "");
  SetUp();
  setenv("SLURM_NTASKS", "4", 1);  // the batch script of a 4-task job, outside any srun step
  EXPECT_EQ(slurm_pmi_refusal(kOpenMpi4, false), "");
}

TEST_F(SlurmPmi, ThisBuildWithoutMpiClaimsNothing) {
  EXPECT_EQ(mpi_library(), "");
  EXPECT_TRUE(mpi_takes_slurm_pmi());
}

}  // namespace
}  // namespace simscope::app::mpi
