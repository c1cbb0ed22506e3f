// The window's comparison of a pinned result A with the current B (compare_view.hpp).
#include <imgui.h>

#include <cstdio>

#include "compare_view.hpp"
#include "gui_state.hpp"
#include "output/run_manifest.hpp"
#include "ui_text.hpp"
#include "view_png_export.hpp"
#include "visible_wrap.hpp"

namespace simscope::app::gui {
namespace {

bool pinned_here(const GuiState& s) {
  return s.compare.pinned && s.compare.pinned->workload == s.workload_name;
}

}  // namespace

void pin_result(GuiState& s) {
  if (!s.result) {
    action_failed(s, "nothing to pin yet");
    return;
  }
  if (s.result->preview) {
    action_failed(s, "the shown result is a coarse preview; pin once the full result is shown");
    return;
  }
  s.compare.pinned = std::make_shared<const RunResult>(*s.result);
  s.compare.mode = CompareMode::Current;
  s.image_dirty = true;
  action_done(s, "pinned the shown result as A; change parameters, then view B - A (key D)");
}

void cycle_compare_mode(GuiState& s) {
  if (!pinned_here(s)) {
    action_failed(s, "no result pinned to compare with: pin one first (key A)");
    return;
  }
  s.compare.mode = CompareMode((int(s.compare.mode) + 1) % 4);
  s.image_dirty = true;
}

bool compare_shown(const GuiState& s) {
  return pinned_here(s) && s.compare.mode != CompareMode::Current && s.compare.message.empty();
}

std::string apply_compare(GuiState& s, const std::string& which) {
  CompareState& c = s.compare;
  c.message.clear();
  c.stats_label.clear();
  if (!pinned_here(s)) return "";
  try {
    const ViewImage a = s.worker->workload().view_image(*c.pinned, which);
    if (a.rows != s.image.rows || a.cols != s.image.cols) {
      compare_image(a, s.image, CompareMode::Difference);  // throws the message
    }
    const bool angle = is_angle(s.image.unit);
    c.stats = diff_stats(a.data.host(), s.image.data.host(), false, angle);
    c.relative = diff_stats(a.data.host(), s.image.data.host(), true, angle);
    c.stats_label = s.image.label;
    if (c.mode == CompareMode::Current) return "";
    s.image = compare_image(a, s.image, c.mode);
    return c.mode == CompareMode::Pinned ? "" : "/difference";
  } catch (const std::exception& e) {
    c.message = e.what();
    return "";
  }
}

void draw_compare_panel(GuiState& s) {
  CompareState& c = s.compare;
  ImGui::Separator();
  ImGui::TextUnformatted("Compare");
  if (!c.pinned) {
    ImGui::SameLine();
    if (ImGui::SmallButton("Pin as A (A)")) pin_result(s);
    ImGui::TextDisabled("keep this result, then compare");
    return;
  }
  if (!pinned_here(s)) {
    SIMSCOPE_TEXT_WRAPPED("A is a %s result: switch back to compare", c.pinned->workload.c_str());
    if (ImGui::SmallButton("Unpin")) c.pinned.reset();
    return;
  }
  const auto& names = compare_mode_names();
  for (int m = 0; m < int(names.size()); ++m) {
    if (ImGui::RadioButton(names[std::size_t(m)].c_str(), int(c.mode) == m)) {
      c.mode = CompareMode(m);
      s.image_dirty = true;
    }
    if (m % 2 == 0) ImGui::SameLine();
  }
  if (!c.message.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1, 0.45f, 0.4f, 1));
    SIMSCOPE_TEXT_WRAPPED("%s", c.message.c_str());
    ImGui::PopStyleColor();
  } else if (!c.stats_label.empty()) {
    ImGui::Text("%s:", ui_text(c.stats_label).c_str());
    ImGui::Text("max |B - A| %.4g  RMS %.4g", c.stats.max_abs, c.stats.rms);
    ImGui::Text("relative: max %.3g  RMS %.3g", c.relative.max_abs, c.relative.rms);
  }
  const auto diff =
      s.result ? differing_params(c.pinned->params, s.result->params) : std::vector<std::string>{};
  if (diff.empty()) {
    ImGui::TextDisabled("A has B's parameters");
  } else {
    ImGui::TextUnformatted("A's parameters that differ:");
    for (const auto& d : diff) ImGui::BulletText("%s", d.c_str());
  }
  if (ImGui::SmallButton("Pin again")) pin_result(s);
  ImGui::SameLine();
  if (ImGui::SmallButton("Unpin")) {
    c.pinned.reset();
    c.mode = CompareMode::Current;
    s.image_dirty = true;
  }
}

void export_compare(const GuiState& s, const std::string& dir, std::vector<std::string>& written) {
  if (!pinned_here(s) || !s.result) return;
  const Json manifest =
      run_manifest(*s.compare.pinned, s.backend.notice, RenderInfo{}, front_end_versions());
  const auto more = export_comparison(*s.compare.pinned, *s.result, dir, manifest);
  written.insert(written.end(), more.begin(), more.end());
}

std::string compare_summary(const GuiState& s) {
  const CompareState& c = s.compare;
  if (!pinned_here(s)) return "";
  std::string t = "showing " + compare_mode_names()[std::size_t(c.mode)];
  if (!c.message.empty()) return t + "; " + c.message;
  char buf[200];
  std::snprintf(buf, sizeof buf, "; %s: max |B - A| %.9g, RMS %.9g; relative max %.9g, RMS %.9g",
                c.stats_label.c_str(), c.stats.max_abs, c.stats.rms, c.relative.max_abs,
                c.relative.rms);
  return t + buf;
}

}  // namespace simscope::app::gui
