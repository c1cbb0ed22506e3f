#pragma once
/// @file The state the window's panels share: the session, the worker, the shown result.
#include <chrono>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "compare_view.hpp"
#include "drop.hpp"
#include "explore.hpp"
#include "image_export.hpp"
#include "latency_log.hpp"
#include "render/plane_view.hpp"
#include "session.hpp"
#include "sweep_panel.hpp"
#include "undo_stack.hpp"
#include "job/worker.hpp"
#include "workload_gui.hpp"

namespace simscope::app::gui {

struct GuiState {
  // what runs
  std::string workload_name;
  std::unique_ptr<Worker> worker;
  std::unique_ptr<WorkloadGui> extras;  ///< the workload's own panel/view/click handling
  ParamSet params;                      ///< as edited in the panel
  ParamSet view;                        ///< view_schema() values
  BackendChoice backend;
  std::string backend_request = "auto";
  ParamSet submitted;  ///< what was last submitted to the worker
  std::chrono::steady_clock::time_point submitted_at;  ///< when
  /// The last window event seen (Window::Events::last_input), which a run submitted answers.
  std::chrono::steady_clock::time_point last_input_at;
  LatencyLog latency;  ///< SIMSCOPE_LATENCY_LOG=1: each shown result's path in ms
  double last_full_seconds = 0;

  // what is shown
  std::optional<RunResult> result;
  std::uint64_t result_serial = 0;  ///< counts the results shown (caches keyed on it)
  /// The compute time of the coarse preview that ran before `result` (Worker::Event::
  /// preview_seconds; 0: none), which the status bar adds: a first run's tree is built there.
  double result_preview_seconds = 0;
  ViewImage image;
  std::string hinted_for;  ///< workload/output whose view hints were last applied to `view`
  /// The user chose view.colormap (--set, or in the view panel): switching the output keeps it
  /// rather than taking the output's own default colormap (apply_view_hints).
  bool colormap_chosen = false;
  /// The view of each workload visited this session (view parameters, hints applied, zoom), so
  /// switching back with keys 1/2/3 restores a workload's own view.
  struct SavedView {
    ParamSet view;
    std::string hinted_for;
    double zoom = 1, zoom_cu = 0.5, zoom_cv = 0.5;
    bool colormap_chosen = false;
  };
  std::map<std::string, SavedView> saved_views;
  std::unique_ptr<render::PlaneView> plane;
  bool image_dirty = false;
  std::vector<float> histogram;  ///< of the shown image, 64 bins over the view range
  std::pair<double, double> histogram_range{0, 0};
  /// log_scale_warning's line for a log scale over shown values <= 0, for the view panel, the
  /// status bar and exports' run.json. "" when none.
  std::string log_note;
  /// Why the centre shows no plane for the chosen output, when the workload's view_image refused
  /// it, e.g. the field's error view of a direct-sum result. Drawn there instead of the plane
  /// and its colorbar. "" while the plane shows.
  std::string view_message;
  /// The view parameters given by --set, kept over the workload's hints for the first image.
  std::vector<std::string> view_given;
  /// The start's view settings the view does not use (view_schema().unused_warnings), e.g.
  /// view.min and view.max given with a range from the data (view.range=percentile or minmax).
  /// Warned as headless does: printed to stderr at the start and added to the results' warnings
  /// (panel, status bar) up to the first full result.
  std::vector<std::string> view_warnings;
  /// This frame's panel layout for the screenshots' simscope.panels: parameter rows drawn and
  /// cut off (param_rows), and whether each panel scrolls vertically or sideways.
  std::string panels_layout;
  /// This frame's parameters drawn disabled, "name: not used: ... (why)" lines (param_rows), for
  /// the screenshots' simscope.disabled.
  std::string disabled_params;

  // messages and ui
  std::string error;         ///< shown in the status bar until dismissed
  std::string action_error;  ///< the last error of a user action (preset, screenshot...)
  std::string info;          ///< last action, e.g. "saved screenshot ..."
  bool show_panels = true;
  bool show_help = false;
  bool paused = false;  ///< Space: do not submit new work
  std::string preset_path = "preset.json";
  std::vector<std::string> recent_presets;
  bool open_preset_popup = false, save_preset_popup = false;
  std::string cursor_text;  ///< value and coordinates under the cursor, this frame
  double zoom = 1, zoom_cu = 0.5, zoom_cv = 0.5;  ///< plane view zoom (wheel) and pan (right drag)
  std::optional<RunCommand> pending_command;  ///< set by a WorkloadGui: submit a run with it
  std::string switch_to;           ///< workload chosen in the switcher (or keys 1/2/3)
  int want_screenshot = 0;  ///< screenshots asked for (button, S key) this frame, done after drawing
  int want_export = 0;      ///< exports asked for (button, E key) this frame
  std::string logged_upload_path;  ///< the upload path last written to the log

  // exploration tools
  ExploreState explore;                             ///< probe and line profile (explore.hpp)
  CompareState compare;                             ///< a pinned result A (compare_view.hpp)
  std::map<std::string, UndoStack<ParamSet>> undo;  ///< per workload (undo.hpp)
  ImageExportState image_export;                    ///< view images at any size
  DropState drop;                                   ///< files dropped onto the window
  SweepState sweep;                                 ///< a parameter sweep under way
  RecordState record;                               ///< a recording of the view under way
};

/// Left panel: workload switcher, the workload's parameters, presets. Returns true when
/// parameters changed; the caller then submits work.
bool draw_params_panel(GuiState& s, float x, float y, float w, float h);
/// Right panel: view parameters (output, colormap, scale, range, colorbar) and a histogram.
void draw_view_panel(GuiState& s, float x, float y, float w, float h);
/// Bottom bar: back end, interop path, compute ms, FPS, device memory, progress with ETA and
/// cancel, and a dismissible error.
void draw_status_bar(GuiState& s, float x, float y, float w, float h);
/// F1: the keys.
void draw_help(GuiState& s);
/// The status bar's message line as text: "error: ...", the last action, or the result's first
/// warning; empty when none. Also whether it shows a running job's progress bar.
std::string status_line(const GuiState& s);
/// The result's own figures in the status bar after its compute time, as its workload words
/// them (WorkloadDescriptor::status_text), e.g. the field tree's build, eval and sample error;
/// "" for none.
std::string result_status(const GuiState& s);
/// The status bar's upload path in words: "upload: CUDA-GL interop (maps on the device)",
/// "upload: host copy to texture (maps on the host)"; a workload's own view (the oscillators'
/// phase view) its own path, without the outputs' place.
std::string upload_status(const GuiState& s);
bool progress_shown(const GuiState& s);

/// A user action (preset, screenshot, export) failed: its message goes to the status bar.
void action_failed(GuiState& s, const std::string& message);
/// A user action succeeded: `message` becomes the last action, and an earlier action's error
/// still on show is cleared. Errors of the computation stay until its next result.
void action_done(GuiState& s, const std::string& message);

}  // namespace simscope::app::gui
