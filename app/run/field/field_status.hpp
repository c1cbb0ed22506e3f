#pragma once
/// @file The field tree's figures in words for the window: the status bar's line after the
/// compute time, the error view's subgrid check, and the screenshot's texts
/// (WorkloadDescriptor::status_text, screenshot_texts).
#include <map>
#include <string>
#include <vector>

#include "output/stat_labels.hpp"
#include "workload.hpp"

namespace simscope::app {

/// The tree method's line, "" for results without it:
///  - "tree build 12 ms, eval 30 ms, sample error 1.2e-06 rms, 3.4e-06 max" (the error
///    sample's RMS and max, field_stat_labels.cpp's definitions);
///  - "tree build 12 ms (preview), eval ..." when the run's own preview built the tree;
///  - "tree kept, eval ..." when an earlier run built it for the same sources;
///  - "error … measuring" while the measured error is computed after the frame, which the
///    window defers (Worker::set_interactive);
///  - "error … (preview)" on a preview, which is never measured.
std::string field_status_text(const RunResult& r);
/// The error view's subgrid check (a tree run's outputs error and error_xyz), named as the
/// "Last run" figures of the error sample are, each line with its definition:
///   "subgrid check: 3 x 3 targets", "subgrid median error: 1e-6 relative",
///   "subgrid max error: 4.7e-5 relative", "subgrid max at: x=1.1 y=1.1 z=0".
/// Empty without those outputs.
std::vector<StatLine> field_subgrid_check(const RunResult& r);
/// The screenshot's texts: "tree_status" (field_status_text, when not empty), "tree_rule",
/// the ladder's rung the tree ran at ("order 4, theta 0.5"), when it ran, and "subgrid_check"
/// (field_subgrid_check's lines, "label: value" one a line), when it has one.
std::map<std::string, std::string> field_screenshot_texts(const RunResult& r);

}  // namespace simscope::app
