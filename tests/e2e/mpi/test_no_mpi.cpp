// README ("Several processes, GPUs and nodes", Build): "A build without MPI refuses to run under a
// launcher with more than one rank, saying so." This binary compiles app/mpi/mpi_job.cpp without
// MPI (SIMSCOPE_HAVE_MPI undefined), whatever this build has, so the refusal is tested without a
// second build of simscope: a headless run under a launcher of several ranks goes to
// run_headless_ranks, whose Job::join is this stub (app/main.cpp, app/mpi/mpi_headless.cpp: its
// error is the one "simscope: error:" line, exit status 1). The launchers are simulated by their
// environment variables (Open MPI, MPICH/Hydra, PMIx, an srun step).
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "core/error.hpp"
#include "mpi_job.hpp"

namespace simscope::app::mpi {
namespace {

const char* const kLauncherVars[] = {"OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK", "PMI_SIZE",
                                     "PMI_RANK",  "PMIX_SIZE",  "PMIX_RANK",    "SLURM_NTASKS",
                                     "SLURM_NPROCS", "SLURM_PROCID", "SLURM_STEP_ID",
                                     "SLURM_STEPID"};

class NoMpi : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* v : kLauncherVars) unsetenv(v);
  }
  void TearDown() override { SetUp(); }

  /// Job::join's message, or "" when it did not throw simscope::Error.
  static std::string refusal() {
    try {
      Job::join();
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  }
};

TEST_F(NoMpi, ThisBinaryHasNoMpi) { EXPECT_FALSE(built_with_mpi()); }

TEST_F(NoMpi, WithoutALauncherOneProcess) {
  EXPECT_EQ(launched_ranks(), 1);  // run_headless runs as always, Job::join is never called
  setenv("OMPI_COMM_WORLD_SIZE", "1", 1);  // mpirun -np 1: as always too
  EXPECT_EQ(launched_ranks(), 1);
  setenv("SLURM_NTASKS", "4", 1);  // a batch script (no srun step): not a launched rank
  EXPECT_EQ(launched_ranks(), 1);
}

TEST_F(NoMpi, OpenMpiLaunchOfTwoRanksIsRefusedSayingSo) {
  setenv("OMPI_COMM_WORLD_SIZE", "2", 1);
  setenv("OMPI_COMM_WORLD_RANK", "0", 1);
  EXPECT_EQ(launched_ranks(), 2);
  const std::string why = refusal();
  EXPECT_NE(why.find("built without MPI"), std::string::npos) << why;
  EXPECT_NE(why.find("the 2 processes the launcher started"), std::string::npos) << why;
  EXPECT_NE(why.find("run it without mpirun/srun"), std::string::npos) << why;
}

TEST_F(NoMpi, OtherLaunchersAreRefusedToo) {
  setenv("PMI_SIZE", "3", 1);  // MPICH / Hydra
  EXPECT_EQ(launched_ranks(), 3);
  EXPECT_NE(refusal().find("the 3 processes"), std::string::npos);
  unsetenv("PMI_SIZE");
  setenv("PMIX_SIZE", "5", 1);
  EXPECT_EQ(launched_ranks(), 5);
  EXPECT_NE(refusal().find("the 5 processes"), std::string::npos);
  unsetenv("PMIX_SIZE");
  setenv("SLURM_NTASKS", "4", 1);  // inside an srun step
  setenv("SLURM_STEP_ID", "0", 1);
  EXPECT_EQ(launched_ranks(), 4);
  EXPECT_NE(refusal().find("the 4 processes"), std::string::npos);
}

}  // namespace
}  // namespace simscope::app::mpi
