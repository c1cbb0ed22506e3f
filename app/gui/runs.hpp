#pragma once
/// @file The window's runs: what it submits to the worker, and the results it takes from it.
/// A run no longer than 1 s (its last full run's compute time) is interactive: no coarse preview
/// first, and a newer request lets it finish and show before running (Supersede::FinishFull), so
/// a drag shows a result per run. Longer runs preview and are cancelled by a newer request.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "params/param_set.hpp"
#include "job/run_command.hpp"
#include "workload.hpp"

namespace simscope::app::gui {

struct GuiState;

/// Gives the window a worker for `workload`: interactive (checks such as the tree's error come
/// after the frame), each result waking the waiting frame loop.
void start_worker(GuiState& s, std::unique_ptr<Workload> workload);
/// Submits a run of s.params. Continuous workloads get RunCommand::Live unless their panel gives
/// another command: Step, Reset or Study. Nothing while paused, but for such a command.
void submit(GuiState& s, RunCommand command = RunCommand::Whole);
/// Whether s.params differ from those last submitted, the view selector aside (a change of the
/// output shown needs no run).
bool params_changed(const GuiState& s);
/// A live workload's next run as soon as the last one is in, unless paused or failed.
void continue_live(GuiState& s);

/// What the results taken so far leave for the frame loop.
struct ResultLog {
  /// A full result or an error has come (not a coarse preview, nor a frame whose measured
  /// error is still to come, nor one its workload's first_full refuses, e.g. a live
  /// oscillators frame before its plots draw a curve): --frames counts from it.
  bool have_first = false;
  std::string run_error;  ///< the last run's error, until a result arrives
  /// "simscope: field result shown (...)" lines, printed once the frame that shows them is drawn.
  std::vector<std::string> shown_lines;
  std::optional<ParamSet> last_shown;  ///< the parameters of the last result logged as shown
};
/// Takes the worker's events since the last frame into `s`: results to show, follow-ups,
/// errors (printed once each on stderr). Logs each full result shown in `log`.
void take_results(GuiState& s, ResultLog& log);

/// Replaces the workload (switcher, keys 1/2/3) with its default parameters and no result. It
/// gets the view it had when last shown this session. On a first visit: the view's defaults,
/// and the workload's hints for its image once it is in, as when the app starts with it.
void switch_workload(GuiState& s, const std::string& name);

}  // namespace simscope::app::gui
