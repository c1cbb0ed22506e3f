#include "window.hpp"

#include <GLFW/glfw3.h>

#include <algorithm>
#include <chrono>

#include "core/error.hpp"
#include "gui_app.hpp"

namespace simscope::app::gui {
namespace {

/// Events since the last take_events(); one window at a time watches (the process has one).
std::atomic<unsigned> g_events{0};
/// wake() calls since the last take_events().
std::atomic<unsigned> g_wakes{0};

// The callbacks installed before watch_events(), which the counting ones chain to.
GLFWkeyfun g_key = nullptr;
GLFWcharfun g_char = nullptr;
GLFWmousebuttonfun g_button = nullptr;
GLFWcursorposfun g_cursor = nullptr;
GLFWcursorenterfun g_enter = nullptr;
GLFWscrollfun g_scroll = nullptr;
GLFWwindowfocusfun g_focus = nullptr;
GLFWwindowsizefun g_size = nullptr;
GLFWframebuffersizefun g_fb_size = nullptr;
GLFWwindowrefreshfun g_refresh = nullptr;
GLFWwindowiconifyfun g_iconify = nullptr;
GLFWwindowcontentscalefun g_scale = nullptr;
GLFWdropfun g_drop = nullptr;

/// When the last event was counted (steady clock, ns since its epoch).
std::atomic<long long> g_last_event_ns{0};

void count() {
  g_events.fetch_add(1, std::memory_order_relaxed);
  g_last_event_ns.store(std::chrono::steady_clock::now().time_since_epoch().count(),
                        std::memory_order_relaxed);
}

void counted_key(GLFWwindow* w, int key, int scancode, int action, int mods) {
  count();
  if (g_key) g_key(w, key, scancode, action, mods);
}
void counted_char(GLFWwindow* w, unsigned c) {
  count();
  if (g_char) g_char(w, c);
}
void counted_button(GLFWwindow* w, int button, int action, int mods) {
  count();
  if (g_button) g_button(w, button, action, mods);
}
void counted_cursor(GLFWwindow* w, double x, double y) {
  count();
  if (g_cursor) g_cursor(w, x, y);
}
void counted_enter(GLFWwindow* w, int entered) {
  count();
  if (g_enter) g_enter(w, entered);
}
void counted_scroll(GLFWwindow* w, double dx, double dy) {
  count();
  if (g_scroll) g_scroll(w, dx, dy);
}
void counted_focus(GLFWwindow* w, int focused) {
  count();
  if (g_focus) g_focus(w, focused);
}
void counted_size(GLFWwindow* w, int width, int height) {
  count();
  if (g_size) g_size(w, width, height);
}
void counted_fb_size(GLFWwindow* w, int width, int height) {
  count();
  if (g_fb_size) g_fb_size(w, width, height);
}
void counted_refresh(GLFWwindow* w) {
  count();
  if (g_refresh) g_refresh(w);
}
void counted_iconify(GLFWwindow* w, int iconified) {
  count();
  if (g_iconify) g_iconify(w, iconified);
}
void counted_scale(GLFWwindow* w, float x, float y) {
  count();
  if (g_scale) g_scale(w, x, y);
}
void counted_drop(GLFWwindow* w, int n, const char** paths) {
  count();
  if (g_drop) g_drop(w, n, paths);
}
std::string last_glfw_error() {
  const char* d = nullptr;
  glfwGetError(&d);
  return d ? d : "unknown GLFW error";
}

/// The primary monitor's work area in screen coordinates: the screen minus task bars, or its
/// video mode where the work area is unknown. Returns false without a monitor.
bool work_area(int& x, int& y, int& w, int& h) {
  GLFWmonitor* mon = glfwGetPrimaryMonitor();
  if (!mon) return false;
  x = y = w = h = 0;
  glfwGetMonitorWorkarea(mon, &x, &y, &w, &h);
  if (w <= 0 || h <= 0) {
    const GLFWvidmode* mode = glfwGetVideoMode(mon);
    if (!mode) return false;
    x = y = 0, w = mode->width, h = mode->height;
  }
  return w > 0 && h > 0;
}
}  // namespace

Window::Window(int width, int height, const std::string& title) {
  if (!glfwInit()) {
    const std::string err = last_glfw_error();
    throw WindowError(
        "cannot open a window: " + err + " (no display? run with --headless, or under xvfb-run)",
        err, true);
  }
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 4);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 5);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  glfwWindowHint(GLFW_SCALE_TO_MONITOR, GLFW_TRUE);
  // No larger than the work area: a size saved on a bigger screen, or the 1280 x 800 default on
  // a small one, would put the right panel and the status bar off-screen. GLFW scales the
  // requested size by the monitor's content scale where it is > 1 (HiDPI X11, Windows).
  int ax = 0, ay = 0, aw = 0, ah = 0;
  const bool area = work_area(ax, ay, aw, ah);
  if (area) {
    float csx = 1, csy = 1;
    glfwGetMonitorContentScale(glfwGetPrimaryMonitor(), &csx, &csy);
#ifdef __APPLE__
    csx = csy = 1;  // screen coordinates are points there: no scaling of the requested size
#endif
    width = std::min(width, int(aw / std::max(csx, 1.f)));
    height = std::min(height, int(ah / std::max(csy, 1.f)));
  }
  window_ =
      glfwCreateWindow(std::max(width, 1), std::max(height, 1), title.c_str(), nullptr, nullptr);
  if (!window_) {
    const std::string err = last_glfw_error();
    glfwTerminate();
    throw WindowError("cannot create an OpenGL 4.5 core window: " + err, err, false);
  }
  if (area) {
    // It must still fit with the window manager's frame (title bar, borders). When it does not,
    // shrink it and put it at the work area's corner.
    int ww = 0, wh = 0, fl = 0, ft = 0, fr = 0, fb = 0;
    glfwGetWindowSize(window_, &ww, &wh);
    glfwGetWindowFrameSize(window_, &fl, &ft, &fr, &fb);
    const int fit_w = std::min(ww, aw - fl - fr), fit_h = std::min(wh, ah - ft - fb);
    if (fit_w > 0 && fit_h > 0 && (fit_w < ww || fit_h < wh)) {
      glfwSetWindowSize(window_, fit_w, fit_h);
      glfwSetWindowPos(window_, ax + fl, ay + ft);
    }
  }
  glfwMakeContextCurrent(window_);
  glfwSwapInterval(1);
}

