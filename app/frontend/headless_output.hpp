#pragma once
/// @file The end of a headless run: view.png, the outputs and run.json in the output folder.
/// Shared by one process (app/cli) and rank 0 of an MPI job (app/mpi).
#include <functional>
#include <string>
#include <vector>

#include "output/json.hpp"
#include "run_options.hpp"
#include "session.hpp"
#include "workload.hpp"

namespace simscope::app {

/// Finishes a headless run once its result `r` is there.
/// Renders view.png unless --no-image, and writes the outputs, run.json with `extra`'s keys at its
/// top level, and the image into `dir`, all or nothing. Prints the back end's notice unless
/// printed, the warnings and the files written. `more`, if given, writes further files after the
/// outputs (--pin-set's comparison, --profile's CSV) and adds their paths to the printed list.
/// Throws simscope::Error naming what failed; nothing partial is left.
void write_headless_outputs(
    const RunOptions& o, const Session& s, const Workload& viewer, RunResult& r,
    const std::string& dir, const Json& extra, bool notice_printed,
    const std::function<void(std::vector<std::string>& written)>& more = {});

}  // namespace simscope::app
