#pragma once
/// @file The window's per-workload extras. Each workload may add widgets to the right panel
/// (plots, legends, a pixel inspector), react to a click on the image, and draw the centre view
/// itself when its view_kind() is ViewKind::Custom, e.g. the oscillators' phase view. One file
/// per workload: field_gui.cpp, lsq_gui.cpp, oscillators_gui.cpp.
#include <memory>
#include <string>

#include "params/param_spec.hpp"

namespace simscope::app::gui {

struct GuiState;

class WorkloadGui {
 public:
  virtual ~WorkloadGui() = default;
  /// Extra widgets at the end of the right panel, inside an ImGui window. May set
  /// `s.pending_command`, e.g. RunCommand::Reset, to have the window submit a run with it.
  virtual void draw_panel(GuiState& s) { (void)s; }
  /// The user clicked sample (i, j) of the plane image shown, in ViewImage coordinates.
  virtual void on_click(GuiState& s, int i, int j) { (void)s, (void)i, (void)j; }
  /// A preview or full result has just become `s.result`, before the window submits the next
  /// live run. Use it e.g. to pause and keep a study on screen.
  virtual void on_result(GuiState& s) { (void)s; }
  /// The index into the exported output of plane sample (i, j), in ViewImage coordinates, for
  /// the hover readout, e.g. "[i=3 j=7]". Empty when describe_sample already names it.
  virtual std::string sample_index(const GuiState& s, int i, int j) const;
  /// Draws the centre viewport, in framebuffer pixels with origin bottom-left, when the
  /// workload's view_kind() is ViewKind::Custom. Called with the window's GL context current,
  /// before ImGui.
  virtual void draw_view(GuiState& s, int x, int y, int w, int h) {
    (void)s, (void)x, (void)y, (void)w, (void)h;
  }
  /// The upload path of the workload's own view (draw_view), as PlaneView::upload_path gives
  /// it; "" when it has none.
  virtual std::string upload_path() const { return ""; }
  /// Narrows `spec`, a view setting of the schema drawn in the View panel (e.g. lsq's
  /// view.component), to what the result shown allows (its N unknowns); unchanged by default.
  virtual void narrow_view_param(const GuiState& s, ParamSpec& spec) const { (void)s, (void)spec; }
};

/// The extras of workload `name`; a WorkloadGui that adds nothing for workloads without any.
std::unique_ptr<WorkloadGui> make_workload_gui(const std::string& name);

}  // namespace simscope::app::gui
