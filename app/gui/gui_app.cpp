// The interactive window: opens it, draws its frames until it closes, keeps its settings.
#include "gui_app.hpp"

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
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "drop.hpp"
#include "file_names.hpp"
#include "fonts.hpp"
#include "frame_pacing.hpp"
#include "gui_state.hpp"
#include "hover_tip.hpp"
#include "key_presses.hpp"
#include "output_checks.hpp"
#include "plane_image.hpp"
#include "plane_mouse.hpp"
#include "render/text.hpp"
#include "runs.hpp"
#include "shortcuts.hpp"
#include "stop_signals.hpp"
#include "undo.hpp"
#include "view/view_schema.hpp"
#include "window.hpp"
#include "window_export.hpp"
#include "window_layout.hpp"

namespace simscope::app::gui {
namespace {

/// "simscope: view text at 19.2 px (atlases: 19.2 13.4 9.6 6.7 px)": the view's normal text at
/// `scale` and every size baked so far. A change of scale shows the new sizes baked.
void log_view_fonts(const render::PlaneView& plane, float scale) {
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

/// Makes the ImGui context and bakes its fonts at the window's UI scale, which it returns.
float create_imgui(const Window& window) {
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGui::GetIO().IniFilename = nullptr;
  const float scale = choose_ui_scale(window.content_scale());  // re-baked on a change (fonts.cpp)
  std::fprintf(stderr, "simscope: %s\n", bake_fonts(scale, false).c_str());
  return scale;
}

/// Dear ImGui on the window: its context and fonts, the GLFW and OpenGL back ends, and the key
/// presses and file drops they chain to. Shut down when destroyed.
class WindowUi {
 public:
  explicit WindowUi(Window& window) : scale_(create_imgui(window)), keys_(window.handle()) {
    // The key presses before ImGui's back end, which chains to their callback.
    ImGui_ImplGlfw_InitForOpenGL(window.handle(), true);
    install_drop_callback(window.handle());  // drop.cpp
    ImGui_ImplOpenGL3_Init("#version 450");
    window.watch_events();  // after the callbacks above, which it chains to
  }
  ~WindowUi() {
    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
  }
  WindowUi(const WindowUi&) = delete;
  WindowUi& operator=(const WindowUi&) = delete;

  float scale() const { return scale_; }
  KeyPresses& keys() { return keys_; }
  /// Another monitor, or SIMSCOPE_UI_SCALE_FILE: crisp fonts at its scale, in ImGui and `plane`.
  void follow_scale(const Window& window, render::PlaneView& plane) {
    const float cs = choose_ui_scale(window.content_scale());
    if (cs == scale_) return;
    scale_ = cs;
    std::fprintf(stderr, "simscope: %s\n", bake_fonts(scale_, true).c_str());
    plane.set_ui_scale(scale_);
    log_view_fonts(plane, scale_);
  }

 private:
  float scale_;
  KeyPresses keys_;
};

/// The window's state at the start: the session's workload, parameters, view and back end, the
/// recent presets still there, and --preset, --sweep and --record to act on.
void start_state(GuiState& s, Session& session, const RunOptions& o, const QSettings& settings,
                 float scale) {
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
  start_worker(s, std::move(session.workload));
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
}

/// What the window keeps for the next session: its size and the recent presets.
void save_settings(QSettings& settings, const Window& window, const GuiState& s) {
  int ww = 0, wh = 0;
  window.window_size(ww, wh);
  if (ww > 0 && wh > 0) {
    settings.setValue("window/width", ww);
    settings.setValue("window/height", wh);
  }
  QStringList recent;
  for (const auto& p : s.recent_presets) recent << QString::fromStdString(p);
  if (recent.isEmpty())
    settings.remove("presets/recent");
  else
    settings.setValue("presets/recent", recent);
}

enum class Next { Draw, Skip, Close };

/// Waits for the next frame. The window draws on input and on the worker's events, while
/// something animates, and a few times a second while a run computes; an idle window sleeps
/// (frame_pacing.hpp). Drawing as fast as it can (software GL under Xvfb draws 70+ frames a
/// second) would take a core from a CPU back end's run, and from everything else when idle.
/// Close: a stop signal came, or the window is closing. `quitting`: --frames or --screenshot.
/// `frame_start`: the time the frame starts, from which the pacer counts (FramePacer::drawn).
Next wait_for_frame(GuiState& s, Window& window, FramePacer& pacer, float scale, bool quitting,
                    double& frame_start) {
  FrameNeeds needs;
  needs.busy = s.worker->busy();
  needs.typing = ImGui::GetIO().WantTextInput;
  needs.tip_waiting = hover_tip_waiting();
  needs.animating = quitting || s.sweep.running || !s.sweep.pending_cli.empty() ||
                    s.record.pending_cli > 0 || s.image_dirty || s.pending_command ||
                    !s.switch_to.empty() || s.want_screenshot > 0 || s.want_export > 0 ||
                    (s.worker->workload().continuous(s.params) && !s.paused);
  window.wait_events(pacer.wait_seconds(needs, glfwGetTime()));
  if (const int sig = stop_signal()) {
    std::fprintf(stderr, "simscope: %s: closing the window\n", signal_name(sig));
    return Next::Close;
  }
  if (window.should_close()) return Next::Close;
  const Window::Events events = window.take_events();
  if (events.input) s.last_input_at = events.last_input;
  // A change of the UI scale (another monitor, SIMSCOPE_UI_SCALE_FILE) is drawn like input:
  // the frame re-bakes the fonts (WindowUi::follow_scale).
  const bool rescaled = choose_ui_scale(window.content_scale()) != scale;
  frame_start = glfwGetTime();
  return pacer.should_draw(needs, events.input || rescaled, frame_start, events.woken)
             ? Next::Draw
             : Next::Skip;
}

/// The framebuffer's size in pixels and its pixels per window unit.
struct Framebuffer {
  int w = 0, h = 0;
  float sx = 1, sy = 1;
};

/// The frame's ImGui part after the keys: the hover readout, the panels, the status bar, help,
/// clicks, probes, undo; submits a run when the parameters changed. `readout`: the hover
/// tooltip (none in the screenshots of --frames/--screenshot runs).
void draw_ui(GuiState& s, const WindowLayout& l, const Framebuffer& fb, bool plane_kind,
             bool readout) {
  // The hover readout of this frame, before the panels that show it.
  s.cursor_text.clear();
  if (plane_kind) {
    zoom_and_pan(s, fb.h, fb.sx, fb.sy);
    if (readout) cursor_readout(s, fb.h, fb.sx, fb.sy, true);
  }
  bool changed = false;
  if (s.show_panels) {
    changed |= draw_params_panel(s, 0, 0, l.left, l.H - l.bottom);
    draw_view_panel(s, l.W - l.right, 0, l.right, l.H - l.bottom);
  }
  draw_status_bar(s, 0, l.H - l.bottom, l.W, l.bottom);
  draw_help(s);
  if (plane_kind) {
    if (s.image_dirty) refresh_image(s);
    click_plane(s, fb.h, fb.sx, fb.sy);
  }
  explore_mouse(s, fb.h, fb.sx, fb.sy);  // probe and line profile (probe.cpp)
  draw_explore(s, fb.h, fb.sx, fb.sy);
  track_undo(s);  // undo.cpp
  if (s.pending_command) {
    submit(s, *s.pending_command);
    s.pending_command.reset();
  }
  // A number typed into a field (Ctrl+click) changes the parameter at each keystroke: it
  // runs once the typing ends (Return, or focus elsewhere), not for "-7" and "-70" of "-700".
  const bool typing = ImGui::IsAnyItemActive() && ImGui::GetIO().WantTextInput;
  if ((changed || params_changed(s)) && !s.paused && !typing) submit(s);
  if (plane_kind && s.result && !s.view_message.empty()) draw_view_message(s.view_message, l);
}

/// Draws the frame into the window's framebuffer: the centre view, plane or the workload's own,
/// under ImGui's panels.
void render_frame(GuiState& s, const WindowLayout& l, const Framebuffer& fb, bool plane_kind) {
  ImGui::Render();
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  glViewport(0, 0, fb.w, fb.h);
  glClearColor(0.09f, 0.09f, 0.11f, 1.f);
  glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
  const int vx = int(l.left * fb.sx), vy = int(l.bottom * fb.sy);
  const int vw = int((l.W - l.left - l.right) * fb.sx), vh = int((l.H - l.bottom) * fb.sy);
  s.image_export.view_w = vw, s.image_export.view_h = vh;
  if (s.result && vw > 16 && vh > 16) {
    if (!plane_kind)
      s.extras->draw_view(s, vx, vy, vw, vh);
    else if (s.view_message.empty())
      s.plane->draw(vx, vy, vw, vh);  // else the centre has draw_view_message's text
  }
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  glViewport(0, 0, fb.w, fb.h);
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
}

/// What waits for the frame to be drawn, with its pixels still in the framebuffer: screenshots,
/// exports, a view image, the sweep's next frame; and the plane's upload path, logged when it
/// changes.
void after_frame(GuiState& s, const Framebuffer& fb) {
  for (; s.want_screenshot > 0; --s.want_screenshot)
    save_screenshot(s, unused_name("simscope-" + local_timestamp(), ".png"), fb.w, fb.h);
  for (; s.want_export > 0; --s.want_export) export_data(s);
  save_requested_view_image(s);  // image_export.cpp
  advance_sweep(s);              // sweep_panel.cpp
  if (s.result && s.plane->upload_path() != s.logged_upload_path) {
    s.logged_upload_path = s.plane->upload_path();
    std::fprintf(stderr, "simscope: plane upload path: %s%s%s\n", s.logged_upload_path.c_str(),
                 s.plane->upload_fallback_reason().empty() ? "" : " - ",
                 s.plane->upload_fallback_reason().c_str());
  }
}

/// Draws frames until the window closes, --frames N frames after the first full result, or a
/// stop signal. Returns the exit status: 1 when --screenshot failed or the last run failed.
int run_frames(GuiState& s, Window& window, WindowUi& ui, const RunOptions& o) {
  // --frames N: quit N frames after the first full result; --screenshot alone: once it is shown.
  const int quit_after = o.frames > 0 ? o.frames : !o.screenshot.empty() ? 2 : 0;
  int frames_after_result = 0;
  const auto start = std::chrono::steady_clock::now();
  int exit_code = 0;
  FramePacer pacer;
  ResultLog results;
  while (!window.should_close()) {
    double frame_start = 0;
    const Next next = wait_for_frame(s, window, pacer, ui.scale(), quit_after > 0, frame_start);
    if (next == Next::Close) break;
    if (next == Next::Skip) continue;
    Framebuffer fb;
    int ww = 0, wh = 0;
    window.framebuffer_size(fb.w, fb.h);
    window.window_size(ww, wh);
    if (fb.w <= 0 || fb.h <= 0 || ww <= 0 || wh <= 0) {  // minimised
      pacer.drawn(frame_start);
      continue;
    }
    fb.sx = float(fb.w) / float(ww), fb.sy = float(fb.h) / float(wh);
    FrameDone done;  // what the frame did, for FramePacer::hold
    done.worker_was_idle = !s.worker->busy();
    const auto submitted_before = s.submitted_at;
    const std::uint64_t serial_before = s.result_serial;
    const std::string error_before = s.error;
    take_results(s, results);  // runs.cpp
    done.result_taken = s.result_serial != serial_before || s.error != error_before;
    const bool plane_kind = s.worker->workload().view_kind(s.params) == ViewKind::Plane;
    if (s.image_dirty && plane_kind) refresh_image(s);
    if (!s.result && plane_kind) hint_view_before_result(s);
    s.latency.uploaded(std::chrono::steady_clock::now());
    continue_live(s);
    ui.follow_scale(window, *s.plane);
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    ImGui::NewFrame();
    handle_keys(s, ui.keys(), window.handle());  // shortcuts.cpp
    handle_drops(s);                             // files dropped onto the window (drop.cpp)
    const WindowLayout l = window_layout(float(ww), float(wh), ui.scale(), s.show_panels);
    draw_ui(s, l, fb, plane_kind, quit_after == 0);
    done.submitted = s.submitted_at != submitted_before;
    done.last_full_seconds = s.last_full_seconds;
    done.output_waiting = quit_after > 0 || s.want_screenshot > 0 || s.want_export > 0 ||
                          s.image_export.want_w > 0 || s.sweep.running ||
                          !s.sweep.pending_cli.empty() || s.record.pending_cli > 0 ||
                          s.image_dirty || !s.switch_to.empty();
    done.animating = s.worker->workload().continuous(s.params) && !s.paused;
    if (FramePacer::hold(done)) {  // its result's frame shows it (frame_pacing.hpp)
      ImGui::Render();             // ends ImGui's frame; nothing is drawn
      pacer.drawn(frame_start);
      continue;
    }
    render_frame(s, l, fb, plane_kind);
    after_frame(s, fb);
    if (quit_after > 0) {
      const double waited =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (results.have_first || waited > 120) ++frames_after_result;
      if (frames_after_result >= quit_after) {
        if (!o.screenshot.empty() && !save_screenshot(s, o.screenshot, fb.w, fb.h)) exit_code = 1;
        if (!results.run_error.empty()) exit_code = 1;  // the last run failed: a script must see it
        window.request_close();
      }
    }
    window.hooks().swap_buffers();
    pacer.drawn(frame_start);
    for (const std::string& line : results.shown_lines)  // the frame showing them is drawn
      std::fprintf(stderr, "%s\n", line.c_str());
    results.shown_lines.clear();
    if (const std::string l = s.latency.drawn(std::chrono::steady_clock::now()); !l.empty())
      std::fprintf(stderr, "%s\n", l.c_str());
    if (!s.switch_to.empty()) {
      if (s.switch_to != s.workload_name) switch_workload(s, s.switch_to);
      s.switch_to.clear();
    }
  }
  return exit_code;
}

}  // namespace

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
  const render::WindowHooks hooks = window.hooks();
  auto ctx = render::create_context("window", &hooks);
  std::fprintf(stderr, "simscope: OpenGL %s on %s\n", ctx->gl_version().c_str(),
               ctx->renderer().c_str());
  WindowUi ui(window);
  GuiState s;
  start_state(s, session, o, settings, ui.scale());
  submit(s);
  const int exit_code = run_frames(s, window, ui, o);
  save_settings(settings, window, s);
  s.worker.reset();
  s.plane.reset();
  return exit_code;
}

}  // namespace simscope::app::gui

namespace simscope::app {
int run_gui(const RunOptions& options) { return gui::run_gui(options); }
}  // namespace simscope::app
