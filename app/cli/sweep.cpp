#include "sweep.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <thread>

#include "core/error.hpp"
#include "headless_view.hpp"
#include "job/worker.hpp"
#include "output/run_manifest.hpp"
#include "output_checks.hpp"
#include "progress_line.hpp"
#include "session.hpp"
#include "stale_outputs.hpp"
#include "stop_signals.hpp"
#include "sweep_frame.hpp"
#include "sweep_video.hpp"
#include "view/view_schema.hpp"
#include "view_png_export.hpp"
#include "view_settings.hpp"

namespace simscope::app {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

/// Thrown when a stop signal (stop_signals.hpp) ended the sweep.
struct SweepInterrupted {
  int signal;
};

/// Runs one frame's parameters on the worker. Throws the error of a failed run, or
/// SweepInterrupted on a stop signal.
RunResult run_one(Worker& worker, const ParamSet& p, Backend backend) {
  worker.submit(p, backend, false);
  for (;;) {
    if (const int sig = stop_signal()) {
      worker.cancel();
      while (worker.busy()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
      throw SweepInterrupted{sig};
    }
    if (auto ev = worker.poll()) {
      if (!ev->error.empty()) throw Error(ev->error);
      return std::move(*ev->result);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

}  // namespace

int run_sweep(const RunOptions& o) {
  std::vector<std::string> written;  // removed again on an error: no partial sweep is left
  fs::path made_frames, made_dir;    // frames/ and --out-dir, when this sweep created them
  // On an error or a stop: removes the files written, then frames/ and --out-dir if this sweep
  // made them; a folder is removed only when empty.
  auto remove_written = [&] {
    std::error_code ec;  // what cannot be removed stays
    for (const std::string& w : written) fs::remove(w, ec);
    for (const fs::path* d : {&made_frames, &made_dir})
      if (!d->empty() && fs::is_directory(*d, ec)) fs::remove(*d, ec);  // empty ones only
  };
  ProgressLine progress("sweep", o.quiet);  // cleared before any other line that follows
  try {
    const SweepSpec spec = parse_sweep(o.sweep);
    Session s = make_session(o);
    const std::vector<ParamSet> frames = sweep_params(s.params, spec);
    const std::string dir = o.out_dir.empty() ? "simscope-out" : o.out_dir;
    check_output_dir(dir);
    const fs::path frames_dir = fs::path(dir) / "frames";
    // The folder is prepared once the first frame is drawn; an earlier error leaves it intact.
    auto prepare_dir = [&] {
      remove_stale_outputs(dir, OutputsKept{false, false, true, false});  // a reused --out-dir
      std::error_code ec;
      if (!fs::is_directory(dir, ec)) made_dir = dir;
      if (!fs::is_directory(frames_dir, ec)) made_frames = frames_dir;
      fs::create_directories(frames_dir, ec);
      if (ec || !fs::is_directory(frames_dir, ec))
        throw Error("cannot create the folder " + frames_dir.string());
    };
    const std::string view_param = s.workload->view_param();
    Worker worker(std::move(s.workload));
    HeadlessView view(o.image_width, o.image_height);
    Json list = Json::array();
    std::string log_note;  // log_scale_warning of the first frame with values <= 0
    const auto t0 = Clock::now();
    for (std::size_t f = 0; f < frames.size(); ++f) {
      const RunResult r = run_one(worker, frames[f], s.backend.backend);
      const ViewImage vi = worker.workload().view_image(r, r.params.get_string(view_param));
      const render::ViewSettings settings = to_render_settings(s.view, vi, true, s.view_given);
      // A log scale over values <= 0 is reported once, for the first frame that has them.
      if (settings.log_scale && log_note.empty())
        if (std::string w = log_scale_warning(vi.label, vi.data.host()); !w.empty())
          log_note = "frames (from frame " + std::to_string(f) + "): " + w;
      const std::vector<std::uint8_t> rgba =
          view.draw(vi, settings, sweep_caption(spec, frames[f], f));  // in a strip of its own
      if (f == 0) prepare_dir();
      SweepFrame frame =
          write_sweep_frame(dir, f, rgba, o.image_width, o.image_height, r, spec.param,
                            render_view_json(view.info(r.params.get_string(view_param))));
      written.push_back(frame.path);
      frame.item["value"] = json_number(frames[f].get_double(spec.param));
      frame.item["warnings"] = r.warnings;
      list.push_back(std::move(frame.item));
      // The back end's notice once the first frame is drawn, so an error there is the only line.
      if (!o.quiet && f == 0 && !s.backend.notice.empty())
        std::fprintf(stderr, "simscope: %s\n", s.backend.notice.c_str());
      progress.update(double(f + 1) / double(frames.size()),
                      std::chrono::duration<double>(Clock::now() - t0).count());
    }
    progress.clear();
    std::string note;
    const std::string video = make_sweep_video(dir, note);
    if (!video.empty()) written.push_back(video);
    const std::string manifest = (fs::path(dir) / "run.json").string();
    Json m = sweep_manifest(frames.front().schema().workload(), to_string(s.backend.backend), spec,
                            video, list);
    m["warnings"] = Json::array();
    for (const std::string* w : {&log_note, &note})
      if (!w->empty()) m["warnings"].push_back(*w);
    for (const std::string& w : view_schema().unused_warnings(s.view)) m["warnings"].push_back(w);
    write_json_file(manifest, m);
    written.push_back(manifest);
    for (const Json& w : m["warnings"])
      std::fprintf(stderr, "simscope: warning: %s\n", w.get<std::string>().c_str());
    if (!o.quiet) {
      std::printf("simscope: sweep of %s over %d frames; wrote:\n", spec.param.c_str(),
                  spec.frames);
      for (const auto& w : written) std::printf("  %s\n", w.c_str());
    }
    return 0;
  } catch (const SweepInterrupted& i) {
    progress.clear();
    remove_written();
    std::fprintf(stderr, "simscope: interrupted by %s; no outputs written\n",
                 signal_name(i.signal));
    return 128 + i.signal;
  } catch (const std::exception& e) {
    progress.clear();
    remove_written();
    std::fprintf(stderr, "simscope: error: %s\n", e.what());
    return 1;
  }
}

}  // namespace simscope::app
