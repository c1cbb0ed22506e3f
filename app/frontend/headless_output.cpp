#include "headless_output.hpp"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <optional>

#include "output/export.hpp"
#include "headless_view.hpp"
#include "output/run_manifest.hpp"
#include "view_png_export.hpp"
#include "view/view_schema.hpp"
#include "view_settings.hpp"

namespace simscope::app {

void write_headless_outputs(const RunOptions& o, const Session& s, const Workload& viewer,
                            RunResult& r, const std::string& dir, const Json& extra,
                            bool notice_printed,
                            const std::function<void(std::vector<std::string>&)>& more) {
  const std::string workload_name = viewer.name();
  const std::string view_param = viewer.view_param();
  RenderInfo info;
  std::vector<std::uint8_t> rgba;
  std::string image_path;
  // Outputs at scattered points, e.g. the field's targets.file: (T,) arrays, no image to draw.
  const OutputArray* shown = r.find(r.params.get_string(view_param));
  const bool draw = !o.no_image && !(shown && shown->shape.size() < 2);
  if (!o.no_image && !draw && !o.out_image.empty())  // asked for by --out IMAGE.png
    r.warnings.push_back("view.png not written: " + shown->name + " has shape (" +
                         std::to_string(shown->shape.empty() ? 0 : shown->shape[0]) +
                         ",), values at points rather than an image (outputs.csv holds them)");
  if (!o.no_image && !draw && o.out_image.empty() && !o.quiet)
    std::fprintf(stderr, "simscope: no view.png: the outputs are values at points (outputs.csv)\n");
  if (draw) {
    const auto t0 = std::chrono::steady_clock::now();
    const ViewImage vi = viewer.view_image(r, r.params.get_string(view_param));
    const render::ViewSettings settings = to_render_settings(s.view, vi, true, s.view_given);
    if (settings.log_scale)
      if (std::string w = log_scale_warning(vi.label, vi.data.host()); !w.empty())
        r.warnings.push_back("view.png: " + w);
    HeadlessView view(o.image_width, o.image_height);
    rgba = view.draw(vi, settings);
    image_path = o.out_image.empty() ? (std::filesystem::path(dir) / "view.png").string()
                                     : o.out_image;
    info = view.info(r.params.get_string(view_param));
    info.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  // View settings the image does not use, e.g. view.min / view.max without a locked range: warned
  // once.
  for (std::string& w : view_schema().unused_warnings(s.view)) r.warnings.push_back(std::move(w));
  Json manifest = run_manifest(r, s.backend.notice, info, front_end_versions());
  for (const auto& [key, value] : extra.items()) manifest[key] = value;
  std::optional<ExportFile> image;
  if (draw)
    image = view_png_file(image_path, std::move(rgba), o.image_width, o.image_height, r, manifest);
  auto written = export_run(r, dir, manifest, image ? &*image : nullptr);
  if (more) more(written);
  if (!o.quiet && !notice_printed && !s.backend.notice.empty())
    std::fprintf(stderr, "simscope: %s\n", s.backend.notice.c_str());
  for (const auto& w : r.warnings) std::fprintf(stderr, "simscope: warning: %s\n", w.c_str());
  if (!o.quiet) {
    std::printf("simscope: %s on %s in %.3f s (compute %.3f s); wrote:\n", workload_name.c_str(),
                to_string(r.backend), r.total_seconds + info.seconds, r.compute_seconds);
    for (const auto& w : written) std::printf("  %s\n", w.c_str());
  }
}

}  // namespace simscope::app
