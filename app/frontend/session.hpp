#pragma once
/// @file From the command line to a ready workload and back end, for the GUI and headless runs.
/// Parameters are the defaults, then the preset, then each --set.
#include <memory>
#include <string>
#include <vector>

#include "run_options.hpp"
#include "core/backend.hpp"
#include "workload.hpp"

namespace simscope::app {

struct Session {
  std::unique_ptr<Workload> workload;
  ParamSet params;  ///< the workload's parameters
  ParamSet view;    ///< view_schema(): colormap, scale, range
  BackendChoice backend;
  /// The view parameters named by --set, in order. Their values win over a workload's image hints
  /// (to_render_settings), even where they equal the defaults.
  std::vector<std::string> view_given;
};

/// Throws simscope::Error, with make_session's message, for command-line errors (exit status 2)
/// that need no input file:
///   - an unknown workload in --workload or --list-params;
///   - an unknown parameter or refused value in --set or --pin-set, checked against the workload
///     given, else the preset's, else field;
///   - a --sweep whose parameter is not a number or whose start or stop is out of range;
///   - without --preset: a locked view range with view.min >= view.max (check_view_params), and,
///     headless, parameters the workload refuses together (Workload::check_params).
/// An unreadable preset is left to make_session: a bad input file, exit status 1.
void check_command_line(const RunOptions& options);

/// Builds the session. Throws simscope::Error for an unknown workload, a bad preset, an unknown
/// parameter or bad value in --set, a locked view range with view.min >= view.max, headless
/// parameters the workload refuses together (Workload::check_params), or a forced back end that
/// cannot run. With a preset, the message starts with its path.
Session make_session(const RunOptions& options);

/// `simscope --list-params NAME`: the schema as an aligned table. Throws on an unknown workload.
std::string list_params_text(const std::string& workload);

}  // namespace simscope::app
