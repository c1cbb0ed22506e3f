// The oscillators' window extras. Centre: the phase view (render::PhaseView), fed from the live
// frame in device memory through CUDA-GL interop, or from host memory. Right panel: the live
// controls (pause, step, reset, Run study), the member shown, the layout, scrolling R(t) and
// msd(t) plots, and a study's summary.
#include <glad/gl.h>
#include <imgui.h>

#include <algorithm>
#include <cfloat>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "fonts.hpp"
#include "gui_state.hpp"
#include "hover_tip.hpp"
#include "job/projection.hpp"
#include "oscillators/oscillators_workload.hpp"
#include "render/phase_view.hpp"
#include "view_upload.hpp"
#include "visible_wrap.hpp"
#include "workload_gui.hpp"
#include "xy_plot.hpp"

namespace simscope::app::gui {
namespace {

using Clock = std::chrono::steady_clock;

const OscillatorsPayload* payload_of(const GuiState& s) {
  return s.result ? s.result->payload_as<OscillatorsPayload>() : nullptr;
}

/// The last finite value, or NaN.
double last_finite(const std::vector<double>& v) {
  for (auto it = v.rbegin(); it != v.rend(); ++it)
    if (std::isfinite(*it)) return *it;
  return NAN;
}

class OscillatorsGui final : public WorkloadGui {
 public:
  /// describe_sample names member and node, the indices of phases[member, node].
  std::string sample_index(const GuiState&, int, int) const override { return ""; }

  void on_result(GuiState& s) override { catch_study_result(s, payload_of(s)); }

  void draw_panel(GuiState& s) override {
    const OscillatorsPayload* p = payload_of(s);
    ImGui::Separator();
    ImGui::TextDisabled("Oscillators");

    // Live controls.
    // Each button on the line while it fits the panel, else on the next (no label cut).
    if (ImGui::Button(s.paused ? "Run (Space)" : "Pause (Space)")) s.paused = !s.paused;
    same_line_if_room("Step");
    if (ImGui::Button("Step")) s.pending_command = RunCommand::Step;
    if (hover_tip_due()) ImGui::SetTooltip("One RK4 step of the live members (also paused)");
    same_line_if_room("Reset");
    if (ImGui::Button("Reset")) s.pending_command = RunCommand::Reset;
    if (hover_tip_due())
      ImGui::SetTooltip("Back to the initial state (init, init.seed) and step 0");
    same_line_if_room("Run study");
    const bool busy_study = study_running_ && s.worker->busy();
    if (!busy_study && study_running_) study_running_ = false;  // cancelled or superseded
    if (ImGui::Button("Run study")) start_study(s);
    if (hover_tip_due())
      ImGui::SetTooltip(
          "integrator.steps RK4 steps of all ensemble.size members on the worker: "
          "msd per member, msd(t), R(t), final phases and state (export with E)");
    if (busy_study) {
      const double f = s.worker->progress(), t = s.worker->elapsed_seconds();
      char pct[32], rate[48], eta[32];
      std::snprintf(pct, sizeof pct, "%.0f%%,", 100 * f);
      std::snprintf(rate, sizeof rate, "%.3g osc-steps/s,", t > 0 ? f * study_osc_steps_ / t : 0.0);
      std::snprintf(eta, sizeof eta, "ETA %.1f s", eta_from_start(f, t).value_or(0.0));
      text_tokens_wrapped({"study:", pct, rate, eta});
    }

    // The member shown (live.topology) and how.
    int shown = int(s.params.get_int("live.topology"));
    const int members = p ? std::max(1, p->frame.members) : 1;
    ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.55f);
    if (ImGui::SliderInt("member shown", &shown, 0, members - 1)) {
      s.params.set("live.topology", std::int64_t(std::clamp(shown, 0, members - 1)));
    }
    const char* layouts[] = {"circle", "network", "complex plane"};
    ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.55f);
    ImGui::Combo("layout", &layout_, layouts, 3);
    if (hover_tip_due())
      ImGui::SetTooltip(
          "circle: nodes in index order; network: a force-directed layout of the "
          "member's graph; complex plane: each oscillator at z = x + i y");
    same_line_if_room("  edges");  // the box and its label
    ImGui::Checkbox("edges", &edges_);