Window::~Window() {
  if (window_) glfwDestroyWindow(window_);
  glfwTerminate();
}

render::WindowHooks Window::hooks() const {
  render::WindowHooks h;
  GLFWwindow* w = window_;
  h.make_current = [w] { glfwMakeContextCurrent(w); };
  h.swap_buffers = [w] { glfwSwapBuffers(w); };
  h.get_proc_address = &glfwGetProcAddress;
  return h;
}

bool Window::should_close() const { return glfwWindowShouldClose(window_); }
void Window::request_close() { glfwSetWindowShouldClose(window_, GLFW_TRUE); }
void Window::framebuffer_size(int& w, int& h) const { glfwGetFramebufferSize(window_, &w, &h); }
void Window::window_size(int& w, int& h) const { glfwGetWindowSize(window_, &w, &h); }
void Window::watch_events() {
  g_key = glfwSetKeyCallback(window_, counted_key);
  g_char = glfwSetCharCallback(window_, counted_char);
  g_button = glfwSetMouseButtonCallback(window_, counted_button);
  g_cursor = glfwSetCursorPosCallback(window_, counted_cursor);
  g_enter = glfwSetCursorEnterCallback(window_, counted_enter);
  g_scroll = glfwSetScrollCallback(window_, counted_scroll);
  g_focus = glfwSetWindowFocusCallback(window_, counted_focus);
  g_size = glfwSetWindowSizeCallback(window_, counted_size);
  g_fb_size = glfwSetFramebufferSizeCallback(window_, counted_fb_size);
  g_refresh = glfwSetWindowRefreshCallback(window_, counted_refresh);
  g_iconify = glfwSetWindowIconifyCallback(window_, counted_iconify);
  g_scale = glfwSetWindowContentScaleCallback(window_, counted_scale);
  g_drop = glfwSetDropCallback(window_, counted_drop);
  count();  // the first frame
}

Window::Events Window::take_events() {
  Events e;
  e.input = g_events.exchange(0, std::memory_order_relaxed) > 0;
  e.woken = g_wakes.exchange(0, std::memory_order_relaxed) > 0;
  if (e.input)
    e.last_input = std::chrono::steady_clock::time_point(std::chrono::steady_clock::duration(
        g_last_event_ns.load(std::memory_order_relaxed)));
  return e;
}

void Window::wait_events(double seconds) {
  if (seconds > 0)
    glfwWaitEventsTimeout(seconds);
  else
    glfwPollEvents();
}

void Window::wake() {
  g_wakes.fetch_add(1, std::memory_order_relaxed);
  glfwPostEmptyEvent();
}

float Window::content_scale() const {
  float x = 1, y = 1;
  glfwGetWindowContentScale(window_, &x, &y);
  return x > 0 ? x : 1.f;
}

}  // namespace simscope::app::gui
