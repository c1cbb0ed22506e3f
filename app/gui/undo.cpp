// Undo / redo of parameter changes in the window (undo.hpp).
#include "undo.hpp"

#include <imgui.h>

#include "gui_state.hpp"

namespace simscope::app::gui {
namespace {

/// "k, grid.size": the parameters whose values differ between a and b, in schema order.
std::string changed_names(const ParamSet& a, const ParamSet& b) {
  std::string out;
  for (const ParamSpec& spec : a.schema().specs())
    if (!(a.get(spec.name) == b.get(spec.name))) out += (out.empty() ? "" : ", ") + spec.name;
  return out;
}

void restore(GuiState& s, bool redo) {
  UndoStack<ParamSet>& u = s.undo[s.workload_name];
  u.observe(s.params);  // a change not recorded yet (e.g. a widget still active) first
  const ParamSet before = s.params;
  const std::optional<ParamSet> p = redo ? u.redo() : u.undo();
  if (!p) {
    action_done(s, redo ? "nothing to redo" : "nothing to undo");
    return;
  }
  s.params = *p;
  s.image_dirty = true;
  action_done(s, std::string(redo ? "redo: " : "undo: ") + changed_names(before, s.params));
}

}  // namespace

void track_undo(GuiState& s) {
  if (ImGui::IsAnyItemActive()) return;  // a drag or an edit under way: one step when done
  if (s.sweep.running) return;           // a sweep's frames: one step once it is over
  s.undo[s.workload_name].observe(s.params);
}

void undo_params(GuiState& s) { restore(s, false); }
void redo_params(GuiState& s) { restore(s, true); }

}  // namespace simscope::app::gui
