#pragma once
/// @file From the command line to a ready workload: its parameters (defaults, then the preset,
/// then each --set) and the chosen back end. Shared by the GUI and the headless runner.
#include <memory>
#include <string>
#include <vector>

#include "run_options.hpp"
#include "core/backend.hpp"
#include "unknown_parameter.hpp"
#include "workload.hpp"

namespace simscope::app {

struct Session {
  std::unique_ptr<Workload> workload;
  ParamSet params;  ///< the workload's parameters
  ParamSet view;    ///< view_schema(): colormap, scale, range
  BackendChoice backend;
  /// The view parameters named by --set (in order): their values win over a workload's hints
  /// for its image (to_render_settings), even where they equal the defaults.
  std::vector<std::string> view_given;
};

/// Sets NAME=VALUE on the workload's parameters, or on the view's when NAME is one of
/// view_schema(). Throws simscope::Error (unknown name: unknown_parameter_message; bad value).
void set_parameter(ParamSet& params, ParamSet& view, const std::string& name_value);

/// The command-line errors (exit status 2) that need no input file: an unknown workload in
/// --workload or --list-params, an unknown parameter or a value its parameter refuses in --set
/// (checked against the workload given, else the preset's, else field), the same for --pin-set,
/// a --sweep whose parameter is not a number or whose start or stop is outside its range, and
/// (without --preset) a locked view range with view.min >= view.max (check_view_params) and,
/// headless, parameters the workload refuses together (Workload::check_params).
/// Throws simscope::Error
/// with make_session's message; a preset that cannot be read is left to make_session (a bad
/// input file, exit status 1).
void check_command_line(const RunOptions& options);

/// Builds the session. Throws simscope::Error: unknown workload, bad preset, unknown parameter
/// or bad value in --set, a locked view range with view.min >= view.max or, headless, parameters
/// the workload refuses together (Workload::check_params) (with a preset: the message starts
/// with its path), a forced back end that cannot run.
Session make_session(const RunOptions& options);

/// `simscope --list-params NAME`: the schema as an aligned table. Throws on an unknown workload.
std::string list_params_text(const std::string& workload);

}  // namespace simscope::app
