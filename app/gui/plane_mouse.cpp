// The mouse over the plane view (plane_mouse.hpp).
#include "plane_mouse.hpp"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "gui_state.hpp"
#include "ui_text.hpp"

namespace simscope::app::gui {

void zoom_and_pan(GuiState& s, int fb_h, float sx, float sy) {
  ImGuiIO& io = ImGui::GetIO();
  if (!s.plane || s.image.rows == 0 || io.WantCaptureMouse) return;
  const auto rect = s.plane->last_image_rect();
  if (!rect) return;
  const auto ij = s.plane->image_coords(io.MousePos.x * sx, fb_h - io.MousePos.y * sy);
  const auto w = s.plane->zoom_window();
  if (ij && io.MouseWheel != 0) {
    const double fu = ij->first / s.image.rows, fv = ij->second / s.image.cols;
    const double a = (fu - w[0]) / w[2], b = (fv - w[1]) / w[3];
    s.zoom = std::clamp(s.zoom * std::pow(1.25, double(io.MouseWheel)), 1.0, 256.0);
    const double d = 1.0 / s.zoom;
    s.zoom_cu = fu - a * d + d / 2;
    s.zoom_cv = fv - b * d + d / 2;
  }
  if (ImGui::IsMouseDragging(ImGuiMouseButton_Right)) {
    s.zoom_cu -= io.MouseDelta.x * sx / rect->w * w[2];
    s.zoom_cv += io.MouseDelta.y * sy / rect->h * w[3];
  }
  s.plane->set_zoom(s.zoom, s.zoom_cu, s.zoom_cv);
  // Keep the centre where the view clamped it, so a pan past the edge does not accumulate.
  const auto z = s.plane->zoom_window();
  s.zoom_cu = z[0] + z[2] / 2, s.zoom_cv = z[1] + z[3] / 2;
}

void cursor_readout(GuiState& s, int fb_h, float sx, float sy, bool tooltip) {
  ImGuiIO& io = ImGui::GetIO();
  if (!s.result || !s.plane || s.image.rows == 0 || io.WantCaptureMouse) return;
  const auto ij = s.plane->image_coords(io.MousePos.x * sx, fb_h - io.MousePos.y * sy);
  if (!ij) return;
  const int i = std::clamp(int(std::floor(ij->first)), 0, s.image.rows - 1);
  const int j = std::clamp(int(std::floor(ij->second)), 0, s.image.cols - 1);
  const float v = s.image.data.host()[size_t(i) * s.image.cols + j];
  char buf[320];
  std::snprintf(buf, sizeof buf, "%s = %.6g %s\n%s  %s", ui_text(s.image.label).c_str(), v,
                ui_text(s.image.unit).c_str(),
                s.worker->workload().describe_sample(*s.result, i, j).c_str(),
                s.extras->sample_index(s, i, j).c_str());
  s.cursor_text = buf;
  while (!s.cursor_text.empty() && s.cursor_text.back() == ' ') s.cursor_text.pop_back();
  if (!tooltip) return;
  ImGui::BeginTooltip();
  ImGui::TextUnformatted(s.cursor_text.c_str());
  ImGui::EndTooltip();
}

void click_plane(GuiState& s, int fb_h, float sx, float sy) {
  ImGuiIO& io = ImGui::GetIO();
  if (ImGui::IsMouseClicked(0) && !io.WantCaptureMouse && s.result && s.image.rows > 0) {
    if (const auto ij = s.plane->image_coords(io.MousePos.x * sx, fb_h - io.MousePos.y * sy))
      s.extras->on_click(s, std::clamp(int(ij->first), 0, s.image.rows - 1),
                         std::clamp(int(ij->second), 0, s.image.cols - 1));
  }
}

}  // namespace simscope::app::gui
