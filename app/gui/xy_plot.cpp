// A line plot with axes (xy_plot.hpp).
#include "xy_plot.hpp"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "fonts.hpp"
#include "render/ticks.hpp"

namespace simscope::app::gui {
namespace {

/// Ticks for [lo, hi] along an axis, as render's colorbar ticks (1-2-5 steps); widened when
/// flat. A flat axis of values >= 0, e.g. a first time sample or R, stays >= 0.
std::vector<render::Tick> axis_ticks(double& lo, double& hi) {
  if (!(hi > lo)) {
    const double m = std::max(std::fabs(lo) * 0.05, 0.5);
    lo = lo >= 0 ? std::max(0.0, lo - m) : lo - m, hi += m;
  }
  return render::colorbar_ticks(lo, hi, false);
}

std::string g_hover;     // the last tooltip shown
int g_hover_frame = -1;  // in this ImGui frame

}  // namespace

std::string plot_hover_this_frame() {
  return g_hover_frame == ImGui::GetFrameCount() ? g_hover : std::string();
}

void draw_xy_plot(const char* id, const std::vector<double>& xs, const std::vector<double>& ys,
                  const XyPlotOptions& o) {
  const float scale = ui_scale();
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float h = o.height > 0 ? o.height : avail.y;
  const ImVec2 size(std::max(avail.x, 120.f * scale), std::max(h, 80.f * scale));
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton(id, size);
  const bool hovered = ImGui::IsItemHovered();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float th = ImGui::GetTextLineHeight();
  const std::size_t n = std::min(xs.size(), ys.size());

  double ylo = INFINITY, yhi = -INFINITY, xlo = INFINITY, xhi = -INFINITY;
  for (std::size_t k = 0; k < n; ++k) {
    if (std::isfinite(xs[k])) xlo = std::min(xlo, xs[k]), xhi = std::max(xhi, xs[k]);
    if (std::isfinite(ys[k])) ylo = std::min(ylo, ys[k]), yhi = std::max(yhi, ys[k]);
    if (k < o.dots.size() && std::isfinite(o.dots[k]))
      ylo = std::min(ylo, o.dots[k]), yhi = std::max(yhi, o.dots[k]);
  }
  if (o.bars && std::isfinite(ylo)) ylo = std::min(ylo, 0.0), yhi = std::max(yhi, 0.0);
  if (!std::isfinite(xlo)) xlo = 0, xhi = 1;
  if (o.fixed_y) {
    ylo = o.y_lo, yhi = o.y_hi;
  } else if (!std::isfinite(ylo)) {
    ylo = 0, yhi = 1;
  } else {
    const double pad = (yhi - ylo) * 0.05;  // the curve clear of the frame
    ylo -= pad, yhi += pad;
  }
  const auto xt = axis_ticks(xlo, xhi);
  const auto yt = axis_ticks(ylo, yhi);
  float label_w = 0;
  for (const auto& t : yt) label_w = std::max(label_w, ImGui::CalcTextSize(t.label.c_str()).x);
  const float left = label_w + 10 * scale, right = 10 * scale;
  const float top = o.y_title.empty() ? th * 0.6f : th * 1.3f;
  const float bottom = th * (o.x_title.empty() ? 1.4f : 2.4f);
  const ImVec2 a(p0.x + left, p0.y + top), b(p0.x + size.x - right, p0.y + size.y - bottom);
  if (b.x - a.x < 20 || b.y - a.y < 10) return;
  auto X = [&](double x) { return float(a.x + (x - xlo) / (xhi - xlo) * (b.x - a.x)); };
  auto Y = [&](double y) { return float(b.y - (y - ylo) / (yhi - ylo) * (b.y - a.y)); };

  const ImU32 grid = IM_COL32(255, 255, 255, 40), axis = IM_COL32(200, 200, 200, 255);
  const ImU32 text = IM_COL32(220, 220, 220, 255);
  // With dots (data), the line is the fit: amber line, blue dots.
  const ImU32 curve = o.dots.empty() ? IM_COL32(110, 190, 255, 255) : IM_COL32(255, 200, 60, 255);
  const ImU32 dot_color = IM_COL32(120, 190, 255, 255);
  dl->AddRectFilled(a, b, IM_COL32(20, 20, 26, 255));
  for (const auto& t : yt) {
    const float y = float(b.y - t.position * (b.y - a.y));
    dl->AddLine(ImVec2(a.x, y), ImVec2(b.x, y), grid);
    dl->AddLine(ImVec2(a.x - 4 * scale, y), ImVec2(a.x, y), axis);
    const ImVec2 ts = ImGui::CalcTextSize(t.label.c_str());
    dl->AddText(ImVec2(a.x - 6 * scale - ts.x, y - ts.y / 2), text, t.label.c_str());
  }
  float last_right = -INFINITY;  // x labels that would overlap the previous one are left out
  for (const auto& t : xt) {
    const float x = float(a.x + t.position * (b.x - a.x));
    dl->AddLine(ImVec2(x, a.y), ImVec2(x, b.y), grid);
    dl->AddLine(ImVec2(x, b.y), ImVec2(x, b.y + 4 * scale), axis);
    const ImVec2 ts = ImGui::CalcTextSize(t.label.c_str());
    if (x - ts.x / 2 < last_right + 4 * scale) continue;
    dl->AddText(ImVec2(x - ts.x / 2, b.y + 5 * scale), text, t.label.c_str());
    last_right = x + ts.x / 2;
  }
  dl->AddRect(a, b, axis);
  if (!o.x_title.empty()) {
    const ImVec2 xs_ = ImGui::CalcTextSize(o.x_title.c_str());
    dl->AddText(ImVec2((a.x + b.x - xs_.x) / 2, b.y + 5 * scale + th), text, o.x_title.c_str());
  }
  if (!o.y_title.empty()) dl->AddText(ImVec2(a.x, p0.y), text, o.y_title.c_str());

  dl->PushClipRect(a, b, true);
  std::vector<ImVec2> pts;
  auto flush = [&] {
    if (pts.size() >= 2) dl->AddPolyline(pts.data(), int(pts.size()), curve, 0, 2 * scale);
    if (pts.size() == 1) dl->AddCircleFilled(pts[0], 2 * scale, curve);
    pts.clear();
  };
  if (o.bars) {
    const float half = std::max(1.f, 0.35f * (b.x - a.x) / float(std::max<std::size_t>(n, 1)));
    for (std::size_t k = 0; k < n; ++k)
      if (std::isfinite(ys[k]) && std::isfinite(xs[k]))
        dl->AddRectFilled(ImVec2(X(xs[k]) - half, std::min(Y(0), Y(ys[k]))),
                          ImVec2(X(xs[k]) + half, std::max(Y(0), Y(ys[k]))), curve);
  } else {
    for (std::size_t k = 0; k < n; ++k) {
      if (!std::isfinite(ys[k]) || !std::isfinite(xs[k])) {
        flush();  // a gap at NaN
        continue;
      }
      pts.push_back(ImVec2(X(xs[k]), Y(ys[k])));
    }
    flush();
  }
  for (std::size_t k = 0; k < std::min(n, o.dots.size()); ++k) {
    if (std::isfinite(o.dots[k]))
      dl->AddCircleFilled(ImVec2(X(xs[k]), Y(o.dots[k])), 2.2f * scale, dot_color);
    else if (o.mark_gaps)
      dl->AddLine(ImVec2(X(xs[k]), b.y - 7 * scale), ImVec2(X(xs[k]), b.y),
                  IM_COL32(230, 60, 60, 255), 1.5f * scale);
  }
  if (hovered && n > 0) {
    const double d = xlo + (ImGui::GetIO().MousePos.x - a.x) / (b.x - a.x) * (xhi - xlo);
    std::size_t k = 0;
    double best = INFINITY;
    for (std::size_t q = 0; q < n; ++q)
      if (std::fabs(xs[q] - d) < best) best = std::fabs(xs[q] - d), k = q;
    const float x = X(xs[k]);
    dl->AddLine(ImVec2(x, a.y), ImVec2(x, b.y), IM_COL32(255, 255, 255, 120));
    if (std::isfinite(ys[k]))
      dl->AddCircleFilled(ImVec2(x, Y(ys[k])), 3.5f * scale, IM_COL32(255, 255, 255, 255));
    if (k < o.dots.size() && std::isfinite(o.dots[k]))
      dl->AddCircle(ImVec2(x, Y(o.dots[k])), 4.f * scale, IM_COL32(255, 255, 255, 255));
    std::string tip;
    if (o.hover_text) {
      tip = o.hover_text(k);
    } else {
      char buf[160];
      std::snprintf(buf, sizeof buf, "%s = %.6g\nat %s = %.6g",
                    o.y_title.empty() ? "y" : o.y_title.c_str(), ys[k],
                    o.x_title.empty() ? "x" : o.x_title.c_str(), xs[k]);
      tip = buf;
    }
    g_hover = std::string(id) + ": " + tip;
    g_hover_frame = ImGui::GetFrameCount();
    ImGui::BeginTooltip();
    ImGui::TextUnformatted(tip.c_str());
    ImGui::EndTooltip();
  }
  dl->PopClipRect();
}

}  // namespace simscope::app::gui
