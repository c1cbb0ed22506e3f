// The left (parameters, presets) and right (view) panels.
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "gui_state.hpp"
#include "hover_tip.hpp"
#include "param_widgets.hpp"
#include "presets/presets.hpp"
#include "presets/shipped_presets.hpp"
#include "stats_panel.hpp"
#include "visible_wrap.hpp"

namespace simscope::app::gui {
namespace {

/// Fixed panels. What is still wider than the panel, e.g. at a large UI scale, scrolls sideways.
constexpr ImGuiWindowFlags kPanelFlags =
    ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse |
    ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_HorizontalScrollbar;
/// The view panel does not scroll sideways: with ImGui's horizontal scrollbar a widget that fills
/// the width (histogram, tables, plots) keeps the scroll once a vertical scrollbar has narrowed
/// the panel, so the panel scrolled sideways at 1280 x 800 with nothing wider than it. Its text
/// wraps at the visible edge and its widgets fill the width that is there.
constexpr ImGuiWindowFlags kViewPanelFlags = kPanelFlags & ~ImGuiWindowFlags_HorizontalScrollbar;

/// The width for a widget labelled `label` that leaves its label visible: ImGui's default,
/// 0.65 of the panel, where it fits; else what is left beside the label, at least a third.
float width_beside(const char* label) {
  const float avail = ImGui::GetContentRegionAvail().x;
  const float fit = avail - ImGui::CalcTextSize(label).x - 2 * ImGui::GetStyle().ItemInnerSpacing.x;
  return std::max(std::min(avail * 0.65f, fit), avail * 0.34f);
}

/// Whether the schema's parameter `name` is drawn in the View panel: the view choice
/// `view_param` itself and its settings, named "VIEW_PARAM.*" (lsq's view.component).
bool is_view_setting(const std::string& name, const std::string& view_param) {
  return name == view_param || name.rfind(view_param + ".", 0) == 0;
}

/// "NAME: rows R, cut C, scroll_y 0|1, scroll_x 0|1" for the current panel, with param_rows
/// counted since the last call; the rows drawn disabled are added to `disabled`.
std::string panel_layout(const char* name, std::string& disabled) {
  const ParamRowCount n = param_rows(true);
  disabled += n.disabled;
  char buf[128];
  std::snprintf(buf, sizeof buf, "%s: rows %d, cut %d, scroll_y %d, scroll_x %d", name, n.rows,
                n.cut, ImGui::GetScrollMaxY() > 0 ? 1 : 0, ImGui::GetScrollMaxX() > 0 ? 1 : 0);
  return buf;
}

void remember_preset(GuiState& s, const std::string& path) {
  auto& r = s.recent_presets;
  r.erase(std::remove(r.begin(), r.end(), path), r.end());
  r.insert(r.begin(), path);
  if (r.size() > 8) r.resize(8);
}

/// Loads the preset `name_or_path` (a file, or a shipped preset's name: find_preset) into the
/// shown workload's parameters and view; says what went wrong in the status bar instead.
bool load_preset_into(GuiState& s, const std::string& name_or_path) {
  try {
    const std::string path = find_preset(name_or_path);
    if (preset_workload(path) != s.workload_name)
      throw Error(path + ": preset is for workload '" + preset_workload(path) + "'");
    ParamSet p = s.params, v = s.view;
    load_preset(path, p, &v);
    s.params = p;
    s.view = v;
    action_done(s, "loaded preset " + path);
    remember_preset(s, path);
    return true;
  } catch (const std::exception& e) {
    action_failed(s, e.what());
    return false;
  }
}

bool preset_popups(GuiState& s) {
  bool changed = false;
  static char buf[1024] = "";
  if (s.open_preset_popup) {
    ImGui::OpenPopup("Load preset");
    std::snprintf(buf, sizeof buf, "%s", s.preset_path.c_str());
    s.open_preset_popup = false;
  }
  if (s.save_preset_popup) {
    ImGui::OpenPopup("Save preset");
    std::snprintf(buf, sizeof buf, "%s", s.preset_path.c_str());
    s.save_preset_popup = false;
  }
  for (int save = 0; save < 2; ++save) {
    if (ImGui::BeginPopupModal(save ? "Save preset" : "Load preset", nullptr,
                               ImGuiWindowFlags_AlwaysAutoResize)) {
      ImGui::Text(save ? "Preset file (JSON):" : "Preset file (JSON) or a shipped preset's name:");
      ImGui::SetNextItemWidth(360);
      if (ImGui::IsWindowAppearing()) ImGui::SetKeyboardFocusHere();  // type the path at once
      const bool enter =
          ImGui::InputText("##path", buf, sizeof buf, ImGuiInputTextFlags_EnterReturnsTrue);
      if (!save) {
        // The shipped presets of the shown workload (resources/presets: the original questions).
        static std::vector<std::pair<std::string, std::string>> shipped;  // (name, workload)
        if (ImGui::IsWindowAppearing()) {
          shipped.clear();
          for (const std::string& n : shipped_presets()) try {
              shipped.emplace_back(n, preset_workload(find_preset(n)));
            } catch (const std::exception&) {  // an unreadable file is not offered
            }
        }
        for (const auto& [name, workload] : shipped)
          if (workload == s.workload_name && ImGui::Selectable(("shipped: " + name).c_str())) {
            changed = load_preset_into(s, name);
            ImGui::CloseCurrentPopup();
          }
      }
      if (ImGui::Button(save ? "Save" : "Load") || enter) {
        s.preset_path = buf;
        if (save) {
          try {
            save_preset(s.preset_path, s.params, &s.view);
            action_done(s, "saved preset " + s.preset_path);
            remember_preset(s, s.preset_path);
          } catch (const std::exception& e) {
            action_failed(s, e.what());
          }
        } else {
          changed = load_preset_into(s, s.preset_path);
        }
        ImGui::CloseCurrentPopup();
      }
      ImGui::SameLine();
      if (ImGui::Button("Cancel") || ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape)))
        ImGui::CloseCurrentPopup();
      ImGui::EndPopup();
    }
  }
  return changed;
}

}  // namespace

