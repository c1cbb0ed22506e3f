#pragma once
/// @file Writing a run's files all or nothing: DIR/<output>.npy for every output, DIR/run.json
/// and the front end's extra files (e.g. the view PNG) are written into a staging folder inside
/// DIR and moved into place only when every write succeeded; on failure nothing new is left.
#include <functional>
#include <string>
#include <vector>

#include "json.hpp"
#include "workload.hpp"

namespace simscope::app {

/// A file a front end adds to the export (the run layer writes no images): `write` is called
/// with a path in the staging folder and must write the file there or throw simscope::Error;
/// the file is then moved to `path`.
struct ExportFile {
  std::string path;  ///< absolute or relative final path (may be outside the directory)
  std::string staged_name = "view.png";  ///< its name in the staging folder
  std::function<void(const std::string& staged_path)> write;
};

/// Writes the files and returns their paths in order (the extra file, npy files, run.json).
/// Throws simscope::Error naming the path that failed; nothing partial remains then, and the
/// directory keeps what it held. On success, .npy files that the directory's earlier run.json
/// listed and this run did not write are removed, so the directory always describes one run.
std::vector<std::string> export_run(const RunResult& result, const std::string& dir,
                                    const Json& manifest, const ExportFile* extra);

/// Writes one output as .npy (converting to its dtype). Throws simscope::Error.
void write_output_npy(const std::string& path, const OutputArray& output);

}  // namespace simscope::app
