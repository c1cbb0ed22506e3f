// The view panel's "Last run" section (stats_panel.hpp).
#include "stats_panel.hpp"

#include <imgui.h>

#include <algorithm>
#include <vector>

#include "gui_state.hpp"
#include "hover_tip.hpp"
#include "output/stat_labels.hpp"
#include "visible_wrap.hpp"

namespace simscope::app::gui {

namespace {

/// The figure's definition, if any, then "run.json stats.KEY = RAW" ("timings.compute_s" is
/// run.json's own section).
std::string raw_note(const StatLine& l) {
  const bool own = l.key.find('.') != std::string::npos;
  return (l.definition.empty() ? "" : l.definition + "\n\n") + "run.json " +
         std::string(own ? "" : "stats.") + l.key + " = " + l.raw + "\n(click: copy the value)";
}

}  // namespace

void draw_last_run(GuiState& s) {
  if (!s.result) return;
  const RunResult& r = *s.result;
  ImGui::Separator();
  ImGui::TextDisabled(r.preview ? "Last run (preview)" : "Last run");
  const std::vector<StatLine> lines = stat_lines(r);
  if (!lines.empty()) {
    // The names' column as wide as the widest name, at most half the panel; the values take
    // the rest (they are short: a number, a prefix and a unit).
    float name_w = 0;
    for (const StatLine& l : lines) name_w = std::max(name_w, ImGui::CalcTextSize(l.label.c_str()).x);
    const float avail = visible_avail_x();
    name_w = std::min(name_w, 0.5f * avail);
    if (ImGui::BeginTable("##last_run", 2, ImGuiTableFlags_None, ImVec2(avail, 0))) {
      ImGui::TableSetupColumn("name", ImGuiTableColumnFlags_WidthFixed, name_w);
      ImGui::TableSetupColumn("value", ImGuiTableColumnFlags_WidthStretch);
      for (const StatLine& l : lines) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
        const std::string id = l.label + "##" + l.key;
        if (ImGui::Selectable(id.c_str(), false, ImGuiSelectableFlags_SpanAllColumns))
          ImGui::SetClipboardText(l.raw.c_str());
        ImGui::PopStyleColor();
        if (hover_tip_due()) {
          ImGui::PushTextWrapPos(ImGui::GetFontSize() * 28);
          ImGui::SetTooltip("%s", raw_note(l).c_str());
          ImGui::PopTextWrapPos();
        }
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(l.value.c_str());
      }
      ImGui::EndTable();
    }
  }
  const std::vector<StatLine> raw = raw_stat_lines(r);
  if (!raw.empty() && ImGui::TreeNode("All stats (run.json)")) {
    std::string all;
    for (const StatLine& l : raw) all += l.key + ": " + l.raw + "\n";
    if (ImGui::SmallButton("Copy all")) ImGui::SetClipboardText(all.c_str());
    if (hover_tip_due()) ImGui::SetTooltip("Copy every stat as 'key: value' lines");
    for (const StatLine& l : raw) ImGui::Text("%s: %s", l.key.c_str(), l.raw.c_str());
    ImGui::TreePop();
  }
  for (const auto& wmsg : r.warnings) SIMSCOPE_TEXT_WRAPPED("warning: %s", wmsg.c_str());
}

std::string last_run_text(const GuiState& s) {
  return s.result ? stat_lines_text(stat_lines(*s.result)) : std::string();
}

void add_last_run_text(const GuiState& s, std::map<std::string, std::string>& text) {
  if (const std::string t = last_run_text(s); !t.empty()) text["simscope.last_run"] = t;
}

}  // namespace simscope::app::gui
