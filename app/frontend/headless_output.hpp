#pragma once
/// @file The end of a headless run, shared by one process (app/cli) and rank 0 of an MPI job
/// (app/mpi): view.png, the outputs and run.json written into the output folder.
#include <functional>
#include <string>
#include <vector>

#include "json.hpp"
#include "run_options.hpp"
#include "session.hpp"
#include "workload.hpp"

namespace simscope::app {

/// The end of a headless run, once its result `r` is there (also rank 0's of an MPI job,
/// app/mpi/mpi_headless.hpp): renders view.png (unless --no-image), writes the outputs, run.json
/// (with `extra`'s keys added at its top level) and the image into `dir` all or nothing, prints
/// the back end's notice (unless printed), the warnings and the files written. Throws
/// simscope::Error naming what failed (nothing partial is left then). `more`, when given, writes
/// further files after the outputs (--pin-set's comparison, --profile's CSV) and adds their
/// paths to the list printed.
void write_headless_outputs(
    const RunOptions& o, const Session& s, const Workload& viewer, RunResult& r,
    const std::string& dir, const Json& extra, bool notice_printed,
    const std::function<void(std::vector<std::string>& written)>& more = {});

}  // namespace simscope::app
