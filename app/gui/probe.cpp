// The probe (left click on the plane: every output at that sample), and the line's mouse
// handling and overlay (Shift + left drag). The plot itself is in profile_plot.cpp.
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "explore.hpp"
#include "fonts.hpp"
#include "gui_state.hpp"
#include "stats_panel.hpp"
#include "ui_text.hpp"
#include "visible_wrap.hpp"
#include "xy_plot.hpp"

namespace simscope::app::gui {
namespace {

/// How the plane's last draw maps sample positions to framebuffer pixels.
struct Mapping {
  render::PixelRect rect;
  std::array<double, 4> zoom;  // u0, v0, du, dv (fractions of the axes)
  int rows = 0, cols = 0;
  int fb_h = 0;
  float sx = 1, sy = 1;

  /// Sample position (fi, fj) under window point (x, y), not clamped.
  std::pair<double, double> to_sample(float x, float y) const {
    const double px = x * sx, py = fb_h - y * sy;
    const double ci = (zoom[0] + (px - rect.x) / rect.w * zoom[2]) * rows;
    const double cj = (zoom[1] + (py - rect.y) / rect.h * zoom[3]) * cols;
    return {ci - 0.5, cj - 0.5};  // sample k spans [k, k+1) in the view's continuous coordinates
  }
  /// The window point of sample position (fi, fj).
  ImVec2 to_window(double fi, double fj) const {
    const double px = rect.x + ((fi + 0.5) / rows - zoom[0]) / zoom[2] * rect.w;
    const double py = rect.y + ((fj + 0.5) / cols - zoom[1]) / zoom[3] * rect.h;
    return ImVec2(float(px / sx), float((fb_h - py) / sy));
  }
  ImVec2 clip_min() const {
    return ImVec2(float(rect.x / sx), float((fb_h - rect.y - rect.h) / sy));
  }
  ImVec2 clip_max() const {
    return ImVec2(float((rect.x + rect.w) / sx), float((fb_h - rect.y) / sy));
  }
};

std::optional<Mapping> mapping(const GuiState& s, int fb_h, float sx, float sy) {
  if (!s.plane || !s.result || s.image.rows <= 0 || s.image.cols <= 0) return std::nullopt;
  const auto r = s.plane->last_image_rect();
  if (!r || r->w <= 0 || r->h <= 0) return std::nullopt;
  return Mapping{*r, s.plane->zoom_window(), s.image.rows, s.image.cols, fb_h, sx, sy};
}

bool plane_shown(const GuiState& s) {
  return s.result && s.worker->workload().view_kind(s.params) == ViewKind::Plane;
}

}  // namespace

const PlaneSamples* explore_samples(GuiState& s) {
  ExploreState& e = s.explore;
  if (!s.result) return nullptr;
  const std::string shown = s.params.get_string(s.worker->workload().view_param());
  if (!e.samples || e.samples_serial != s.result_serial || e.samples_shown != shown ||
      e.samples_mode != s.compare.mode || e.samples_pinned != s.compare.pinned.get()) {
    try {
      PlaneSamples b = plane_samples(s.worker->workload(), *s.result, shown);
      // What the view shows: A, B - A or (B - A) / |A| while a result is pinned (compare.hpp).
      if (compare_shown(s))
        b = compare_samples(plane_samples(s.worker->workload(), *s.compare.pinned, shown), b,
                            s.compare.mode);
      e.samples = std::make_shared<const PlaneSamples>(std::move(b));
    } catch (const std::exception&) {
      e.samples.reset();
    }
    e.samples_serial = s.result_serial;
    e.samples_shown = shown;
    e.samples_mode = s.compare.mode;
    e.samples_pinned = s.compare.pinned.get();
    e.profile_serial = ~std::uint64_t(0);
  }
  return e.samples.get();
}

void explore_mouse(GuiState& s, int fb_h, float sx, float sy) {
  ExploreState& e = s.explore;
  ImGuiIO& io = ImGui::GetIO();
  const auto m = plane_shown(s) ? mapping(s, fb_h, sx, sy) : std::nullopt;
  if (!m) {
    e.pressed = e.dragging = false;
    return;
  }
  auto clamped = [&](float x, float y) {
    auto [fi, fj] = m->to_sample(x, y);
    return std::pair{std::clamp(fi, 0.0, double(m->rows - 1)),
                     std::clamp(fj, 0.0, double(m->cols - 1))};
  };
  const bool press = ImGui::IsMouseClicked(0) && !io.WantCaptureMouse &&
                     s.plane->image_coords(io.MousePos.x * sx, fb_h - io.MousePos.y * sy);
  if (!press && !e.pressed) return;  // the samples are built only when used
  const PlaneSamples* ps = explore_samples(s);
  if (!ps) {
    e.pressed = e.dragging = false;
    return;
  }
  if (press) {
    const auto [fi, fj] = clamped(io.MousePos.x, io.MousePos.y);
    e.pressed = true;
    e.shift_seen = io.KeyShift;
    e.press_i = int(std::lround(fi)), e.press_j = int(std::lround(fj));
    e.press_u = ps->u_at(fi), e.press_v = ps->v_at(fj);
  }
  if (!e.pressed) return;
  // Shift at any frame while the button is held makes the press a line, so a quick Shift tap
  // during a drag is enough at any frame rate. Without it, the press probes a sample.
  e.shift_seen |= io.KeyShift;
  const auto [fi, fj] = clamped(io.MousePos.x, io.MousePos.y);
  if (e.shift_seen) {
    e.dragging = e.have_line = true;
    e.u0 = e.press_u, e.v0 = e.press_v, e.u1 = ps->u_at(fi), e.v1 = ps->v_at(fj);
    e.profile_serial = ~std::uint64_t(0);
  }
  if (ImGui::IsMouseDown(0)) return;
  e.pressed = e.dragging = false;  // released
  if (!e.shift_seen) {
    e.probe = std::pair{e.press_i, e.press_j};
    return;
  }
  const double len =
      std::hypot(ps->fi_of(e.u1) - ps->fi_of(e.u0), ps->fj_of(e.v1) - ps->fj_of(e.v0));
  e.have_line = e.show_plot = len >= 0.5;  // a shift-click without a drag: no line
}

void draw_explore(GuiState& s, int fb_h, float sx, float sy) {
  ExploreState& e = s.explore;
  e.probe_readout.clear();
  const auto m = plane_shown(s) ? mapping(s, fb_h, sx, sy) : std::nullopt;
  const PlaneSamples* ps = m && (e.probe || e.have_line) ? explore_samples(s) : nullptr;
  if (ps && e.probe) e.probe_readout = probe_text(*ps, e.probe->first, e.probe->second);
  if (m && ps) {
    ImDrawList* dl = ImGui::GetBackgroundDrawList();
    dl->PushClipRect(m->clip_min(), m->clip_max(), true);
    const float sc = ui_scale();
    if (e.probe) {
      const int i = std::clamp(e.probe->first, 0, ps->rows - 1);
      const int j = std::clamp(e.probe->second, 0, ps->cols - 1);
      const ImVec2 c = m->to_window(i, j);
      const float r = 6 * sc;
      dl->AddCircle(c, r, IM_COL32(0, 0, 0, 220), 16, 3.5f * sc);
      dl->AddCircle(c, r, IM_COL32(255, 255, 255, 255), 16, 1.5f * sc);
    }
    if (e.have_line) {
      const ImVec2 a = m->to_window(ps->fi_of(e.u0), ps->fj_of(e.v0));
      const ImVec2 b = m->to_window(ps->fi_of(e.u1), ps->fj_of(e.v1));
      dl->AddLine(a, b, IM_COL32(0, 0, 0, 220), 4 * sc);
      dl->AddLine(a, b, IM_COL32(255, 255, 255, 255), 1.75f * sc);
      dl->AddCircleFilled(a, 3.5f * sc, IM_COL32(255, 255, 255, 255));
      dl->AddRectFilled(ImVec2(b.x - 3.5f * sc, b.y - 3.5f * sc),
                        ImVec2(b.x + 3.5f * sc, b.y + 3.5f * sc), IM_COL32(255, 255, 255, 255));
    }
    dl->PopClipRect();
  }
  if (e.have_line && e.show_plot && plane_shown(s)) {
    update_profile(s);
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    const float sc = ui_scale();
    ImGui::SetNextWindowSize(ImVec2(420 * sc, 270 * sc), ImGuiCond_FirstUseEver);
    ImGui::SetNextWindowPos(ImVec2(vp->Size.x * 0.5f, vp->Size.y - 70 * sc), ImGuiCond_FirstUseEver,
                            ImVec2(0.5f, 1.0f));
    bool open = true;
    if (ImGui::Begin("Line profile", &open, ImGuiWindowFlags_NoCollapse)) {
      if (e.profile && ps) {
        const int col = ps->column(e.shown_column);
        const PlaneColumn* pc = col >= 0 ? &ps->columns[std::size_t(col)] : nullptr;
        ImGui::Text("%s from (%.4g, %.4g) to (%.4g, %.4g), %zu points", e.shown_column.c_str(),
                    e.u0, e.v0, e.u1, e.v1, e.profile->rows.size());
        if (ImGui::Button("Save CSV (P)")) e.want_save_csv = true;
        ImGui::SameLine();
        if (ImGui::Button("Clear line")) e.have_line = e.show_plot = false;
        if (col >= 0 && pc)
          draw_profile_plot(*e.profile, e.profile->first_value_column + col,
                            ui_text(pc->label + (pc->unit.empty() ? "" : " [" + pc->unit + "]")),
                            sc);
      } else {
        ImGui::TextUnformatted("no profile: the shown output has no plane samples");
      }
    }
    ImGui::End();
    if (!open) e.show_plot = e.have_line = false;
  }
  if (e.want_save_csv) {
    e.want_save_csv = false;
    save_profile_csv(s);
  }
}

void draw_probe_panel(GuiState& s) {
  if (s.worker->workload().view_kind(s.params) != ViewKind::Plane) return;
  ImGui::Separator();
  ImGui::TextUnformatted("Probe");
  ImGui::SameLine();
  ImGui::TextDisabled("(click; shift-drag: line profile)");
  if (s.explore.probe_readout.empty()) return;
  SIMSCOPE_TEXT_WRAPPED("%s", s.explore.probe_readout.c_str());
  if (ImGui::SmallButton("clear probe")) s.explore.probe.reset();
}

void add_explore_text(const GuiState& s, std::map<std::string, std::string>& text) {
  const ExploreState& e = s.explore;
  if (const std::string c = compare_summary(s); !c.empty())
    text["simscope.compare"] = c;
  if (!e.probe_readout.empty()) text["simscope.probe"] = e.probe_readout;
  add_last_run_text(s, text);  // the view panel's "Last run" lines (stats_panel.hpp)
  if (const std::string h = plot_hover_this_frame(); !h.empty())
    text["simscope.plot_hover"] = h;
  if (e.have_line && e.profile) {
    char buf[200];
    std::snprintf(buf, sizeof buf, "%s: (%.9g, %.9g) -> (%.9g, %.9g), %zu points",
                  e.shown_column.c_str(), e.u0, e.v0, e.u1, e.v1, e.profile->rows.size());
    text["simscope.profile"] = buf;
  }
}

}  // namespace simscope::app::gui
