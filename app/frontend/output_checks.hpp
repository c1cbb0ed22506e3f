#pragma once
/// @file Checks of output locations made before any computation, so that a typo in --out-dir or
/// --out costs no compute time and says why it cannot work.
#include <string>

namespace simscope::app {

/// Throws simscope::Error when `dir` cannot become an output directory: it is a file, it does
/// not exist and its nearest existing ancestor is not a writable directory, or it exists and is
/// not writable. The message names the path and the reason.
void check_output_dir(const std::string& dir);

/// Throws simscope::Error when a file cannot be written at `path`: its directory is missing or
/// not writable (and is not `dir_to_create`, created later; empty: no such directory), or
/// `path` is a directory.
void check_output_file(const std::string& path, const std::string& dir_to_create);

}  // namespace simscope::app
