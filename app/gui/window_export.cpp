// Screenshots and exports from the window (window_export.hpp).
#include "window_export.hpp"

#include <glad/gl.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <tuple>

#include "core/error.hpp"
#include "output/export.hpp"
#include "file_names.hpp"
#include "gui_state.hpp"
#include "params/params_json.hpp"
#include "png.hpp"
#include "png_metadata.hpp"
#include "render/offscreen.hpp"
#include "view_png_export.hpp"

namespace simscope::app::gui {

RenderInfo shown_view(const GuiState& s, const std::string& context) {
  RenderInfo info{context, "", s.plane ? s.plane->upload_path() : "", 0, "", "", "", 0, 0};
  if (!s.plane || !s.result || s.worker->workload().view_kind(s.params) != ViewKind::Plane ||
      !s.view_message.empty())
    return info;
  info.output = s.params.get_string(s.worker->workload().view_param());
  info.colormap = s.plane->settings().colormap;
  info.scale = s.plane->settings().log_scale ? "log" : "linear";
  std::tie(info.range_lo, info.range_hi) = s.plane->range();
  return info;
}

bool save_screenshot(GuiState& s, const std::string& path, int fb_w, int fb_h) {
  try {
    std::vector<std::uint8_t> rgba = render::read_default_framebuffer_rgba(fb_w, fb_h);
    // What the window showed besides the pixels: parameters, view, hover readout, status line.
    std::map<std::string, std::string> text = png_metadata(s.workload_name, s.params);
    text["simscope.view_params"] = to_text(s.view);
    text["simscope.status"] = status_line(s);
    const RenderInfo shown = shown_view(s, "window");
    if (!shown.output.empty())  // as headless view.png's simscope.view
      text["simscope.view"] = json_text(render_view_json(shown), true);
    if (shown.output.empty() && !s.view_message.empty())  // what the centre says instead
      text["simscope.view_message"] = s.view_message;
    if (const WorkloadDescriptor* d = s.result ? find_workload_descriptor(s.result->workload)
                                               : nullptr;
        d && d->screenshot_texts)  // e.g. the field's tree_status, as the status bar shows it
      for (const auto& [key, t] : d->screenshot_texts(*s.result)) text["simscope." + key] = t;
    if (!s.panels_layout.empty()) text["simscope.panels"] = s.panels_layout;
    if (!s.disabled_params.empty()) text["simscope.disabled"] = s.disabled_params;
    text["simscope.upload"] = upload_status(s);  // as the status bar shows it
    add_explore_text(s, text);
    if (!s.cursor_text.empty()) text["simscope.hover"] = s.cursor_text;
    if (progress_shown(s)) text["simscope.progress"] = "shown";
    if (const std::string note = s.result && s.worker ? s.worker->workload().status_note(*s.result) : ""; !note.empty())
      text["simscope.method_note"] = note;  // as the status bar shows it
    write_png(path, rgba, fb_w, fb_h, text);
    action_done(s, "saved screenshot " + path);
    return true;
  } catch (const std::exception& e) {
    action_failed(s, e.what());
    return false;
  }
}

void export_data(GuiState& s) {
  if (!s.result) {
    action_failed(s, "nothing to export yet");
    return;
  }
  if (!s.view_message.empty() && s.worker->workload().view_kind(s.params) == ViewKind::Plane) {
    action_failed(s, "nothing to export for this output: " + s.view_message);
    return;
  }
  try {
    const std::string dir = unused_name("simscope-export-" + local_timestamp(), "");
    const auto [w, h] = export_image_size(s);  // 1024 x 832, or the size chosen (I)
    render::Offscreen target(w, h);
    target.bind();
    // The centre view as shown: the plane, or the workload's own, e.g. the phase view.
    if (s.worker->workload().view_kind(s.params) == ViewKind::Plane)
      s.plane->draw(0, 0, w, h);
    else
      s.extras->draw_view(s, 0, 0, w, h);
    std::vector<std::uint8_t> rgba = target.read_rgba();
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    const RenderInfo info = shown_view(s, "window");
    if (s.result->preview)
      throw Error("the shown result is a coarse preview; export once the full result is shown");
    RunResult r = *s.result;  // exported with the parameters it was computed with
    const std::string view_param = s.worker->workload().view_param();
    r.params.set(view_param, s.params.get(view_param));  // and the output shown
    if (!s.log_note.empty() && info.scale == "log") r.warnings.push_back("view.png: " + s.log_note);
    const Json manifest = run_manifest(r, s.backend.notice, info, front_end_versions());
    const ExportFile img =
        view_png_file((std::filesystem::path(dir) / "view.png").string(),
                      std::move(rgba), w, h, r, manifest);
    auto written = export_run(r, dir, manifest, &img);
    export_compare(s, dir, written);  // a pinned A and B - A (compare_panel.cpp)
    action_done(s, "exported " + std::to_string(written.size()) + " files to " + dir);
  } catch (const std::exception& e) {
    action_failed(s, e.what());
  }
}

}  // namespace simscope::app::gui
