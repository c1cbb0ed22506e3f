#pragma once
/// @file `simscope --headless`: compute once, render the view offscreen (EGL), export.
#include <functional>
#include <string>
#include <vector>

#include "cli.hpp"
#include "json.hpp"
#include "session.hpp"
#include "workload.hpp"

namespace simscope::app {

/// Runs the headless mode and returns the process exit status (0 ok, 1 error, 2 a refused
/// --resume or a new study over an interrupted one's checkpoint, 130 / 143 stopped by SIGINT /
/// SIGTERM). Prints the paths written on stdout, a progress line with ETA on stderr for long
/// work, errors as one line. An oscillators study keeps a checkpoint in DIR/checkpoint as it goes
/// (study_checkpoint.hpp; removed once the outputs are written) and continues from it with
/// --resume. SIGINT and SIGTERM cancel the run: a study writes its checkpoint, one line says how
/// to resume, and no outputs are written.
int run_headless(const CliOptions& options);

/// The end of a headless run, once its result `r` is there (also rank 0's of an MPI job,
/// app/mpi/mpi_headless.hpp): renders view.png (unless --no-image), writes the outputs, run.json
/// (with `extra`'s keys added at its top level) and the image into `dir` all or nothing, prints
/// the back end's notice (unless printed), the warnings and the files written. Throws
/// simscope::Error naming what failed (nothing partial is left then). `more`, when given, writes
/// further files after the outputs (--pin-set's comparison, --profile's CSV) and adds their
/// paths to the list printed.
void write_headless_outputs(
    const CliOptions& o, const Session& s, const Workload& viewer, RunResult& r,
    const std::string& dir, const Json& extra, bool notice_printed,
    const std::function<void(std::vector<std::string>& written)>& more = {});

}  // namespace simscope::app
