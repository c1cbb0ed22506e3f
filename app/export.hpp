#pragma once
/// @file Writing a run's files all or nothing: DIR/<output>.npy for every output, the view PNG
/// and DIR/run.json are written into a staging folder inside DIR and moved into place only when
/// every write succeeded; on failure nothing new is left behind.
#include <QJsonObject>
#include <cstdint>
#include <string>
#include <vector>

#include "workload.hpp"

namespace simscope::app {

/// A rendered image to export with the data.
struct ExportImage {
  std::string path;  ///< absolute or relative PNG path (may be outside the directory)
  std::vector<std::uint8_t> rgba;
  int width = 0, height = 0;
};

/// Writes the files and returns their paths in order (npy files, run.json, PNG). Throws
/// simscope::Error naming the path that failed; nothing partial remains then, and the directory
/// keeps what it held. On success, .npy files that the directory's earlier run.json listed and
/// this run did not write are removed, so the directory always describes one run.
std::vector<std::string> export_run(const RunResult& result, const std::string& dir,
                                    const QJsonObject& manifest, const ExportImage* image);

/// Writes one output as .npy (converting to its dtype). Throws simscope::Error.
void write_output_npy(const std::string& path, const OutputArray& output);

}  // namespace simscope::app
