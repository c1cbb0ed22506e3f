#pragma once
/// @file One frame of a sweep or a recording: DIR/frames/0007.png and its entry in DIR/run.json.
/// Written by headless --sweep and by the window's sweeps and recordings alike.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "output/json.hpp"
#include "workload.hpp"

namespace simscope::app {

/// A frame written: its path, and its run.json entry for the caller to complete (sweeps add
/// "value", recordings "stats").
struct SweepFrame {
  std::string path;  ///< DIR/frames/0007.png
  Json item;         ///< file ("frames/0007.png"), params, compute_seconds, and view when given
};

/// Writes frame `k` of `result` into `dir`: frames/kkkk.png (four digits) of `rgba`, width x
/// height x 4 bytes, top row first. Its text chunks: png_metadata's, simscope.sweep ("WHAT
/// frame k", `what` a swept parameter or "record") and, when `view` is an object,
/// simscope.view (compact JSON), which the run.json entry then also holds. frames/ must exist.
/// Throws simscope::Error naming the file.
SweepFrame write_sweep_frame(const std::string& dir, std::size_t k,
                             const std::vector<std::uint8_t>& rgba, int width, int height,
                             const RunResult& result, const std::string& what,
                             const Json& view = Json());

}  // namespace simscope::app
