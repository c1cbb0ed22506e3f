#pragma once
/// @file Writes a run's files all or nothing.
/// DIR/<output>.npy for every output, DIR/run.json and the front end's extra files go to a staging
/// folder inside DIR and move into place only when every write succeeded.
#include <functional>
#include <string>
#include <vector>

#include "output/json.hpp"
#include "workload.hpp"

namespace simscope::app {

/// A file a front end adds to the export; the run layer writes no images.
/// `write` gets a path in the staging folder and must write the file there or throw
/// simscope::Error. The file then moves to `path`.
struct ExportFile {
  std::string path;  ///< absolute or relative final path (may be outside the directory)
  std::string staged_name = "view.png";  ///< its name in the staging folder
  std::function<void(const std::string& staged_path)> write;
};

/// Writes the files and returns their paths in order: the extra files, the .npy files,
/// outputs.csv when every output is 1-D of one length T (a run at scattered points: a header of
/// the output names, one row per point, float32 values to 9 digits), run.json.
/// Throws simscope::Error naming the failed path; the directory then keeps what it held.
/// On success, removes .npy files the earlier run.json listed that this run did not write, so the
/// directory describes one run.
std::vector<std::string> export_run(const RunResult& result, const std::string& dir,
                                    const Json& manifest, const ExportFile* extra);

/// Writes one output as .npy, converted to its dtype. Throws simscope::Error.
void write_output_npy(const std::string& path, const OutputArray& output);

}  // namespace simscope::app
