// Tooltips that wait (hover_tip.hpp).
#include "hover_tip.hpp"

#include <imgui.h>

namespace simscope::app::gui {
namespace {

// The item under the pointer, by its rectangle, since when, and the frame it was last seen in.
struct Rest {
  float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  double since = 0;
  int frame = -10;
  bool waiting = false;
};
Rest g_rest;

}  // namespace

void wrapped_tooltip(const char* text, float width_em) {
  ImGui::BeginTooltip();
  ImGui::PushTextWrapPos(ImGui::GetFontSize() * width_em);
  ImGui::TextUnformatted(text);
  ImGui::PopTextWrapPos();
  ImGui::EndTooltip();
}

bool hover_tip_due() {
  if (!ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled) || ImGui::IsAnyItemActive())
    return false;
  const ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
  const int frame = ImGui::GetFrameCount();
  const double now = ImGui::GetTime();
  Rest& r = g_rest;
  // Another item, or the same after a frame without it hovered: the wait starts again.
  if (frame > r.frame + 1 || a.x != r.x0 || a.y != r.y0 || b.x != r.x1 || b.y != r.y1)
    r.since = now;
  r.x0 = a.x, r.y0 = a.y, r.x1 = b.x, r.y1 = b.y, r.frame = frame;
  r.waiting = now - r.since < kHoverTipDelay;
  return !r.waiting;
}

bool hover_tip_waiting() {
  return g_rest.waiting && ImGui::GetFrameCount() <= g_rest.frame + 1;
}

}  // namespace simscope::app::gui
