// The line profile's plot (axes with render/'s ticks, the curve, the value under the cursor)
// and its CSV.
#include <imgui.h>

#include <QDateTime>
#include <QFileInfo>
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "explore.hpp"
#include "gui_state.hpp"
#include "render/ticks.hpp"

namespace simscope::app::gui {

void update_profile(GuiState& s) {
  ExploreState& e = s.explore;
  const PlaneSamples* ps = explore_samples(s);
  if (!ps || !e.have_line) {
    e.profile.reset();
    return;
  }
  if (e.profile && e.profile_serial == s.result_serial) return;
  const auto clampi = [&](double f) { return std::clamp(f, 0.0, double(ps->rows - 1)); };
  const auto clampj = [&](double f) { return std::clamp(f, 0.0, double(ps->cols - 1)); };
  try {
    e.profile = line_profile(*ps, clampi(ps->fi_of(e.u0)), clampj(ps->fj_of(e.v0)),
                             clampi(ps->fi_of(e.u1)), clampj(ps->fj_of(e.v1)));
  } catch (const std::exception&) {
    e.profile.reset();
  }
  e.shown_column = shown_column_name(*s.result, s.worker->workload().view_param(),
                                     s.params.get_string(s.worker->workload().view_param()));
  if (ps->column(e.shown_column) < 0 && !ps->columns.empty())
    e.shown_column = ps->columns.front().name;
  e.profile_serial = s.result_serial;
}

void save_profile_csv(GuiState& s) {
  update_profile(s);
  if (!s.explore.profile) {
    action_failed(s, "no line profile to save: shift-drag a line across the plane first");
    return;
  }
  const std::string stem =
      "simscope-profile-" + QDateTime::currentDateTime().toString("yyyyMMdd-HHmmss").toStdString();
  std::string path = stem + ".csv";
  for (int k = 2; QFileInfo::exists(QString::fromStdString(path)); ++k)
    path = stem + "-" + std::to_string(k) + ".csv";
  try {
    write_profile_csv(path, *s.explore.profile);
    action_done(s, "saved profile " + path);
  } catch (const std::exception& e) {
    action_failed(s, e.what());
  }
}

namespace {

/// Ticks for [lo, hi] along an axis (render's colorbar ticks: 1-2-5 steps), widened when flat.
std::vector<render::Tick> axis_ticks(double& lo, double& hi) {
  if (!(hi > lo)) {
    const double m = std::max(std::fabs(lo) * 0.05, 0.5);
    lo -= m, hi += m;
  }
  return render::colorbar_ticks(lo, hi, false);
}

}  // namespace

void draw_profile_plot(const Profile& p, int column, const std::string& y_title, float scale) {
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const ImVec2 size(std::max(avail.x, 160.f * scale), std::max(avail.y, 100.f * scale));
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton("##profile_plot", size);
  const bool hovered = ImGui::IsItemHovered();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float th = ImGui::GetTextLineHeight();
  const float left = 64 * scale, bottom = th * 2.4f, top = th * 1.3f, right = 12 * scale;
  const ImVec2 a(p0.x + left, p0.y + top), b(p0.x + size.x - right, p0.y + size.y - bottom);
  if (b.x - a.x < 20 || b.y - a.y < 20 || p.rows.empty()) return;

  double xlo = p.rows.front()[0], xhi = p.rows.back()[0];
  double ylo = INFINITY, yhi = -INFINITY;
  for (const auto& r : p.rows)
    if (std::isfinite(r[std::size_t(column)]))
      ylo = std::min(ylo, r[std::size_t(column)]), yhi = std::max(yhi, r[std::size_t(column)]);
  if (!std::isfinite(ylo)) ylo = 0, yhi = 1;
  const double pad = (yhi - ylo) * 0.05;  // the curve clear of the frame
  ylo -= pad, yhi += pad;
  const auto xt = axis_ticks(xlo, xhi);
  const auto yt = axis_ticks(ylo, yhi);
  auto X = [&](double x) { return float(a.x + (x - xlo) / (xhi - xlo) * (b.x - a.x)); };
  auto Y = [&](double y) { return float(b.y - (y - ylo) / (yhi - ylo) * (b.y - a.y)); };

  const ImU32 grid = IM_COL32(255, 255, 255, 40), axis = IM_COL32(200, 200, 200, 255);
  const ImU32 text = IM_COL32(220, 220, 220, 255), curve = IM_COL32(110, 190, 255, 255);
  dl->AddRectFilled(a, b, IM_COL32(20, 20, 26, 255));
  for (const auto& t : yt) {
    const float y = float(b.y - t.position * (b.y - a.y));
    dl->AddLine(ImVec2(a.x, y), ImVec2(b.x, y), grid);
    dl->AddLine(ImVec2(a.x - 4 * scale, y), ImVec2(a.x, y), axis);
    const ImVec2 ts = ImGui::CalcTextSize(t.label.c_str());
    dl->AddText(ImVec2(a.x - 6 * scale - ts.x, y - ts.y / 2), text, t.label.c_str());
  }
  for (const auto& t : xt) {
    const float x = float(a.x + t.position * (b.x - a.x));
    dl->AddLine(ImVec2(x, a.y), ImVec2(x, b.y), grid);
    dl->AddLine(ImVec2(x, b.y), ImVec2(x, b.y + 4 * scale), axis);
    const ImVec2 ts = ImGui::CalcTextSize(t.label.c_str());
    dl->AddText(ImVec2(x - ts.x / 2, b.y + 5 * scale), text, t.label.c_str());
  }
  dl->AddRect(a, b, axis);
  const char* xt_title = "distance along the line";
  const ImVec2 xs = ImGui::CalcTextSize(xt_title);
  dl->AddText(ImVec2((a.x + b.x - xs.x) / 2, b.y + 5 * scale + th), text, xt_title);
  dl->AddText(ImVec2(a.x, p0.y), text, y_title.c_str());

  dl->PushClipRect(a, b, true);
  std::vector<ImVec2> pts;
  auto flush = [&] {
    if (pts.size() >= 2) dl->AddPolyline(pts.data(), int(pts.size()), curve, 0, 2 * scale);
    if (pts.size() == 1) dl->AddCircleFilled(pts[0], 2 * scale, curve);
    pts.clear();
  };
  for (const auto& r : p.rows) {
    const double v = r[std::size_t(column)];
    if (!std::isfinite(v)) {
      flush();  // a gap at NaN
      continue;
    }
    pts.push_back(ImVec2(X(r[0]), Y(v)));
  }
  flush();
  if (hovered) {
    const float mx = ImGui::GetIO().MousePos.x;
    const double d = xlo + (mx - a.x) / (b.x - a.x) * (xhi - xlo);
    std::size_t k = 0;
    double best = INFINITY;
    for (std::size_t q = 0; q < p.rows.size(); ++q)
      if (std::fabs(p.rows[q][0] - d) < best) best = std::fabs(p.rows[q][0] - d), k = q;
    const auto& r = p.rows[k];
    const float x = X(r[0]);
    dl->AddLine(ImVec2(x, a.y), ImVec2(x, b.y), IM_COL32(255, 255, 255, 120));
    if (std::isfinite(r[std::size_t(column)]))
      dl->AddCircleFilled(ImVec2(x, Y(r[std::size_t(column)])), 3.5f * scale,
                          IM_COL32(255, 255, 255, 255));
    ImGui::BeginTooltip();
    std::string coords;
    for (int c = 1; c < p.first_value_column; ++c) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%s%s=%.5g", c > 1 ? " " : "",
                    p.header[std::size_t(c)].c_str(), r[std::size_t(c)]);
      coords += buf;
    }
    ImGui::Text("%s = %.6g\ndistance %.5g  %s", p.header[std::size_t(column)].c_str(),
                r[std::size_t(column)], r[0], coords.c_str());
    ImGui::EndTooltip();
  }
  dl->PopClipRect();
}

}  // namespace simscope::app::gui
