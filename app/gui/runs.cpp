// The window's runs (runs.hpp).
#include "runs.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>

#include "gui_state.hpp"
#include "view/view_schema.hpp"
#include "window.hpp"

namespace simscope::app::gui {
namespace {

/// A run no longer than this (its last full run's compute time) is interactive (runs.hpp).
constexpr double kInteractiveSeconds = 1.0;

/// A full result's checks (the field tree's measured error) and warm-up wait for this pause in
/// the input (Worker::set_follow_up_delay): during a drag they would take the cores from the
/// next run and from the frame showing the result.
constexpr double kFollowUpPause = 0.2;

/// Parameters without the view selector, to tell whether a change needs recomputation.
ParamSet without_view(ParamSet p, const std::string& view_param) {
  p.set(view_param, p.schema().at(view_param).default_value);
  return p;
}

/// "plane.offset=300, grid.size=64": the parameters whose values differ between a and b, of
/// one schema; "" when none or when the schemas differ.
std::string changed_params(const ParamSet& a, const ParamSet& b) {
  if (&a.schema() != &b.schema()) return "";
  std::string out;
  for (const ParamSpec& spec : a.schema().specs()) {
    const ParamValue& v = b.get(spec.name);
    if (a.get(spec.name) == v) continue;
    // format_value's shortest text, but whole numbers in full: 300, not 3e+02.
    const double* d = std::get_if<double>(&v);
    std::string text = format_value(v);
    if (d && *d == std::floor(*d) && std::abs(*d) < 1e15) {
      char whole[32];
      std::snprintf(whole, sizeof whole, "%.0f", *d);
      text = whole;
    }
    out += (out.empty() ? "" : ", ") + spec.name + "=" + text;
  }
  return out;
}

/// "simscope: field result shown (computed in S s; 131 ms after its input; plane.offset=300)":
/// " + preview P s" after S where its coarse preview ran first; the time since its parameters
/// were submitted, when they are the newest, and the parameters that changed since the last
/// result logged; then the result's status (result_status).
std::string shown_line(const GuiState& s, double seconds, ResultLog& log) {
  std::string line = "simscope: " + s.workload_name + " result shown (computed in ";
  char buf[96];
  std::snprintf(buf, sizeof buf, "%.3f s", seconds);
  line += buf;
  if (s.result_preview_seconds > 0) {  // the preview before it (a first run's tree build)
    std::snprintf(buf, sizeof buf, " + preview %.3f s", s.result_preview_seconds);
    line += buf;
  }
  const std::string view_param = s.worker->workload().view_param();
  if (without_view(s.result->params, view_param) == without_view(s.submitted, view_param)) {
    const double ms = std::chrono::duration<double, std::milli>(
                          std::chrono::steady_clock::now() - s.submitted_at).count();
    std::snprintf(buf, sizeof buf, "; %.0f ms after its input", ms);
    line += buf;
  }
  if (log.last_shown) {
    const std::string changed = changed_params(*log.last_shown, s.result->params);
    if (!changed.empty()) line += "; " + changed;
  }
  log.last_shown = s.result->params;
  const std::string t = result_status(s);
  return line + ")" + (t.empty() ? "" : ": ") + t;
}

}  // namespace

void start_worker(GuiState& s, std::unique_ptr<Workload> workload) {
  s.worker = std::make_unique<Worker>(std::move(workload));
  s.worker->set_interactive(true);  // checks such as the tree's error after the frame
  s.worker->set_follow_up_delay(kFollowUpPause);
  s.worker->set_notify([] { Window::wake(); });  // a result wakes the waiting loop
}

void submit(GuiState& s, RunCommand command) {
  if (s.paused && command == RunCommand::Whole) return;
  s.submitted = s.params;
  s.submitted_at = std::chrono::steady_clock::now();
  if (s.latency.on())
    s.latency.submitted(without_view(s.params, s.worker->workload().view_param()), s.last_input_at,
                        s.submitted_at);
  const bool live = s.worker->workload().continuous(s.params);
  // A coarse preview first unless the last full run was interactive (kInteractiveSeconds).
  // The first run always previews, since its cost is unknown. Live workloads advance a state,
  // so no previews.
  const bool interactive = s.last_full_seconds > 0 && s.last_full_seconds <= kInteractiveSeconds;
  const bool preview = !live && !interactive;
  const bool whole = command == RunCommand::Whole;
  s.worker->submit(s.params, s.backend.backend, preview, whole && live ? RunCommand::Live : command,
                   nullptr, whole && interactive ? Supersede::FinishFull : Supersede::Cancel);
}

bool params_changed(const GuiState& s) {
  const std::string view_param = s.worker->workload().view_param();
  return without_view(s.params, view_param) != without_view(s.submitted, view_param);
}

void continue_live(GuiState& s) {
  if (s.worker->workload().continuous(s.params) && !s.paused && !s.worker->busy() &&
      s.error.empty() && s.result)
    submit(s);
}

namespace {
/// Whether the workload counts its full result `r` as a first full result
/// (WorkloadDescriptor::first_full).
bool first_full(const RunResult& r) {
  const WorkloadDescriptor* d = find_workload_descriptor(r.workload);
  return !d || !d->first_full || d->first_full(r);
}
}  // namespace

void take_results(GuiState& s, ResultLog& log) {
  while (auto ev = s.worker->poll()) {
    // --frames counts from the first full result or error: not from a coarse preview, nor
    // from a frame whose measured error is still to come (its follow-up counts), nor from one
    // its workload does not count whole yet (a live frame before its plots draw a curve).
    if (!ev->result || ev->follow_up ||
        (!ev->result->preview && !ev->result->stats.count("error_pending") &&
         first_full(*ev->result)))
      log.have_first = true;
    if (!ev->error.empty()) {
      if (ev->error != log.run_error)  // once per error, as the headless front end says it
        std::fprintf(stderr, "simscope: error: %s\n", ev->error.c_str());
      log.run_error = ev->error;
      s.error = ev->error;
      s.action_error.clear();
    } else if (ev->follow_up) {
      // The full result completed after it was shown, e.g. the field tree's measured error.
      // It is the same frame unless the error made the tree evaluate again, tighter.
      s.result = std::move(ev->result);
      log.shown_lines.push_back("simscope: " + s.workload_name + " follow-up shown: " +
                                result_status(s));
      ++s.result_serial;
      s.image_dirty = true;
      s.extras->on_result(s);
    } else {
      if (!ev->result->preview) s.last_full_seconds = ev->result->compute_seconds;
      s.result_preview_seconds = ev->result->preview ? 0 : ev->preview_seconds;
      for (const std::string& w : s.view_warnings) ev->result->warnings.push_back(w);
      if (!ev->result->preview) s.view_warnings.clear();  // shown with the first full result
      // One line per full result; for a live workload, its first after a switch. The GUI
      // tests wait for it (tests/e2e/gui_util.py). The result's status (the field tree's)
      // follows as the status bar shows it, its error "measuring" until the follow-up line.
      const bool log_shown =
          !ev->result->preview && !(s.result && s.worker->workload().continuous(s.params));
      const double seconds = ev->result->compute_seconds;
      s.result = std::move(ev->result);
      log.run_error.clear();
      if (log_shown) {
        log.shown_lines.push_back(shown_line(s, seconds, log));
        if (s.latency.on())
          s.latency.polled(without_view(s.result->params, s.worker->workload().view_param()),
                           ev->started, ev->finished, std::chrono::steady_clock::now());
      }
      ++s.result_serial;
      s.error.clear();
      s.image_dirty = true;
      s.extras->on_result(s);  // before the next live run is submitted
    }
  }
}

void switch_workload(GuiState& s, const std::string& name) {
  try {
    auto w = make_workload(name);
    s.saved_views[s.workload_name] = {s.view, s.hinted_for, s.zoom, s.zoom_cu, s.zoom_cv,
                                      s.colormap_chosen};
    s.params = w->schema().defaults();
    start_worker(s, std::move(w));
    s.extras = make_workload_gui(name);
    s.workload_name = name;
    if (const auto it = s.saved_views.find(name); it != s.saved_views.end()) {
      s.view = it->second.view;
      s.hinted_for = it->second.hinted_for;
      s.zoom = it->second.zoom, s.zoom_cu = it->second.zoom_cu, s.zoom_cv = it->second.zoom_cv;
      s.colormap_chosen = it->second.colormap_chosen;
    } else {
      s.view = view_schema().defaults();
      s.hinted_for.clear();
      s.colormap_chosen = false;
      s.zoom = 1, s.zoom_cu = s.zoom_cv = 0.5;
    }
    s.result.reset();
    s.result_preview_seconds = 0;
    s.image = ViewImage{};
    s.histogram.clear();
    s.cursor_text.clear();
    s.error.clear();
    s.action_error.clear();
    s.last_full_seconds = 0;
    s.info = "workload " + name;
    submit(s);
  } catch (const std::exception& e) {
    s.error = e.what();
  }
}

}  // namespace simscope::app::gui
