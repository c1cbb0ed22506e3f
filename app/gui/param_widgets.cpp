#include "param_widgets.hpp"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>

#include "core/error.hpp"
#include "hover_tip.hpp"
#include "number_widget.hpp"
#include "ui_text.hpp"

namespace simscope::app::gui {
namespace {

/// The parameter's help once the pointer has rested on it (hover_tip.hpp); first, for a
/// parameter the run does not use, why (`unused`).
void tooltip(const ParamSpec& s, const std::string& unused) {
  if (!hover_tip_due()) return;
  std::string t = s.name + "\n" + (unused.empty() ? "" : unused + "\n\n") + ui_text(s.help);
  if (!s.unit.empty()) t += "\nunit: " + ui_text(s.unit);
  if ((s.type == ParamType::Int || s.type == ParamType::Float) && s.has_range())
    t += "\nrange: [" + format_value(ParamValue(s.min)) + ", " + format_value(ParamValue(s.max)) +
         "]";
  t += "\ndefault: " + format_value(s.default_value);
  if ((s.type == ParamType::Int || s.type == ParamType::Float) &&
      number_widget(s) == NumberWidget::Drag)
    t += "\ndrag to change (0.5 % per pixel), Ctrl+click to type";
  wrapped_tooltip(t.c_str());
}

bool apply(ParamSet& p, const ParamSpec& s, const ParamValue& v, std::string& error) {
  try {
    if (p.get(s.name) == v) return false;
    p.set(s.name, v);
    return true;
  } catch (const Error& e) {
    error = e.what();
    return false;
  }
}

std::string label_for(const ParamSpec& s) {
  return s.unit.empty() ? s.name : s.name + " [" + ui_text(s.unit) + "]";
}

ParamRowCount g_rows;

}  // namespace

ParamRowCount param_rows(bool reset) {
  const ParamRowCount r = g_rows;
  if (reset) g_rows = {};
  return r;
}

bool param_widget(ParamSet& p, const ParamSpec& s, std::string& error) {
  bool changed = false;
  // A parameter the run ignores, by the schema's use rules, is drawn disabled with the reason.
  const std::string unused = p.schema().unused_reason(p, s.name);
  if (!unused.empty()) g_rows.disabled += s.name + ": " + unused + "\n";
  ImGui::PushID(s.name.c_str());
  ImGui::BeginDisabled(!unused.empty());
  const float reset_w = ImGui::GetFrameHeight();
  std::string label = label_for(s);
  {
    // Half the panel, or less in a narrow panel down to a third, so the label and the R button
    // beside the widget stay visible. Where even that would cut the label, e.g. in a narrow
    // panel or at a large UI scale, the label goes on its own line above a wide widget.
    const ImGuiStyle& st = ImGui::GetStyle();
    const float avail = ImGui::GetContentRegionAvail().x;
    const float fit = avail - ImGui::CalcTextSize(label.c_str()).x - reset_w -
                      st.ItemInnerSpacing.x - 2 * st.ItemSpacing.x;
    const float beside = std::max(std::min(avail * 0.50f - reset_w, fit), avail * 0.34f);
    // What the widget needs to show its value: an enum's longest choice beside the arrow, a
    // file field's hint, a number's 7 digits.
    float need = ImGui::CalcTextSize("-0.000000").x;
    if (s.type == ParamType::Enum)
      for (const auto& c : s.choices) need = std::max(need, ImGui::CalcTextSize(c.c_str()).x);
    if (s.type == ParamType::Path) need = ImGui::CalcTextSize("(none: generated)").x;
    need += 2 * st.FramePadding.x + (s.type == ParamType::Enum ? ImGui::GetFrameHeight() : 0);
    // A checkbox draws its label itself. Stacked only when the row would not fit.
    const bool bool_fits = ImGui::GetFrameHeight() + st.ItemInnerSpacing.x +
                               ImGui::CalcTextSize(label.c_str()).x + st.ItemSpacing.x + reset_w <=
                           avail;
    if (s.type == ParamType::Bool ? !bool_fits : (fit < avail * 0.34f || beside < need)) {
      ImGui::TextUnformatted(label.c_str());
      tooltip(s, unused);
      label = "##widget";  // the label is above; the ID stays unique under PushID(s.name)
      ImGui::SetNextItemWidth(std::max(avail - reset_w - st.ItemSpacing.x, avail * 0.5f));
    } else {
      ImGui::SetNextItemWidth(beside);
    }
  }
  const NumberWidget kind = number_widget(s);
  switch (s.type) {
    case ParamType::Int: {
      long long v = p.get_int(s.name);
      long long lo = (long long)s.min, hi = (long long)s.max;
      bool edited;
      if (kind == NumberWidget::Slider)
        edited = ImGui::SliderScalar(
            label.c_str(), ImGuiDataType_S64, &v, &lo, &hi, "%lld",
            ImGuiSliderFlags_AlwaysClamp | (s.log_slider ? ImGuiSliderFlags_Logarithmic : 0));
      else if (kind == NumberWidget::Drag)
        edited = ImGui::DragScalar(label.c_str(), ImGuiDataType_S64, &v,
                                   float(std::max(1.0, drag_speed(double(v)))), &lo, &hi, "%lld",
                                   ImGuiSliderFlags_AlwaysClamp);
      else
        edited = ImGui::InputScalar(label.c_str(), ImGuiDataType_S64, &v, nullptr, nullptr, "%lld",
                                    ImGuiInputTextFlags_EnterReturnsTrue);
      if (edited) changed = apply(p, s, ParamValue(std::int64_t(v)), error);
      break;
    }
    case ParamType::Float: {
      double v = p.get_double(s.name);
      bool edited;
      if (kind == NumberWidget::Slider)
        edited = ImGui::SliderScalar(
            label.c_str(), ImGuiDataType_Double, &v, &s.min, &s.max, "%.6g",
            ImGuiSliderFlags_AlwaysClamp | (s.log_slider ? ImGuiSliderFlags_Logarithmic : 0));
      else if (kind == NumberWidget::Drag)
        edited = ImGui::DragScalar(
            label.c_str(), ImGuiDataType_Double, &v,
            float(drag_speed(v, s.drag_scale.empty() ? 1.0 : p.get_double(s.drag_scale))), &s.min,
            &s.max, "%.6g", ImGuiSliderFlags_AlwaysClamp);
      else
        edited = ImGui::InputDouble(label.c_str(), &v, 0, 0, "%.6g",
                                    ImGuiInputTextFlags_EnterReturnsTrue);
      if (edited) changed = apply(p, s, ParamValue(v), error);
      break;
    }
    case ParamType::Bool: {
      bool v = p.get_bool(s.name);
      if (ImGui::Checkbox(label.c_str(), &v)) changed = apply(p, s, ParamValue(v), error);
      break;
    }
    case ParamType::Enum: {
      const std::string& cur = p.get_string(s.name);
      if (ImGui::BeginCombo(label.c_str(), cur.c_str())) {
        for (const auto& c : s.choices) {
          if (ImGui::Selectable(c.c_str(), c == cur)) changed = apply(p, s, ParamValue(c), error);
        }
        ImGui::EndCombo();
      }
      break;
    }
    case ParamType::Path: {
      // Edited text is kept per parameter until Enter applies it.
      static std::map<std::string, std::string> editing;
      auto it = editing.find(s.name);
      if (it == editing.end()) it = editing.emplace(s.name, p.get_string(s.name)).first;
      char buf[1024];
      std::snprintf(buf, sizeof buf, "%s", it->second.c_str());
      if (ImGui::InputTextWithHint(label.c_str(), "(none: generated)", buf, sizeof buf,
                                   ImGuiInputTextFlags_EnterReturnsTrue)) {
        changed = apply(p, s, ParamValue(std::string(buf)), error);
        editing.erase(s.name);
      } else {
        it->second = buf;
        if (!ImGui::IsItemActive() && it->second != p.get_string(s.name) &&
            !ImGui::IsItemDeactivated())
          it->second = p.get_string(s.name);
      }
      break;
    }
  }
  tooltip(s, unused);
  ImGui::SameLine();
  if (ImGui::SmallButton("R")) changed |= apply(p, s, s.default_value, error);
  ImGui::EndDisabled();
  ++g_rows.rows;
  if (ImGui::GetItemRectMax().x >
      ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x + 1)
    ++g_rows.cut;
  if (hover_tip_due())
    ImGui::SetTooltip("reset %s to %s", s.name.c_str(), format_value(s.default_value).c_str());
  ImGui::PopID();
  return changed;
}

bool param_widgets(ParamSet& p, std::string& error) {
  bool changed = false;
  for (const ParamSpec& s : p.schema().specs()) changed |= param_widget(p, s, error);
  return changed;
}

}  // namespace simscope::app::gui
