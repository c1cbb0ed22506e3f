#include "headless.hpp"

#include <unistd.h>

#include <QDir>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>
#include <tuple>

#include "core/error.hpp"
#include "export.hpp"
#include "output_checks.hpp"
#include "render/gl_context.hpp"
#include "render/offscreen.hpp"
#include "render/plane_view.hpp"
#include "run_manifest.hpp"
#include "session.hpp"
#include "view_settings.hpp"
#include "worker.hpp"

namespace simscope::app {
namespace {

/// Runs the job on a Worker and shows "field: 42% ETA 3 s" on stderr while it takes long, after
/// the back end's notice (printed once: here before the first progress line, else by the caller
/// after a successful run, so that a failed run prints its error as the only line).
RunResult run_with_progress(Worker& worker, const Session& s, bool quiet, bool& notice_printed) {
  worker.submit(s.params, s.backend.backend, false);
  const bool tty = isatty(STDERR_FILENO);
  double last_print = 0;
  bool printed = false;
  for (;;) {
    if (auto ev = worker.poll()) {
      if (printed) std::fprintf(stderr, tty ? "\r%60s\r" : "\n", "");
      if (!ev->error.empty()) throw Error(ev->error);
      return std::move(*ev->result);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    const double t = worker.elapsed_seconds();
    if (!quiet && t > 1.0 && t - last_print > (tty ? 0.25 : 5.0)) {
      if (!notice_printed && !s.backend.notice.empty())
        std::fprintf(stderr, "simscope: %s\n", s.backend.notice.c_str());
      notice_printed = true;
      const double f = worker.progress();
      const double eta = f > 0.01 ? t * (1 - f) / f : 0;
      std::fprintf(stderr,
                   tty ? "\r%s: %3.0f%%  elapsed %.1f s  ETA %.1f s   "
                       : "%s: %3.0f%%  elapsed %.1f s  ETA %.1f s\n",
                   worker.workload().name().c_str(), 100 * f, t, eta);
      std::fflush(stderr);
      last_print = t;
      printed = true;
    }
  }
}

}  // namespace

int run_headless(const CliOptions& o) {
  try {
    Session s = make_session(o);
    const std::string dir = o.out_dir.empty() ? "simscope-out" : o.out_dir;
    check_output_dir(dir);
    if (!o.out_image.empty()) check_output_file(o.out_image, dir);
    const std::string workload_name = s.workload->name();
    const std::string view_param = s.workload->view_param();
    Worker worker(std::move(s.workload));
    bool notice_printed = false;
    RunResult r = run_with_progress(worker, s, o.quiet, notice_printed);
    const Workload& viewer = worker.workload();

    RenderInfo info;
    std::optional<ExportImage> image;
    if (!o.no_image) {
      const auto t0 = std::chrono::steady_clock::now();
      const ViewImage vi = viewer.view_image(r, r.params.get_string(view_param));
      if (to_render_settings(s.view, vi).log_scale &&
          std::any_of(vi.data.begin(), vi.data.end(), [](float v) { return v <= 0; }))
        r.warnings.push_back("view.png: log scale, but " + vi.label +
                             " has values <= 0, drawn in the lowest colour (use "
                             "--set view.scale=linear for signed outputs)");
      auto ctx = render::create_context("egl");
      render::Offscreen target(o.image_width, o.image_height);
      target.bind();
      render::PlaneView view;
      view.set_settings(to_render_settings(s.view, vi));
      if (r.device_view &&
          vi.rows * vi.cols == int(r.find(r.params.get_string(view_param))->data.size()))
        view.set_data_device(r.device_view.get(), vi.rows, vi.cols);
      else
        view.set_data_host(vi.data.data(), vi.rows, vi.cols);
      view.draw(0, 0, o.image_width, o.image_height);
      ExportImage img;
      img.path = o.out_image.empty()
                     ? QDir(QString::fromStdString(dir)).filePath("view.png").toStdString()
                     : o.out_image;
      img.rgba = target.read_rgba();
      img.width = o.image_width;
      img.height = o.image_height;
      image = std::move(img);
      info.context = ctx->backend_name();
      info.renderer = ctx->renderer();
      info.upload_path = view.upload_path();
      info.output = r.params.get_string(view_param);
      info.colormap = view.settings().colormap;
      info.scale = view.settings().log_scale ? "log" : "linear";
      std::tie(info.range_lo, info.range_hi) = view.range();
      info.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }
    const QJsonObject manifest = run_manifest(r, s.backend.notice, info);
    const auto written = export_run(r, dir, manifest, image ? &*image : nullptr);
    if (!o.quiet && !notice_printed && !s.backend.notice.empty())
      std::fprintf(stderr, "simscope: %s\n", s.backend.notice.c_str());
    for (const auto& w : r.warnings) std::fprintf(stderr, "simscope: warning: %s\n", w.c_str());
    if (!o.quiet) {
      std::printf("simscope: %s on %s in %.3f s (compute %.3f s); wrote:\n", workload_name.c_str(),
                  to_string(r.backend), r.total_seconds + info.seconds, r.compute_seconds);
      for (const auto& w : written) std::printf("  %s\n", w.c_str());
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "simscope: error: %s\n", e.what());
    return 1;
  }
}

}  // namespace simscope::app
