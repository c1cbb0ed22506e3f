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
  if (l.key.empty())  // a figure of the window's own, not a run.json stat
    return (l.definition.empty() ? "" : l.definition + "\n\n") + "(click: copy the value)";
  const bool own = l.key.find('.') != std::string::npos;
  return (l.definition.empty() ? "" : l.definition + "\n\n") + "run.json " +
         std::string(own ? "" : "stats.") + l.key + " = " + l.raw + "\n(click: copy the value)";
}

}  // namespace

void draw_stat_table(const char* id, const std::vector<StatLine>& lines) {
  if (lines.empty()) return;
  // The names' column as wide as the widest name, at most half the panel; the values take
  // the rest (they are short: a number, a prefix and a unit).
  float name_w = 0;
  for (const StatLine& l : lines) name_w = std::max(name_w, ImGui::CalcTextSize(l.label.c_str()).x);
  const float avail = visible_avail_x();
  name_w = std::min(name_w, 0.5f * avail);
  if (ImGui::BeginTable(id, 2, ImGuiTableFlags_None, ImVec2(avail, 0))) {
    ImGui::TableSetupColumn("name", ImGuiTableColumnFlags_WidthFixed, name_w);
    ImGui::TableSetupColumn("value", ImGuiTableColumnFlags_WidthStretch);
    for (const StatLine& l : lines) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
      const std::string row = l.label + "##" + l.key;
      if (ImGui::Selectable(row.c_str(), false, ImGuiSelectableFlags_SpanAllColumns))
        ImGui::SetClipboardText(l.raw.c_str());
      ImGui::PopStyleColor();
      if (hover_tip_due()) wrapped_tooltip(raw_note(l).c_str(), 28);
      ImGui::TableNextColumn();
      // A value wider than its column (the error view's "x=1.122 y=-1.122 z=0") wraps between
      // its words, never inside a number.
      if (ImGui::CalcTextSize(l.value.c_str()).x <= visible_avail_x()) {
        ImGui::TextUnformatted(l.value.c_str());
      } else {
        std::vector<std::string> words;
        for (std::size_t a = 0, b; a < l.value.size(); a = b + 1) {
          b = std::min(l.value.find(' ', a), l.value.size());
          if (b > a) words.push_back(l.value.substr(a, b - a));
        }
        text_tokens_wrapped(words);
      }
    }
    ImGui::EndTable();
  }
}

void draw_last_run(GuiState& s) {
  if (!s.result) return;
  const RunResult& r = *s.result;
  ImGui::Separator();
  ImGui::TextDisabled(r.preview ? "Last run (preview)" : "Last run");
  draw_stat_table("##last_run", stat_lines(r));
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
