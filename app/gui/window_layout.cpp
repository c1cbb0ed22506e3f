// Where the window's parts go (window_layout.hpp).
#include "window_layout.hpp"

#include <imgui.h>

#include <algorithm>
#include <cmath>

namespace simscope::app::gui {

WindowLayout window_layout(float W, float H, float scale, bool panels) {
  WindowLayout l;
  l.W = W, l.H = H;
  l.bottom = 58.f * scale;
  if (!panels) return l;
  float left = std::min(420.f * scale, W * 0.4f), right = std::min(300.f * scale, W * 0.3f);
  const float most = W * 0.55f;
  if (left + right > most) {
    const float f = most / (left + right);
    left *= f, right *= f;
  }
  l.left = std::floor(left), l.right = std::floor(right);
  return l;
}

void draw_view_message(const std::string& why, const WindowLayout& l) {
  const float x0 = l.left, x1 = l.W - l.right, y1 = l.H - l.bottom;
  ImDrawList* dl = ImGui::GetBackgroundDrawList();
  const float pad = 2 * ImGui::GetFontSize(), wrap = std::max(40.f, x1 - x0 - 2 * pad);
  const std::string text = "Nothing to show for this output:\n" + why;
  const ImVec2 size = ImGui::CalcTextSize(text.c_str(), nullptr, false, wrap);
  const ImVec2 pos(x0 + std::max(pad, (x1 - x0 - size.x) / 2), std::max(pad, (y1 - size.y) / 2));
  dl->AddText(ImGui::GetFont(), ImGui::GetFontSize(), pos, IM_COL32(230, 230, 230, 255),
              text.c_str(), nullptr, wrap);
}

}  // namespace simscope::app::gui
