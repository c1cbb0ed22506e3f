// simscope: entry point. Parses the command line and runs the GUI, the headless runner or
// --list-params. Every error ends as one line on stderr and a non-zero exit status.
#include <cstdio>
#include <exception>

#include "cli.hpp"
#include "core/isa.hpp"
#include "gui/gui_app.hpp"
#include "headless.hpp"
#include "mpi/mpi_headless.hpp"
#include "mpi/mpi_job.hpp"
#include "session.hpp"

int main(int argc, char** argv) {
  using namespace simscope::app;
  const CliParse parsed = [&] {
    const mpi::QuietUnlessRank0 quiet;  // under mpirun: one copy of a usage error, rank 0's
    return parse_process_command_line(argc, argv);
  }();
  if (!parsed.options) return mpi::exit_after_rank0(parsed.exit_code);
  const RunOptions& o = *parsed.options;
  try {
    if (!o.list_params.empty()) {
      std::fputs(list_params_text(o.list_params).c_str(), stdout);
      return 0;
    }
    // The CPU kernels' level (SIMSCOPE_ISA, or this CPU's highest): a bad SIMSCOPE_ISA stops
    // here, before any window or output; under mpirun the ranks agree on it (mpi::Job::join).
    if (!(o.headless && mpi::launched_ranks() > 1)) {
      try {
        (void)simscope::isa_level();
      } catch (const std::exception& e) {
        std::fprintf(stderr, "simscope: error: environment: %s\n", e.what());
        return 2;
      }
    }
    if (o.headless && mpi::launched_ranks() > 1) {
      // Started by mpirun / srun with several ranks: one run split across them (app/mpi/); the
      // single-process extras are not split.
      if (!o.sweep.empty() || !o.pin_sets.empty() || !o.profile.empty() || o.estimate) {
        if (mpi::launched_rank() == 0)
          std::fprintf(stderr,
                       "simscope: error: --sweep, --pin-set, --profile and --estimate are not "
                       "supported under mpirun (run them in one process)\n");
        return mpi::exit_after_rank0(2);
      }
      return mpi::run_headless_ranks(o);
    }
    if (o.headless) return run_headless(o);
    return run_gui(o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "simscope: error: %s\n", e.what());
    return 1;
  }
}
