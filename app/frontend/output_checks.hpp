#pragma once
/// @file Checks of output locations, made before any computation.
/// A typo in --out-dir or --out costs no compute time and the message says why it cannot work.
#include <string>

namespace simscope::app {

/// Throws simscope::Error when `dir` cannot become an output directory: it is a file, it does
/// not exist and its nearest existing ancestor is not a writable directory, or it exists and is
/// not writable. The message names the path and the reason.
void check_output_dir(const std::string& dir);

/// Throws simscope::Error when a file cannot be written at `path`: `path` is a directory, or its
/// directory is missing or not writable. A directory equal to `dir_to_create`, created later, is
/// accepted; empty means none.
void check_output_file(const std::string& path, const std::string& dir_to_create);

}  // namespace simscope::app