    if (!p) {
      ImGui::TextDisabled("waiting for the first result...");
      return;
    }
    // State and plots.
    const double t = p->dt * double(p->frame.step);
    ImGui::Text("%s  step %lld  t = %.4g", p->study ? "study" : "live",
                static_cast<long long>(p->frame.step), t);
    text_tokens_wrapped({"members:", std::to_string(p->frame.members), "of",
                         std::to_string(p->members), "shown", "live,",
                         "N = " + std::to_string(p->frame.nodes)});
    const bool own = p->shown == int(s.params.get_int("live.topology")) && !p->watch_order.empty();
    const std::string of = own ? " of member " + std::to_string(p->shown) : ", ensemble mean";
    std::vector<double> times(p->step.size());  // t = dt * step of each sample
    for (std::size_t k = 0; k < times.size(); ++k) times[k] = p->dt * p->step[k];
    plot(own ? p->watch_order : p->order, times, "##R", "R(t)" + of, own ? &p->order : nullptr,
         0.0f, 1.0f);
    plot(own ? p->watch_msd : p->msd, times, "##msd", "msd(t)" + of, own ? &p->msd : nullptr,
         FLT_MAX, FLT_MAX);
    // Lines that may be wider than a narrow panel (1280 x 800) wrap between words, so that the
    // panel never scrolls sideways and no number is cut.
    const auto g = [](const char* fmt, double v) {
      char b[48];
      std::snprintf(b, sizeof b, fmt, v);
      return std::string(b);
    };
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    text_tokens_wrapped({"samples every", g("%.0f", double(p->every)), "steps (record.every)"});
    ImGui::PopStyleColor();
    if (std::isfinite(p->msd_mean)) {
      if (std::isfinite(p->msd_sem))
        text_tokens_wrapped({"time-averaged msd:", g("%.6g", p->msd_mean),
                             g("+- %.2g", p->msd_sem), g("(%.0f members)", double(p->valid))});
      else
        text_tokens_wrapped({"time-averaged msd:", g("%.6g", p->msd_mean)});
    } else {
      SIMSCOPE_TEXT_WRAPPED("time-averaged msd: after integrator.transient steps");
    }
    if (p->failed > 0)
      ImGui::TextColored(ImVec4(1.f, 0.6f, 0.3f, 1.f), "%lld members went non-finite",
                         static_cast<long long>(p->failed));
    if (p->study) {
      ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0.6f, 0.9f, 0.6f, 1.f));
      text_tokens_wrapped({"study of", g("%.0f", double(p->members)), "members:",
                           g("%.3g", p->osc_steps_per_s), "osc-steps/s"});
      ImGui::PopStyleColor();
      SIMSCOPE_TEXT_WRAPPED(
          "Paused to keep the study on screen: E exports it, Space resumes the "
          "live view.");
    }
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    text_tokens_wrapped(
        {"phase view upload:", upload_path_words(view_ ? view_->upload_path() : "")});
    ImGui::PopStyleColor();
    if (view_ && !view_->upload_fallback_reason().empty() && hover_tip_due())
      wrapped_tooltip(view_->upload_fallback_reason().c_str());
    hover(s, p);
  }

  std::string upload_path() const override { return view_ ? view_->upload_path() : ""; }

  void draw_view(GuiState& s, int x, int y, int w, int h) override {
    const OscillatorsPayload* p = payload_of(s);
    if (!p || p->frame.members < 1 || p->frame.nodes < 1) return;
    try {
      if (!view_) {
        view_ = std::make_unique<render::PhaseView>();
        view_->set_background(0.13f, 0.13f, 0.16f);
      }
      view_->set_ui_scale(ui_scale());  // the fonts' scale: follows a change of monitor
      const int N = p->frame.nodes;
      const int member =
          std::clamp(int(s.params.get_int("live.topology")), 0, p->frame.members - 1);
      // The network's layout: positions of the member whose layout came with the payload.
      const OscillatorsLayout* l = p->layout.get();
      const int kind = layout_ == 1 ? 1 : 0;
      if (l && (p->layout != layout_held_ || kind != layout_kind_)) {
        const std::vector<float>& pos = kind == 1 && !l->spring.empty() ? l->spring : l->circle;
        view_->set_layout(pos.data(), l->nodes);
        view_->set_edges(l->edges);
        layout_held_ = p->layout, layout_kind_ = kind;
      }
      // The state of the member shown: from device memory when the frame is there, via CUDA-GL
      // interop or else a device-to-host copy; from host memory otherwise.
      // The payload is held until the next one is shown, so its address is not reused
      // meanwhile, and its device frame, which the ensemble never rewrites while held, stays
      // valid.
      if (s.result->payload != state_held_ || member != state_member_) {
        const std::size_t off = 2 * std::size_t(member) * N;
        if (p->frame.device)
          view_->set_state_device(p->frame.device.get() + off, N);
        else
          view_->set_state_host(p->frame.theta_r.data() + off, N);
        state_held_ = s.result->payload, state_member_ = member;
      }
      render::PhaseViewSettings vs;
      vs.layout = layout_ == 2 ? "plane" : "nodes";
      vs.edges = edges_ && (l && l->member == member);
      char title[160];
      // The title in what the view's width allows; the full one is ~45 characters of ~11 px.
      const double t = p->dt * double(p->frame.step);
      const char* mode = p->study ? "study" : "live";
      if (w >= 560)
        std::snprintf(title, sizeof title, "%s  member %d of %d   t = %.2f   N = %d", mode, member,
                      p->members, t, N);
      else if (w >= 420)
        std::snprintf(title, sizeof title, "%s  member %d/%d  t=%.2f  N=%d", mode, member,
                      p->members, t, N);
      else
        std::snprintf(title, sizeof title, "member %d/%d  t=%.2f", member, p->members, t);
      vs.title = title;
      view_->set_settings(vs);
      view_->draw(x, y, w, h);
      if (view_->upload_path() != logged_path_) {
        logged_path_ = view_->upload_path();
        const std::string why = view_->upload_fallback_reason();
        std::fprintf(stderr, "simscope: phase view upload path: %s%s%s\n", logged_path_.c_str(),
                     why.empty() ? "" : " - ", why.c_str());
      }
    } catch (const std::exception& e) {
      s.error = std::string("phase view: ") + e.what();
    }
  }

 private:
  /// A study's result on screen: pauses the live runs so it stays there for reading and
  /// export. Called as the result arrives, before the window would submit the next live run,
  /// so nothing is left to cancel. Cancelling a submitted run that the worker has not picked up
  /// would leave the worker busy and the status bar at "100% ETA 0.0 s" with a cancel button.
  void catch_study_result(GuiState& s, const OscillatorsPayload* p) {
    if (!p || !p->study || s.result->payload == last_study_) return;
    last_study_ = s.result->payload;
    study_running_ = false;
    s.paused = true;
    action_done(s,
                "study done (" + std::to_string(p->members) + " members): paused; Space resumes");
  }

  void start_study(GuiState& s) {
    s.pending_command = RunCommand::Study;
    study_running_ = true;
    study_osc_steps_ = double(s.params.get_int("ensemble.size")) *
                       double(s.params.get_int("network.nodes")) *
                       double(s.params.get_int("integrator.steps"));
  }

  /// A time series under its caption ("R(t) of member 3:") and latest value ("0.1259"). For a
  /// member's own series, the ensemble mean's latest value below it ("ensemble mean 0.31").
  static void plot(const std::vector<double>& v, const std::vector<double>& times, const char* id,
                   const std::string& what, const std::vector<double>* mean, float lo, float hi) {
    // Above the plot, since an overlay would be clipped; one line each and no wrapping, since
    // ImGui wraps at '.', which would split a number in a narrow panel.
    ImGui::Text("%s:", what.c_str());
    const double now = last_finite(v);
    if (std::isfinite(now))
      ImGui::Text("  %.4g", now);
    else
      ImGui::TextDisabled("  no sample yet");
    if (mean && std::isfinite(last_finite(*mean)))
      ImGui::TextDisabled("  ensemble mean %.4g", last_finite(*mean));
    XyPlotOptions o;  // axes and a hover readout (xy_plot.cpp)
    o.x_title = "t";
    o.height = 110 * ui_scale();
    o.fixed_y = lo != FLT_MAX;
    o.y_lo = lo, o.y_hi = hi;
    std::vector<double> t(v.size());
    for (std::size_t k = 0; k < t.size(); ++k) t[k] = k < times.size() ? times[k] : double(k);
    draw_xy_plot(id, t, v, o);
  }

  /// The oscillator under the mouse in the centre view, as a tooltip and a panel line.
  void hover(GuiState& s, const OscillatorsPayload* p) {
    if (!view_ || ImGui::GetIO().WantCaptureMouse) return;
    const ImGuiIO& io = ImGui::GetIO();
    const double px = io.MousePos.x * io.DisplayFramebufferScale.x;
    const double py = (io.DisplaySize.y - io.MousePos.y) * io.DisplayFramebufferScale.y;
    const auto i = view_->oscillator_at(px, py);
    if (!i) return;
    const int N = p->frame.nodes;
    const int member = std::clamp(int(s.params.get_int("live.topology")), 0, p->frame.members - 1);
    const std::size_t q = 2 * (std::size_t(member) * N + std::size_t(*i));
    if (q + 1 >= p->frame.theta_r.size()) return;
    char buf[160];
    std::snprintf(buf, sizeof buf, "member %d, node %d: theta = %.4f rad, r = %.4f", member, *i,
                  p->frame.theta_r[q], p->frame.theta_r[q + 1]);
    s.cursor_text = buf;
    ImGui::BeginTooltip();
    ImGui::TextUnformatted(buf);
    ImGui::EndTooltip();
  }

  std::unique_ptr<render::PhaseView> view_;
  std::shared_ptr<const OscillatorsLayout> layout_held_;
  int layout_kind_ = -1;
  std::shared_ptr<const RunPayload> state_held_;
  int state_member_ = -1;
  int layout_ = 0;  // 0 circle, 1 network, 2 complex plane
  bool edges_ = true;
  std::shared_ptr<const RunPayload> last_study_;
  bool study_running_ = false;
  double study_osc_steps_ = 0;
  std::string logged_path_;
};

}  // namespace

std::unique_ptr<WorkloadGui> make_oscillators_gui() { return std::make_unique<OscillatorsGui>(); }

}  // namespace simscope::app::gui