bool draw_params_panel(GuiState& s, float x, float y, float w, float h) {
  bool changed = false;
  ImGui::SetNextWindowPos(ImVec2(x, y));
  ImGui::SetNextWindowSize(ImVec2(w, h));
  ImGui::Begin("Workload", nullptr, kPanelFlags);
  ImGui::SetNextItemWidth(width_beside("workload"));
  if (ImGui::BeginCombo("workload", s.workload_name.c_str())) {
    for (const auto& n : workload_names())
      if (ImGui::Selectable(n.c_str(), n == s.workload_name)) s.switch_to = n;
    ImGui::EndCombo();
  }
  {
    static const char* backends[] = {"auto", "cpu", "cuda"};
    int cur = 0;
    for (int i = 0; i < 3; ++i)
      if (s.backend_request == backends[i]) cur = i;
    ImGui::SetNextItemWidth(width_beside("back end"));
    if (ImGui::Combo("back end", &cur, backends, 3) && s.backend_request != backends[cur]) {
      try {
        s.backend = choose_backend(backends[cur]);
        s.backend_request = backends[cur];
        s.info = s.backend.notice;
        changed = true;
      } catch (const std::exception& e) {
        s.error = e.what();
      }
    }
  }
  ImGui::Separator();
  ImGui::TextDisabled("Parameters (hover for help)");
  std::string err;
  const std::string view_param = s.worker->workload().view_param();
  for (const ParamSpec& spec : s.params.schema().specs()) {
    if (is_view_setting(spec.name, view_param)) continue;  // shown in the view panel
    changed |= param_widget(s.params, spec, err);
  }
  if (!err.empty()) s.error = err;
  ImGui::Separator();
  ImGui::TextDisabled("Presets");
  if (ImGui::Button("Load... (Ctrl+O)")) s.open_preset_popup = true;
  same_line_if_room("Save... (Ctrl+S)");
  if (ImGui::Button("Save... (Ctrl+S)")) s.save_preset_popup = true;
  for (const auto& r : s.recent_presets) {
    if (ImGui::Selectable(r.c_str())) changed |= load_preset_into(s, r);
  }
  changed |= preset_popups(s);
  s.disabled_params.clear();
  s.panels_layout = panel_layout("params", s.disabled_params);
  ImGui::End();
  return changed;
}

