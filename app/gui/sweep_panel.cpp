// Parameter sweeps in the window (sweep_panel.hpp).
#include "sweep_panel.hpp"

#include <imgui.h>

#include <cstdio>
#include <filesystem>

#include "file_names.hpp"
#include "fonts.hpp"
#include "gui_state.hpp"
#include "image_export.hpp"
#include "image_size.hpp"
#include "job/projection.hpp"
#include "output/run_manifest.hpp"
#include "sweep_frame.hpp"

namespace simscope::app::gui {
namespace {

/// A new folder STEM<local time> (unused_name: "-2", "-3"... when taken) with frames/ in it.
/// Throws Error naming the folder when it cannot be made.
std::string new_folder(const std::string& stem) {
  const std::string dir = unused_name(stem + local_timestamp(), "");
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(dir) / "frames", ec);
  if (ec) throw Error("cannot create the folder " + dir + "/frames (" + ec.message() + ")");
  return dir;
}

void stop(GuiState& s, const std::string& message, bool failed) {
  s.sweep.running = false;
  s.sweep.awaiting = false;
  if (failed)
    action_failed(s, message);
  else
    action_done(s, message);
}

void finish(GuiState& s) {
  SweepState& w = s.sweep;
  std::string note;
  const std::string video = make_sweep_video(w.dir, note);
  const std::string manifest =
      (std::filesystem::path(w.dir) / "run.json").string();
  write_json_file(manifest, sweep_manifest(s.workload_name, to_string(s.backend.backend), w.spec,
                                           video, w.items));
  stop(s,
       "sweep done: " + std::to_string(w.frames.size()) + " frames" +
           (video.empty() ? " (" + note + ")" : " and sweep.mp4") + " in " + w.dir,
       false);
}

}  // namespace

void start_sweep(GuiState& s, const SweepSpec& spec, int w, int h) {
  if (s.worker->workload().continuous(s.params)) {
    std::string which;  // the workloads whose runs end (not a live view that goes on)
    for (const std::string& n : workload_names())
      if (const auto w = make_workload(n); !w->continuous(w->schema().defaults()))
        which += (which.empty() ? "" : " and ") + n;
    throw Error("sweeps in the window are for " + which + "; sweep " + s.workload_name +
                " headless (simscope --headless --sweep ...)");
  }
  SweepState& st = s.sweep;
  st.frames = sweep_params(s.params, spec);
  st.spec = spec;
  st.dir = new_folder("simscope-sweep-");
  st.w = w, st.h = h;
  st.next = 0;
  st.awaiting = false;
  st.items = Json::array();
  st.t0 = std::chrono::steady_clock::now();
  st.running = true;
  s.paused = false;
  action_done(s, "sweep of " + spec.param + " over " + std::to_string(spec.frames) +
                     " frames into " + st.dir);
}

namespace {

/// Saves the centre view, at its size on screen, as frame `k` of `dir` with the result's
/// parameters. Returns the frame's run.json entry, with the result's stats.
Json save_frame(GuiState& s, const std::string& dir, std::size_t k, int w, int h,
                const std::string& caption) {
  const std::vector<std::uint8_t> rgba = render_view_offscreen(s, w, h, caption);
  Json item = write_sweep_frame(dir, k, rgba, w, h, *s.result, "record").item;
  Json stats = Json::object();
  for (const auto& [key, v] : s.result->stats) stats[key] = json_number(v);
  for (const auto& [key, v] : s.result->stat_texts) stats[key] = v;
  item["stats"] = stats;
  return item;
}

void advance_record(GuiState& s) {
  RecordState& r = s.record;
  if (r.pending_cli > 0 && s.result && !s.result->preview) {
    const int n = r.pending_cli;
    r.pending_cli = 0;
    try {
      start_record(s, n);
    } catch (const std::exception& e) {
      action_failed(s, e.what());
    }
  }
  // A plane's image is refreshed at the top of the frame; a workload's own view draws from the
  // result itself.
  const bool plane = s.worker->workload().view_kind(s.params) == ViewKind::Plane;
  if (r.total <= 0 || !s.result || s.result->preview || s.result_serial == r.last_serial ||
      (plane && s.image_dirty))
    return;
  r.last_serial = s.result_serial;
  try {
    const int w = s.image_export.view_w, h = s.image_export.view_h;
    const std::string caption =
        "recorded frame " + std::to_string(r.done + 1) + " of " + std::to_string(r.total);
    r.items.push_back(save_frame(s, r.dir, std::size_t(r.done), w, h, caption));
    if (++r.done < r.total) return;
    std::string note;
    const std::string video = make_sweep_video(r.dir, note);
    write_json_file((std::filesystem::path(r.dir) / "run.json").string(),
                    sweep_manifest(s.workload_name, to_string(s.backend.backend),
                                   SweepSpec{"", 0, 0, r.total}, video, r.items));
    action_done(s, "recording done: " + std::to_string(r.total) + " frames" +
                       (video.empty() ? " (" + note + ")" : " and sweep.mp4") + " in " + r.dir);
    r.total = 0;
  } catch (const std::exception& e) {
    r.total = 0;
    action_failed(s, "recording stopped at frame " + std::to_string(r.done) + ": " + e.what());
  }
}

}  // namespace

void start_record(GuiState& s, int frames) {
  if (frames < 1 || frames > 100000) throw Error("record: frames must be 1 ... 100000");
  RecordState& r = s.record;
  r.dir = new_folder("simscope-record-");
  r.total = frames;
  r.done = 0;
  r.items = Json::array();
  r.last_serial = s.result_serial;  // from the next result on
  action_done(s, "recording " + std::to_string(frames) + " frames into " + r.dir);
}

