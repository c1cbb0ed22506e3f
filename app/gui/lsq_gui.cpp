// The lsq window extras in the right panel: the range of view.component (the View panel draws
// it under the view choice) for the result shown; a status legend with the map's colours; a
// histogram of the RMS residuals; and an inspector for the pixel last clicked, with its observed
// values (gaps marked) against the fit A x, its solution vector, status, residual and condition.
#include <imgui.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "fonts.hpp"
#include "gui_state.hpp"
#include "hover_tip.hpp"
#include "lsq/lsq_result.hpp"
#include "lsq/lsq_workload.hpp"
#include "render/colormap.hpp"
#include "visible_wrap.hpp"
#include "workload_gui.hpp"
#include "xy_plot.hpp"

namespace simscope::app::gui {
namespace {

ImU32 rgb(const std::array<float, 3>& c, float a = 1.f) {
  return ImGui::ColorConvertFloat4ToU32(ImVec4(c[0], c[1], c[2], a));
}

class LsqGui final : public WorkloadGui {
 public:
  void on_click(GuiState& s, int i, int j) override {
    const LsqPayload* pl = payload(s);
    if (!pl) return;
    std::size_t h = 0, w = 0;
    lsq_image_to_pixel(*pl->result, i, j, h, w);
    if (h >= pl->result->height || w >= pl->result->width) return;
    sel_h_ = long(h * pl->stride);
    sel_w_ = long(w * pl->stride);
  }

  /// describe_sample names the pixel as h (row, top to bottom) and w, the indices of the
  /// exported (H, W) maps and of solution[:, h, w]. The view's own (i, j) are transposed and
  /// flipped (lsq_image_to_pixel), so they are not shown.
  std::string sample_index(const GuiState&, int, int) const override { return ""; }

  /// view.component (drawn in the View panel under the view choice): 0 .. N - 1 of the result
  /// shown.
  void narrow_view_param(const GuiState& s, ParamSpec& spec) const override {
    const LsqPayload* pl = payload(s);
    if (spec.name == "view.component" && pl && pl->result->n > 0)
      spec.max = std::min(spec.max, double(pl->result->n - 1));
  }

  void draw_panel(GuiState& s) override {
    const LsqPayload* pl = payload(s);
    ImGui::Separator();
    ImGui::TextDisabled("Least squares");
    if (!pl) {
      SIMSCOPE_TEXT_WRAPPED("No result yet.");
      return;
    }
    const lsq::Result& r = *pl->result;
    const LsqMaps maps = lsq_maps(*s.result);
    legend(s, r);
    residual_histogram(pl->result, maps.residual->values<float>());  // its one host copy
    inspector(*pl, maps);
  }

 private:
  static const LsqPayload* payload(const GuiState& s) {
    if (!s.result) return nullptr;
    const LsqPayload* pl = s.result->payload_as<LsqPayload>();
    return pl && pl->result && pl->problem ? pl : nullptr;
  }

  /// The four status codes with the colours the map gives them and their pixel counts.
  static void legend(const GuiState& s, const lsq::Result& r) {
    static const char* names[4] = {"0 ok", "1 underdetermined", "2 rank-deficient",
                                   "3 all missing"};
    // Colours as the status view draws them: its colormap and range when it is shown, else
    // turbo over the status view's fixed range [-0.5, 3.5]. All-missing pixels are also NaN,
    // drawn grey, in the other maps.
    std::string cmap = "turbo";
    double lo = -0.5, hi = 3.5;
    if (s.params.get_string("view") == "status" && s.plane) {
      cmap = s.plane->settings().colormap;
      std::tie(lo, hi) = s.plane->range();
    }
    const render::Colormap* cm = nullptr;
    try {
      cm = &render::colormap(cmap);
    } catch (...) {
    }
    ImGui::Text("Status (view 'status'):");
    for (int c = 0; c < 4; ++c) {
      const double t = hi > lo ? (c - lo) / (hi - lo) : 0.5;
      const ImVec2 p = ImGui::GetCursorScreenPos();
      const float sz = ImGui::GetTextLineHeight();
      if (cm)
        ImGui::GetWindowDrawList()->AddRectFilled(p, ImVec2(p.x + sz, p.y + sz),
                                                  rgb(cm->sample(std::clamp(t, 0.0, 1.0))));
      ImGui::Dummy(ImVec2(sz, sz));
      ImGui::SameLine();
      ImGui::Text("%-18s %llu", names[c], (unsigned long long)r.status_counts[std::size_t(c)]);
    }
    if (r.fallback_pixels > 0)
      SIMSCOPE_TEXT_WRAPPED(
          "%llu pixels with gaps solved by SVD (Cholesky broke down or cond(G) "
          "too large)",
          (unsigned long long)r.fallback_pixels);
  }

