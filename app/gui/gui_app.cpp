// The interactive window: event loop, layout, keys, screenshots and exports.
#include "gui_app.hpp"
#include "file_names.hpp"

#include <glad/gl.h>
// GLFW after glad so that it does not pull in the system GL header first.
#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>

#include <QSettings>
#include <QStringList>
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <cmath>
#include <cstdio>
#include <tuple>

#include "core/error.hpp"
#include "drop.hpp"
#include "export.hpp"
#include "fonts.hpp"
#include "frame_pacing.hpp"
#include "hover_tip.hpp"
#include "gui_state.hpp"
#include "key_presses.hpp"
#include "output_checks.hpp"
#include "params_json.hpp"
#include "png.hpp"
#include "render/offscreen.hpp"
#include "render/text.hpp"
#include "run_manifest.hpp"
#include "stop_signals.hpp"
#include "ui_text.hpp"
#include "undo.hpp"
#include "view_png_export.hpp"
#include "view_schema.hpp"
#include "view_settings.hpp"
#include "view_upload.hpp"
#include "window.hpp"

namespace simscope::app::gui {
namespace {

/// A run no longer than this (its last full run's compute time) is interactive: it comes
/// without a coarse preview first, and a newer request lets it finish and show before running
/// (Supersede::FinishFull), so that a drag shows a result per run. Longer runs preview and are
/// cancelled by a newer request, so the newest input's result comes first.
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

void compute_histogram(GuiState& s) {
  s.histogram.assign(64, 0.f);
  if (!s.plane) return;
  auto [lo, hi] = s.plane->range();
  const bool log = s.plane->settings().log_scale;  // the view's, or the image's own choice
  if (log) {
    lo = std::log10(std::max(lo, 1e-300));
    hi = std::log10(std::max(hi, 1e-300));
  }
  s.histogram_range = s.plane->range();
  // The histogram needs the values on the host: a device image is downloaded here, once.
  const std::vector<float>& values = s.image.data.host();
  s.log_note = log ? log_scale_warning(s.image.label, values) : "";
  if (!(hi > lo)) return;
  for (float v : values) {
    if (!std::isfinite(v) || (log && v <= 0)) continue;
    const double t = ((log ? std::log10(double(v)) : double(v)) - lo) / (hi - lo);
    const int b = std::clamp(int(t * 64), 0, 63);
    s.histogram[b] += 1;
  }
}

/// Puts the current result's selected output into the plane view.
void refresh_image(GuiState& s) {
  s.image_dirty = false;
  if (!s.result) return;
  const std::string view_param = s.worker->workload().view_param();
  const std::string& which = s.params.get_string(view_param);
  try {
    s.image = s.worker->workload().view_image(*s.result, which);
    const std::string compared = apply_compare(s, which);  // A, B - A...: compare_panel.cpp
    // The output's colormap (its own default: diverging for signed values, else sequential) and
    // scale for a newly chosen output go into the view parameters, so the panel shows what is
    // drawn. A colormap the user chose sticks; a scale until the output changes.
    const std::string key = s.workload_name + "/" + which + compared;
    if (key != s.hinted_for) {
      std::vector<std::string> keep = s.view_given;  // --set view.*: for the first image
      if (s.colormap_chosen) keep.push_back("view.colormap");
      apply_view_hints(s.view, s.image, keep);
      s.view_given.clear();
      s.hinted_for = key;
    }
    s.plane->set_settings(to_render_settings(s.view, s.image, false));
    // The image shares the result's values, device memory included, which the evaluator never
    // writes again while the result holds it. So it is safe to read while a job runs or after a
    // cancelled one. A comparison (compare_shown) is an image made on the host.
    upload_image(*s.plane, s.image);
    compute_histogram(s);
    s.view_message.clear();
  } catch (const std::exception& e) {
    // Nothing of the earlier image stays, since its colorbar would be a stray one: a message
    // instead.
    s.error = e.what();
    s.view_message = e.what();
    s.image = ViewImage{};
    s.histogram.clear();
    s.log_note.clear();
  }
}

/// Submits a run. Continuous workloads get RunCommand::Live unless their panel gives another
/// command: Step, Reset or Study.
void submit(GuiState& s, RunCommand command = RunCommand::Whole) {
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

/// Replaces the workload (switcher, keys 1/2/3) with its default parameters and no result. It
/// gets the view it had when last shown this session. On a first visit: the view's defaults,
/// and the workload's hints for its image once it is in, as when the app starts with it.
void switch_workload(GuiState& s, const std::string& name) {
  try {
    auto w = make_workload(name);
    s.saved_views[s.workload_name] = {s.view, s.hinted_for, s.zoom, s.zoom_cu, s.zoom_cv,
                                      s.colormap_chosen};
    s.params = w->schema().defaults();
    s.worker = std::make_unique<Worker>(std::move(w));
    s.worker->set_interactive(true);  // checks such as the tree's error after the frame
    s.worker->set_follow_up_delay(kFollowUpPause);
    s.worker->set_notify([] { Window::wake(); });  // a result wakes the waiting loop
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

/// How the centre shows the plane, as run.json's render.view records it: output, colormap and
/// scale in use, colour range. No output where the centre shows a workload's own view.
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
    std::map<std::string, std::string> text{
        {"Software", "simscope " SIMSCOPE_VERSION},
        {"simscope.workload", s.workload_name},
        {"simscope.params", to_text(s.params)},
        {"simscope.view_params", to_text(s.view)},
        {"simscope.status", status_line(s)}};
    const RenderInfo shown = shown_view(s, "window");
    if (!shown.output.empty()) {  // as headless view.png's simscope.view
      Json v;
      v["output"] = shown.output;
      v["colormap"] = shown.colormap;
      v["scale"] = shown.scale;
      v["range"] = Json::array({json_number(shown.range_lo), json_number(shown.range_hi)});
      text["simscope.view"] = json_text(v, true);
    }
    if (shown.output.empty() && !s.view_message.empty())  // what the centre says instead
      text["simscope.view_message"] = s.view_message;
    if (const std::string t = tree_status(s); !t.empty())  // as the status bar shows it
      text["simscope.tree_status"] = t;
    if (s.result && s.result->stats.count("tree_order")) {  // the ladder's rung it ran at
      char rule[64];
      std::snprintf(rule, sizeof rule, "order %g, theta %.4g", s.result->stats.at("tree_order"),
                    s.result->stats.at("tree_theta"));
      text["simscope.tree_rule"] = rule;
    }
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

/// The window's shortcuts, from the presses queued since the last frame (KeyPresses). Skipped
/// while ImGui takes the keyboard, i.e. a text field has focus; but Ctrl+Q closes `window`
/// always, and Esc closes the help window, else `window` unless a popup is open or ImGui takes
/// the keyboard (Esc there leaves the popup or the text field).
void handle_keys(GuiState& s, KeyPresses& keys, int& screenshots, int& exports,
                 GLFWwindow* window) {
  const bool captured = ImGui::GetIO().WantCaptureKeyboard;
  const auto quit = [&](const char* key) {
    std::fprintf(stderr, "simscope: %s: closing the window\n", key);
    glfwSetWindowShouldClose(window, GLFW_TRUE);
  };
  if (keys.pressed(GLFW_KEY_Q, GLFW_MOD_CONTROL)) quit("Ctrl+Q");
  if (keys.pressed(GLFW_KEY_ESCAPE)) {
    if (s.show_help)
      s.show_help = false;
    else if (!captured && !ImGui::GetIO().WantTextInput &&
             !ImGui::IsPopupOpen("", ImGuiPopupFlags_AnyPopupId))
      quit("Esc");
  }
  auto pressed = [&](int key, int mods = 0) { return !captured && keys.pressed(key, mods); };
  // Toggles flip once per press: two quick presses inside one frame cancel out.
  auto toggled = [&](int key) { return !captured && keys.count(key) % 2 == 1; };
  if (pressed(GLFW_KEY_O, GLFW_MOD_CONTROL)) s.open_preset_popup = true;
  if (pressed(GLFW_KEY_S, GLFW_MOD_CONTROL)) s.save_preset_popup = true;
  if (toggled(GLFW_KEY_SPACE)) {
    s.paused = !s.paused;
    if (!s.paused && s.params != s.submitted) submit(s);
  }
  if (!captured) screenshots += keys.count(GLFW_KEY_S);  // every tap, also several per frame
  if (!captured) exports += keys.count(GLFW_KEY_E);
  if (pressed(GLFW_KEY_R)) {  // reset the view: the default range (percentile), no zoom
    s.view.set("view.range", view_schema().at("view.range").default_value);
    s.zoom = 1, s.zoom_cu = s.zoom_cv = 0.5;
    s.image_dirty = true;
  }
  if (pressed(GLFW_KEY_P)) s.explore.want_save_csv = true;    // the line profile's CSV
  if (pressed(GLFW_KEY_Z, GLFW_MOD_CONTROL)) undo_params(s);  // undo.cpp
  if (pressed(GLFW_KEY_Z, GLFW_MOD_CONTROL | GLFW_MOD_SHIFT) ||
      pressed(GLFW_KEY_Y, GLFW_MOD_CONTROL))
    redo_params(s);
  if (pressed(GLFW_KEY_I)) s.image_export.open_popup = true;  // view image at any size
  if (pressed(GLFW_KEY_A)) pin_result(s);                     // compare: pin as A
  if (pressed(GLFW_KEY_D)) cycle_compare_mode(s);             // B, A, B - A, (B - A) / |A|
  if (toggled(GLFW_KEY_H)) s.show_panels = !s.show_panels;
  for (int k = 0; k < 3; ++k)
    if (pressed(GLFW_KEY_1 + k) && k < int(workload_names().size()))
      s.switch_to = workload_names()[k];
  if (toggled(GLFW_KEY_F1)) s.show_help = !s.show_help;
  keys.clear();
}

/// Mouse wheel over the plane zooms about the cursor; dragging with the right button pans.
void zoom_and_pan(GuiState& s, int fb_h, float sx, float sy) {
  ImGuiIO& io = ImGui::GetIO();
  if (!s.plane || s.image.rows == 0 || io.WantCaptureMouse) return;
  const auto rect = s.plane->last_image_rect();
  if (!rect) return;
  const auto ij = s.plane->image_coords(io.MousePos.x * sx, fb_h - io.MousePos.y * sy);
  const auto w = s.plane->zoom_window();
  if (ij && io.MouseWheel != 0) {
    const double fu = ij->first / s.image.rows, fv = ij->second / s.image.cols;
    const double a = (fu - w[0]) / w[2], b = (fv - w[1]) / w[3];
    s.zoom = std::clamp(s.zoom * std::pow(1.25, double(io.MouseWheel)), 1.0, 256.0);
    const double d = 1.0 / s.zoom;
    s.zoom_cu = fu - a * d + d / 2;
    s.zoom_cv = fv - b * d + d / 2;
  }
  if (ImGui::IsMouseDragging(ImGuiMouseButton_Right)) {
    s.zoom_cu -= io.MouseDelta.x * sx / rect->w * w[2];
    s.zoom_cv += io.MouseDelta.y * sy / rect->h * w[3];
  }
  s.plane->set_zoom(s.zoom, s.zoom_cu, s.zoom_cv);
  // Keep the centre where the view clamped it, so a pan past the edge does not accumulate.
  const auto z = s.plane->zoom_window();
  s.zoom_cu = z[0] + z[2] / 2, s.zoom_cv = z[1] + z[3] / 2;
}

/// The value under the cursor on the plane, as a tooltip and in s.cursor_text. The caller clears
/// s.cursor_text each frame, so nothing is left when the cursor leaves the image.
void cursor_readout(GuiState& s, int fb_h, float sx, float sy, bool tooltip) {
  ImGuiIO& io = ImGui::GetIO();
  if (!s.result || !s.plane || s.image.rows == 0 || io.WantCaptureMouse) return;
  const auto ij = s.plane->image_coords(io.MousePos.x * sx, fb_h - io.MousePos.y * sy);
  if (!ij) return;
  const int i = std::clamp(int(std::floor(ij->first)), 0, s.image.rows - 1);
  const int j = std::clamp(int(std::floor(ij->second)), 0, s.image.cols - 1);
  const float v = s.image.data.host()[size_t(i) * s.image.cols + j];
  char buf[320];
  std::snprintf(buf, sizeof buf, "%s = %.6g %s\n%s  %s", ui_text(s.image.label).c_str(), v,
                ui_text(s.image.unit).c_str(),
                s.worker->workload().describe_sample(*s.result, i, j).c_str(),
                s.extras->sample_index(s, i, j).c_str());
  s.cursor_text = buf;
  while (!s.cursor_text.empty() && s.cursor_text.back() == ' ') s.cursor_text.pop_back();
  if (!tooltip) return;
  ImGui::BeginTooltip();
  ImGui::TextUnformatted(s.cursor_text.c_str());
  ImGui::EndTooltip();
}

/// Draws, in place of the plane, the reason it shows nothing for the chosen output: wrapped,
/// centred, no colorbar. The centre lies between x0 and x1 and above y1, in window coordinates.
void draw_view_message(const std::string& why, float x0, float x1, float y1) {
  ImDrawList* dl = ImGui::GetBackgroundDrawList();
  const float pad = 2 * ImGui::GetFontSize(), wrap = std::max(40.f, x1 - x0 - 2 * pad);
  const std::string text = "Nothing to show for this output:\n" + why;
  const ImVec2 size = ImGui::CalcTextSize(text.c_str(), nullptr, false, wrap);
  const ImVec2 pos(x0 + std::max(pad, (x1 - x0 - size.x) / 2), std::max(pad, (y1 - size.y) / 2));
  dl->AddText(ImGui::GetFont(), ImGui::GetFontSize(), pos, IM_COL32(230, 230, 230, 255),
              text.c_str(), nullptr, wrap);
}

/// Widths of the left (parameters) and right (view) panels in a window W wide: their natural
/// widths, narrowed together where they would leave the centre view less than 45 % of W.
/// Example: an 800 px window gives 250 and 190 px, the centre 360 px.
std::pair<float, float> panel_widths(float W, float scale) {
  float left = std::min(420.f * scale, W * 0.4f), right = std::min(300.f * scale, W * 0.3f);
  const float most = W * 0.55f;
  if (left + right > most) {
    const float f = most / (left + right);
    left *= f, right *= f;
  }
  return {std::floor(left), std::floor(right)};
}

}  // namespace

/// "simscope: view text at 19.2 px (atlases: 19.2 13.4 9.6 6.7 px)": the view's normal text at
/// `scale` and every size baked so far. A change of scale shows the new sizes baked.
static void log_view_fonts(const render::PlaneView& plane, float scale) {
  std::string sizes;
  char buf[32];
  for (const float px : plane.text_pixel_sizes()) {
    std::snprintf(buf, sizeof buf, "%s%.1f", sizes.empty() ? "" : " ", px);
    sizes += buf;
  }
  std::fprintf(stderr, "simscope: view text at %.1f px for scale %.3g (atlases: %s px)\n",
               render::text_pixel_size(std::max(1.0f, std::round(2.0f * scale))), scale,
               sizes.c_str());
}

int run_gui(const RunOptions& o) {
  // A screenshot that could not be written fails now, not after the window has run.
  if (!o.screenshot.empty()) check_output_file(o.screenshot, "");
  Session session = make_session(o);
  if (!o.quiet && !session.backend.notice.empty())  // --quiet: errors and warnings only
    std::fprintf(stderr, "simscope: %s\n", session.backend.notice.c_str());
  QSettings settings;
  const int win_w = std::clamp(settings.value("window/width", 1280).toInt(), 320, 8192);
  const int win_h = std::clamp(settings.value("window/height", 800).toInt(), 240, 8192);
  Window window(win_w, win_h, "simscope");  // no larger than the screen's work area
  // SIGTERM or Ctrl+C (SIGINT): the window closes as its close button does, saving settings and
  // stopping the worker, and simscope exits 0. A second signal ends the process at once.
  install_stop_handlers();
  // --frames N: quit N frames after the first full result; --screenshot alone: once it is shown.
  const int quit_after = o.frames > 0 ? o.frames : !o.screenshot.empty() ? 2 : 0;
  std::string run_error;  // the last run's error until a result arrives
  const render::WindowHooks hooks = window.hooks();
  auto ctx = render::create_context("window", &hooks);
  std::fprintf(stderr, "simscope: OpenGL %s on %s\n", ctx->gl_version().c_str(),
               ctx->renderer().c_str());

  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;
  float scale = choose_ui_scale(window.content_scale());  // re-baked on a change (fonts.cpp)
  std::fprintf(stderr, "simscope: %s\n", bake_fonts(scale, false).c_str());
  KeyPresses keys(window.handle());  // before ImGui's back end, which chains to its callback
  ImGui_ImplGlfw_InitForOpenGL(window.handle(), true);
  install_drop_callback(window.handle());  // drop.cpp
  ImGui_ImplOpenGL3_Init("#version 450");
  window.watch_events();  // after the callbacks above, which it chains to

  GuiState s;
  s.workload_name = session.workload->name();
  s.params = session.params;
  s.view = session.view;
  s.view_given = session.view_given;
  s.colormap_chosen = std::find(s.view_given.begin(), s.view_given.end(), "view.colormap") !=
                      s.view_given.end();
  s.view_warnings = view_schema().unused_warnings(s.view);  // said once, as headless does
  for (const std::string& w : s.view_warnings)
    std::fprintf(stderr, "simscope: warning: %s\n", w.c_str());
  s.backend = session.backend;
  s.backend_request = o.backend;
  s.worker = std::make_unique<Worker>(std::move(session.workload));
  s.worker->set_interactive(true);  // checks such as the tree's error after the frame
  s.worker->set_follow_up_delay(kFollowUpPause);
  s.worker->set_notify([] { Window::wake(); });  // a result wakes the waiting loop
  s.extras = make_workload_gui(s.workload_name);
  s.plane = std::make_unique<render::PlaneView>();
  s.plane->set_ui_scale(scale);
  log_view_fonts(*s.plane, scale);
  for (const QString& p : settings.value("presets/recent").toStringList())  // those still there
    if (std::error_code ec; std::filesystem::is_regular_file(p.toStdString(), ec))
      s.recent_presets.push_back(p.toStdString());
  if (!o.preset.empty()) s.preset_path = o.preset;
  s.sweep.pending_cli = o.sweep;    // --sweep in the window: once the first result is in
  s.record.pending_cli = o.record;  // --record FRAMES: the view's next frames
  submit(s);

  int frames_after_result = 0;
  bool have_first = false;
  const auto start = std::chrono::steady_clock::now();
  int exit_code = 0;
  FramePacer pacer;
  // Lines that say a result is shown, printed once the frame that shows it is drawn.
  std::vector<std::string> shown_lines;
  std::optional<ParamSet> last_shown;  // the parameters of the last result logged as shown
  while (!window.should_close()) {
    // The window draws on input and on the worker's events, while something animates, and a
    // few times a second while a run computes; an idle window sleeps (frame_pacing.hpp).
    // Drawing as fast as it can (software GL under Xvfb draws 70+ frames a second) would take
    // a core from a CPU back end's run, and from everything else when idle.
    FrameNeeds needs;
    needs.busy = s.worker->busy();
    needs.typing = ImGui::GetIO().WantTextInput;
    needs.tip_waiting = hover_tip_waiting();
    needs.animating = quit_after > 0 || s.sweep.running || !s.sweep.pending_cli.empty() ||
                      s.record.pending_cli > 0 || s.image_dirty || s.pending_command ||
                      !s.switch_to.empty() || s.want_screenshot > 0 || s.want_export > 0 ||
                      (s.worker->workload().continuous(s.params) && !s.paused);
    window.wait_events(pacer.wait_seconds(needs, glfwGetTime()));
    if (const int sig = stop_signal()) {
      std::fprintf(stderr, "simscope: %s: closing the window\n", signal_name(sig));
      break;
    }
    if (window.should_close()) break;
    const Window::Events events = window.take_events();
    if (events.input) s.last_input_at = events.last_input;
    // A change of the UI scale (another monitor, SIMSCOPE_UI_SCALE_FILE) is drawn like input:
    // the frame re-bakes the fonts (below).
    const bool rescaled = choose_ui_scale(window.content_scale()) != scale;
    const double frame_start = glfwGetTime();
    if (!pacer.should_draw(needs, events.input || rescaled, frame_start, events.woken)) continue;
    int fb_w = 0, fb_h = 0, ww = 0, wh = 0;
    window.framebuffer_size(fb_w, fb_h);
    window.window_size(ww, wh);
    if (fb_w <= 0 || fb_h <= 0 || ww <= 0 || wh <= 0) {  // minimised
      pacer.drawn(frame_start);
      continue;
    }
    while (auto ev = s.worker->poll()) {
      // --frames counts from the first full result or error: not from a coarse preview, nor
      // from a frame whose measured error is still to come; its follow-up counts.
      if (!ev->result || ev->follow_up ||
          (!ev->result->preview && !ev->result->stats.count("error_pending")))
        have_first = true;
      if (!ev->error.empty()) {
        if (ev->error != run_error)  // once per error, as the headless front end says it
          std::fprintf(stderr, "simscope: error: %s\n", ev->error.c_str());
        run_error = ev->error;
        s.error = ev->error;
        s.action_error.clear();
      } else if (ev->follow_up) {
        // The full result completed after it was shown, e.g. the field tree's measured error.
        // It is the same frame unless the error made the tree evaluate again, tighter.
        s.result = std::move(ev->result);
        shown_lines.push_back("simscope: " + s.workload_name + " follow-up shown: " +
                              tree_status(s));
        ++s.result_serial;
        s.image_dirty = true;
        s.extras->on_result(s);
      } else {
        if (!ev->result->preview) s.last_full_seconds = ev->result->compute_seconds;
        for (const std::string& w : s.view_warnings) ev->result->warnings.push_back(w);
        if (!ev->result->preview) s.view_warnings.clear();  // shown with the first full result
        // One line per full result; for a live workload, its first after a switch. The GUI
        // tests wait for it (tests/e2e/gui_util.py). The tree's status follows as the status bar
        // shows it, its error "measuring" until the follow-up line.
        const bool log_shown =
            !ev->result->preview && !(s.result && s.worker->workload().continuous(s.params));
        const double seconds = ev->result->compute_seconds;
        s.result = std::move(ev->result);
        run_error.clear();
        if (log_shown) {
          // "(computed in S s; 131 ms after its input; plane.offset=300)": the time since its
          // parameters were submitted, when they are the newest, and the parameters that
          // changed since the last result logged; then the tree's status.
          std::string line = "simscope: " + s.workload_name + " result shown (computed in ";
          char buf[96];
          std::snprintf(buf, sizeof buf, "%.3f s", seconds);
          line += buf;
          const std::string view_param = s.worker->workload().view_param();
          if (without_view(s.result->params, view_param) == without_view(s.submitted, view_param)) {
            const double ms = std::chrono::duration<double, std::milli>(
                                  std::chrono::steady_clock::now() - s.submitted_at).count();
            std::snprintf(buf, sizeof buf, "; %.0f ms after its input", ms);
            line += buf;
          }
          if (last_shown) {
            const std::string changed = changed_params(*last_shown, s.result->params);
            if (!changed.empty()) line += "; " + changed;
          }
          last_shown = s.result->params;
          if (s.latency.on())
            s.latency.polled(without_view(s.result->params, view_param), ev->started,
                             ev->finished, std::chrono::steady_clock::now());
          const std::string t = tree_status(s);
          shown_lines.push_back(line + ")" + (t.empty() ? "" : ": ") + t);
        }
        ++s.result_serial;
        s.error.clear();
        s.image_dirty = true;
        s.extras->on_result(s);  // before the next live run is submitted below
      }
    }
    const bool plane_kind = s.worker->workload().view_kind(s.params) == ViewKind::Plane;
    if (s.image_dirty && plane_kind) refresh_image(s);
    s.latency.uploaded(std::chrono::steady_clock::now());
    // Live workloads: the next run as soon as the last one is in.
    if (s.worker->workload().continuous(s.params) && !s.paused && !s.worker->busy() &&
        s.error.empty() && s.result)
      submit(s);

    if (const float cs = choose_ui_scale(window.content_scale()); cs != scale) {
      scale = cs;  // another monitor: crisp fonts at its scale
      std::fprintf(stderr, "simscope: %s\n", bake_fonts(scale, true).c_str());
      s.plane->set_ui_scale(scale);
      log_view_fonts(*s.plane, scale);
    }
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    ImGui::NewFrame();
    handle_keys(s, keys, s.want_screenshot, s.want_export, window.handle());
    handle_drops(s);  // files dropped onto the window (drop.cpp)

    const float W = float(ww), H = float(wh);
    const auto [left, right] = s.show_panels ? panel_widths(W, scale) : std::pair{0.f, 0.f};
    const float bottom = 58.f * scale;
    const float sx = float(fb_w) / W, sy = float(fb_h) / H;
    // The hover readout of this frame, before the panels that show it. No tooltip in the
    // screenshots of --frames/--screenshot runs.
    s.cursor_text.clear();
    if (plane_kind) {
      zoom_and_pan(s, fb_h, sx, sy);
      if (quit_after == 0) cursor_readout(s, fb_h, sx, sy, true);
    }
    bool changed = false;
    if (s.show_panels) {
      changed |= draw_params_panel(s, 0, 0, left, H - bottom);
      draw_view_panel(s, W - right, 0, right, H - bottom);
    }
    draw_status_bar(s, 0, H - bottom, W, bottom);
    draw_help(s);
    if (plane_kind) {
      if (s.image_dirty) refresh_image(s);
      ImGuiIO& io = ImGui::GetIO();
      if (ImGui::IsMouseClicked(0) && !io.WantCaptureMouse && s.result && s.image.rows > 0) {
        if (const auto ij = s.plane->image_coords(io.MousePos.x * sx, fb_h - io.MousePos.y * sy))
          s.extras->on_click(s, std::clamp(int(ij->first), 0, s.image.rows - 1),
                             std::clamp(int(ij->second), 0, s.image.cols - 1));
      }
    }
    explore_mouse(s, fb_h, sx, sy);  // probe and line profile (probe.cpp)
    draw_explore(s, fb_h, sx, sy);
    track_undo(s);  // undo.cpp
    if (s.pending_command) {
      submit(s, *s.pending_command);
      s.pending_command.reset();
    }
    // A number typed into a field (Ctrl+click) changes the parameter at each keystroke: it
    // runs once the typing ends (Return, or focus elsewhere), not for "-7" and "-70" of "-700".
    const bool typing = ImGui::IsAnyItemActive() && ImGui::GetIO().WantTextInput;
    if ((changed || without_view(s.params, s.worker->workload().view_param()) !=
                        without_view(s.submitted, s.worker->workload().view_param())) &&
        !s.paused && !typing)
      submit(s);

    if (plane_kind && s.result && !s.view_message.empty())
      draw_view_message(s.view_message, left, W - right, H - bottom);
    ImGui::Render();
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    glViewport(0, 0, fb_w, fb_h);
    glClearColor(0.09f, 0.09f, 0.11f, 1.f);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    const int vx = int(left * sx), vy = int(bottom * sy);
    const int vw = int((W - left - right) * sx), vh = int((H - bottom) * sy);
    s.image_export.view_w = vw, s.image_export.view_h = vh;
    if (s.result && vw > 16 && vh > 16) {
      if (!plane_kind)
        s.extras->draw_view(s, vx, vy, vw, vh);
      else if (s.view_message.empty())
        s.plane->draw(vx, vy, vw, vh);  // else the centre has draw_view_message's text
    }
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    glViewport(0, 0, fb_w, fb_h);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());

    for (; s.want_screenshot > 0; --s.want_screenshot)
      save_screenshot(s, unused_name("simscope-" + local_timestamp(), ".png"), fb_w, fb_h);
    for (; s.want_export > 0; --s.want_export) export_data(s);
    save_requested_view_image(s);  // image_export.cpp
    advance_sweep(s);              // sweep_panel.cpp
    if (s.result && s.plane->upload_path() != s.logged_upload_path) {
      s.logged_upload_path = s.plane->upload_path();
      std::fprintf(stderr, "simscope: plane upload path: %s%s%s\n", s.logged_upload_path.c_str(),
                   s.plane->upload_fallback_reason().empty() ? "" : " - ",
                   s.plane->upload_fallback_reason().c_str());
    }
    if (quit_after > 0) {
      const double waited =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (have_first || waited > 120) ++frames_after_result;
      if (frames_after_result >= quit_after) {
        if (!o.screenshot.empty() && !save_screenshot(s, o.screenshot, fb_w, fb_h)) exit_code = 1;
        if (!run_error.empty()) exit_code = 1;  // the last run failed: a script must see it
        window.request_close();
      }
    }
    window.hooks().swap_buffers();
    pacer.drawn(frame_start);
    for (const std::string& line : shown_lines)  // the frame showing them is drawn
      std::fprintf(stderr, "%s\n", line.c_str());
    shown_lines.clear();
    if (const std::string l = s.latency.drawn(std::chrono::steady_clock::now()); !l.empty())
      std::fprintf(stderr, "%s\n", l.c_str());
    if (!s.switch_to.empty()) {
      if (s.switch_to != s.workload_name) switch_workload(s, s.switch_to);
      s.switch_to.clear();
    }
  }
  {
    int ww = 0, wh = 0;
    window.window_size(ww, wh);
    if (ww > 0 && wh > 0) {
      settings.setValue("window/width", ww);
      settings.setValue("window/height", wh);
    }
  }
  QStringList recent;
  for (const auto& p : s.recent_presets) recent << QString::fromStdString(p);
  if (recent.isEmpty())
    settings.remove("presets/recent");
  else
    settings.setValue("presets/recent", recent);
  s.worker.reset();
  s.plane.reset();
  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
  return exit_code;
}

}  // namespace simscope::app::gui

namespace simscope::app {
int run_gui(const RunOptions& options) { return gui::run_gui(options); }
}  // namespace simscope::app