void advance_sweep(GuiState& s) {
  advance_record(s);
  SweepState& w = s.sweep;
  if (!w.pending_cli.empty() && s.result && !s.result->preview) {
    const std::string text = w.pending_cli;
    w.pending_cli.clear();
    try {
      start_sweep(s, parse_sweep(text), s.image_export.view_w, s.image_export.view_h);
    } catch (const std::exception& e) {
      action_failed(s, e.what());
    }
  }
  if (!w.running) return;
  if (!w.awaiting) {
    s.params = w.frames[w.next];  // the window's loop submits it
    w.awaiting = true;
    w.serial = s.result_serial;
    // A frame whose parameters are those of the result shown, e.g. the first, is not recomputed.
    w.shown_already =
        s.result && !s.result->preview && s.result->params == w.frames[w.next] && !s.worker->busy();
    return;
  }
  if (!s.error.empty() && !s.worker->busy()) {
    stop(s, "sweep stopped at frame " + std::to_string(w.next) + ": " + s.error, true);
    return;
  }
  if ((s.result_serial == w.serial && !w.shown_already) || !s.result || s.result->preview ||
      s.result->params != w.frames[w.next] || s.image_dirty)
    return;
  try {
    const std::vector<std::uint8_t> rgba =
        render_view_offscreen(s, w.w, w.h, sweep_caption(w.spec, w.frames[w.next], w.next));
    Json item = write_sweep_frame(w.dir, w.next, rgba, w.w, w.h, *s.result, w.spec.param).item;
    item["value"] = json_number(w.frames[w.next].get_double(w.spec.param));
    w.items.push_back(std::move(item));
    ++w.next;
    w.awaiting = false;
    if (w.next == w.frames.size()) finish(s);
  } catch (const std::exception& e) {
    stop(s, "sweep stopped at frame " + std::to_string(w.next) + ": " + e.what(), true);
  }
}

void draw_sweep_panel(GuiState& s) {
  SweepState& w = s.sweep;
  ImGui::Separator();
  if (!ImGui::CollapsingHeader("Sweep / record")) return;
  if (w.running) {
    const double done = double(w.next) / double(w.frames.size());
    const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - w.t0).count();
    char buf[96];
    if (const auto eta = eta_from_start(done, t, 0.0))  // from the first whole frame on
      std::snprintf(buf, sizeof buf, "frame %zu/%zu  ETA %.1f s", w.next + 1, w.frames.size(),
                    *eta);
    else
      std::snprintf(buf, sizeof buf, "frame 1/%zu  ETA --", w.frames.size());
    ImGui::ProgressBar(float(done), ImVec2(-1, 0), buf);
    if (ImGui::SmallButton("Cancel sweep"))
      stop(s, "sweep cancelled after " + std::to_string(w.next) + " frames (in " + w.dir + ")",
           false);
    return;
  }
  std::vector<const ParamSpec*> numeric;
  for (const ParamSpec& p : s.params.schema().specs())
    if (p.type == ParamType::Int || p.type == ParamType::Float) numeric.push_back(&p);
  if (numeric.empty()) return;
  if (w.param < 0 || w.param >= int(numeric.size())) {
    w.param = 0;
    w.start = s.params.get_double(numeric[0]->name);
    w.stop = numeric[0]->has_range() ? numeric[0]->max : w.start * 2;
  }
  if (ImGui::BeginCombo("parameter", numeric[std::size_t(w.param)]->name.c_str())) {
    for (int k = 0; k < int(numeric.size()); ++k)
      if (ImGui::Selectable(numeric[std::size_t(k)]->name.c_str(), k == w.param)) {
        w.param = k;
        w.start = s.params.get_double(numeric[std::size_t(k)]->name);
        w.stop = w.start * 2;
      }
    ImGui::EndCombo();
  }
  ImGui::InputDouble("start", &w.start, 0, 0, "%.6g");
  ImGui::InputDouble("stop", &w.stop, 0, 0, "%.6g");
  ImGui::InputInt("frames", &w.count);
  if (!w.size[0])
    std::snprintf(w.size, sizeof w.size, "%dx%d", s.image_export.view_w, s.image_export.view_h);
  ImGui::InputText("size WxH", w.size, sizeof w.size);
  if (ImGui::Button("Run sweep")) {
    w.start_clicked = true;
  }
  ImGui::Separator();
  if (s.record.total > 0) {
    ImGui::ProgressBar(float(s.record.done) / float(s.record.total), ImVec2(-1, 0));
    if (ImGui::SmallButton("Stop recording")) {
      s.record.total = 0;
      action_done(s, "recording stopped after " + std::to_string(s.record.done) + " frames");
    }
  } else {
    ImGui::SetNextItemWidth(80 * ui_scale());
    ImGui::InputInt("##record", &s.record.count);
    ImGui::SameLine();
    if (ImGui::Button("Record frames")) {
      try {
        start_record(s, s.record.count);
      } catch (const std::exception& e) {
        action_failed(s, e.what());
      }
    }
  }
  if (w.start_clicked) {
    w.start_clicked = false;
    try {
      const auto [iw, ih] = parse_image_size(w.size);
      SweepSpec spec{numeric[std::size_t(w.param)]->name, w.start, w.stop, w.count};
      if (w.count < 2 || w.count > 100000) throw Error("sweep: frames must be 2 ... 100000");
      start_sweep(s, spec, iw, ih);
    } catch (const std::exception& e) {
      action_failed(s, e.what());
    }
  }
}

}  // namespace simscope::app::gui