  void residual_histogram(const std::shared_ptr<const lsq::Result>& res,
                          const std::vector<float>& residual) {
    if (res != hist_for_) {
      hist_for_ = res;
      hist_.assign(48, 0.f);
      hist_max_ = 0;
      for (float v : residual)
        if (std::isfinite(v)) hist_max_ = std::max(hist_max_, double(v));
      if (hist_max_ > 0)
        for (float v : residual)
          if (std::isfinite(v))
            hist_[std::size_t(std::min(47.0, std::floor(48.0 * v / hist_max_)))] += 1.f;
    }
    ImGui::Text("RMS residuals of all pixels:");
    // Bars at the bins' centres, with axes and a readout of the bin under the cursor.
    const std::size_t bins = hist_.size();
    const double width = hist_max_ > 0 ? hist_max_ / double(bins) : 1.0 / double(bins);
    std::vector<double> centre(bins), count(bins);
    for (std::size_t k = 0; k < bins; ++k)
      centre[k] = (double(k) + 0.5) * width, count[k] = double(hist_[k]);
    XyPlotOptions o;
    o.x_title = "RMS residual";
    o.y_title = "pixels";
    o.height = 110 * ui_scale();
    o.bars = true;
    o.hover_text = [&](std::size_t k) {
      char buf[120];
      std::snprintf(buf, sizeof buf, "RMS residual %.4g ... %.4g: %.0f pixels", double(k) * width,
                    double(k + 1) * width, count[k]);
      return std::string(buf);
    };
    draw_xy_plot("##lsqres", centre, count, o);
  }