void draw_view_panel(GuiState& s, float x, float y, float w, float h) {
  ImGui::SetNextWindowPos(ImVec2(x, y));
  ImGui::SetNextWindowSize(ImVec2(w, h));
  ImGui::Begin("View", nullptr, kViewPanelFlags);
  std::string err;
  const std::string view_param = s.worker->workload().view_param();
  if (param_widget(s.params, s.params.schema().at(view_param), err)) s.image_dirty = true;
  // The schema's settings of the view (lsq's view.component) under it, once; drawn disabled
  // with the reason where the view shown does not use them (the schema's use rules).
  for (const ParamSpec& spec : s.params.schema().specs()) {
    if (spec.name == view_param || !is_view_setting(spec.name, view_param)) continue;
    ParamSpec narrowed = spec;
    s.extras->narrow_view_param(s, narrowed);
    if (param_widget(s.params, narrowed, err)) s.image_dirty = true;
  }
  // The plane view's settings only where the centre shows a plane, not the phase view.
  const bool plane_kind = s.worker->workload().view_kind(s.params) == ViewKind::Plane;
  const std::string colormap = s.view.get_string("view.colormap");
  if (plane_kind && param_widgets(s.view, err)) s.image_dirty = true;
  if (s.view.get_string("view.colormap") != colormap) s.colormap_chosen = true;  // kept from now
  if (!err.empty()) s.error = err;
  if (s.plane && plane_kind && s.view_message.empty()) {
    const auto [lo, hi] = s.plane->range();
    ImGui::TextUnformatted("range in effect:");  // no wrapping: ImGui wraps at '.' in numbers
    ImGui::Text("%.4g .. %.4g", lo, hi);
    if (ImGui::SmallButton("lock this range")) {
      s.view.set("view.min", lo);
      s.view.set("view.max", hi);
      s.view.set("view.range", std::string("locked"));
      s.image_dirty = true;
    }
  }
  if (plane_kind && s.plane && s.plane->settings().log_scale && !s.log_note.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.f, 0.8f, 0.3f, 1.f));
    SIMSCOPE_TEXT_WRAPPED("%s", s.log_note.c_str());
    ImGui::PopStyleColor();
  }
  ImGui::Separator();
  if (ImGui::Button("Screenshot (S)")) ++s.want_screenshot;
  if (hover_tip_due()) ImGui::SetTooltip("Save the window as simscope-<time>.png");
  same_line_if_room("Export data (E)");
  if (ImGui::Button("Export data (E)")) ++s.want_export;
  if (hover_tip_due())
    ImGui::SetTooltip(
        "Write every output as .npy, view.png and run.json to simscope-export-<time>/");
  if (plane_kind && !s.histogram.empty()) {
    ImGui::Separator();
    ImGui::TextDisabled("Histogram of the shown values");
    const float top = *std::max_element(s.histogram.begin(), s.histogram.end());
    ImGui::PlotHistogram("##hist", s.histogram.data(), int(s.histogram.size()), 0, nullptr, 0.f,
                         top, ImVec2(visible_avail_x(), 90));
    ImGui::Text("%.4g", s.histogram_range.first);
    char hi[32];
    std::snprintf(hi, sizeof hi, "%.4g", s.histogram_range.second);
    ImGui::SameLine();
    ImGui::SetCursorPosX(ImGui::GetCursorPosX() +
                         std::max(0.f, visible_avail_x() - ImGui::CalcTextSize(hi).x));
    ImGui::TextUnformatted(hi);
  }
  draw_last_run(s);  // stats_panel.cpp: named figures with units, the raw stats collapsed
  // The readout under the cursor, this frame's only. The plane's is made before the panels; a
  // workload's own view, e.g. the phase view, makes its own while drawing its panel.
  if (plane_kind && !s.cursor_text.empty()) {
    ImGui::Separator();
    SIMSCOPE_TEXT_WRAPPED("%s", s.cursor_text.c_str());
  }
  s.extras->draw_panel(s);
  // After the workload's own widgets, so that those keep their places.
  draw_probe_panel(s);          // probe.cpp
  draw_compare_panel(s);        // compare_panel.cpp
  draw_image_size_controls(s);  // image_export.cpp
  draw_sweep_panel(s);          // sweep_panel.cpp
  if (!plane_kind && !s.cursor_text.empty()) {
    ImGui::Separator();
    SIMSCOPE_TEXT_WRAPPED("%s", s.cursor_text.c_str());
  }
  s.panels_layout += "; " + panel_layout("view", s.disabled_params);
  ImGui::End();
}

}  // namespace simscope::app::gui