  void inspector(const LsqPayload& pl, const LsqMaps& r) {
    ImGui::Separator();
    const lsq::Cube& cube = pl.problem->cube;
    const lsq::Design& A = pl.problem->design;
    if (sel_h_ < 0 || sel_h_ >= long(cube.height) || sel_w_ < 0 || sel_w_ >= long(cube.width)) {
      // Until the user clicks: the centre pixel.
      sel_h_ = long(cube.height / 2 / pl.stride * pl.stride);
      sel_w_ = long(cube.width / 2 / pl.stride * pl.stride);
    }
    ImGui::TextDisabled("Click a pixel of the map to inspect it.");
    const std::size_t h = std::size_t(sel_h_) / pl.stride, w = std::size_t(sel_w_) / pl.stride;
    const std::size_t q = h * r.width + w;                                         // in the result
    const std::size_t p = std::size_t(sel_h_) * cube.width + std::size_t(sel_w_);  // in the cube
    const std::size_t M = cube.m, N = A.n, P = r.height * r.width;
    if (q >= P) return;
    // One pixel's values. LsqMaps::at reads single values from device maps, never a map's copy.
    const auto status = std::uint8_t(r.at(*r.status, q));
    ImGui::Text("Pixel h=%ld w=%ld: %d of %zu observed", sel_h_, sel_w_, int(r.at(*r.count, q)),
                M);
    ImGui::Text("status %d (%s)", int(status), lsq::status_name(status));
    ImGui::Text("RMS residual %.4g   condition %.3g", r.at(*r.residual, q),
                r.at(*r.condition, q));
    std::vector<double> xq(N);
    for (std::size_t k = 0; k < N; ++k) xq[k] = r.at(*r.solution, k * P + q);
    // Data as dots, gaps as red ticks at the bottom, against the fit A x as a line, i = 0..M-1.
    std::vector<double> fit(M, NAN), data(M, NAN);
    for (std::size_t i = 0; i < M; ++i) {
      data[i] = cube.at(i, p);
      if (status != lsq::kAllMissing) {
        double f = 0;
        for (std::size_t k = 0; k < N; ++k) f += A.at(i, k) * xq[k];
        fit[i] = f;
      }
    }
    std::vector<double> idx(M);
    for (std::size_t i = 0; i < M; ++i) idx[i] = double(i);
    XyPlotOptions po;
    po.x_title = "observation i";
    po.y_title = "b_i (dots), (A x)_i (line)";
    po.height = 170 * ui_scale();
    po.dots = data;
    po.mark_gaps = true;
    po.hover_text = [&](std::size_t i) {
      char buf[160];
      if (std::isnan(data[i]))
        std::snprintf(buf, sizeof buf, "i = %zu: gap (not observed)\nfit (A x)_i = %.6g", i,
                      fit[i]);
      else
        std::snprintf(buf, sizeof buf,
                      "i = %zu: data b_i = %.6g\nfit (A x)_i = %.6g\nb - Ax = %.4g", i, data[i],
                      fit[i], data[i] - fit[i]);
      return std::string(buf);
    };
    draw_xy_plot("##lsqfit", idx, fit, po);
    ImGui::TextColored(ImVec4(0.47f, 0.75f, 1.f, 1.f), "data b_i");
    ImGui::SameLine();
    ImGui::TextColored(ImVec4(1.f, 0.78f, 0.24f, 1.f), "fit (A x)_i");
    ImGui::SameLine();
    ImGui::TextColored(ImVec4(0.9f, 0.24f, 0.24f, 1.f), "| gap");
    // The solution vector as bars, and its first entries.
    std::vector<float> x(N);
    for (std::size_t k = 0; k < N; ++k) x[k] = float(xq[k]);
    ImGui::Text("solution x (%zu unknowns):", N);
    {
      std::vector<double> kk(N), xv(N);
      for (std::size_t k = 0; k < N; ++k) kk[k] = double(k), xv[k] = double(x[k]);
      XyPlotOptions xo;
      xo.x_title = "unknown k";
      xo.y_title = "x_k";
      xo.height = 120 * ui_scale();
      xo.bars = true;
      xo.hover_text = [&](std::size_t k) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "x_%zu = %.6g", k, xv[k]);
        return std::string(buf);
      };
      draw_xy_plot("##lsqx", kk, xv, xo);
    }
    // "x = [x_0, x_1, ..., x_5, ...]", broken between numbers only.
    std::vector<std::string> tokens;
    const std::size_t shown = std::min<std::size_t>(N, 6);
    for (std::size_t k = 0; k < shown; ++k) {
      char buf[48];
      const bool last = k + 1 == shown;
      std::snprintf(buf, sizeof buf, "%s%.4g%s", k ? "" : "x = [", x[k],
                    !last   ? ","
                    : N > 6 ? ", ...]"
                            : "]");
      tokens.push_back(buf);
    }
    text_tokens_wrapped(tokens);
  }

  long sel_h_ = -1, sel_w_ = -1;
  std::shared_ptr<const lsq::Result> hist_for_;
  std::vector<float> hist_;
  double hist_max_ = 0;
};

}  // namespace

std::unique_ptr<WorkloadGui> make_lsq_gui() { return std::make_unique<LsqGui>(); }

}  // namespace simscope::app::gui
