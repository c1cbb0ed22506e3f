#include "window.hpp"

#include <GLFW/glfw3.h>

#include "core/error.hpp"

namespace simscope::app::gui {
namespace {
std::string last_glfw_error() {
  const char* d = nullptr;
  glfwGetError(&d);
  return d ? d : "unknown GLFW error";
}
}  // namespace

Window::Window(int width, int height, const std::string& title) {
  if (!glfwInit())
    throw Error("cannot open a window: " + last_glfw_error() +
                " (no display? run with --headless, or under xvfb-run)");
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 4);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 5);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  glfwWindowHint(GLFW_SCALE_TO_MONITOR, GLFW_TRUE);
  window_ = glfwCreateWindow(width, height, title.c_str(), nullptr, nullptr);
  if (!window_) {
    const std::string err = last_glfw_error();
    glfwTerminate();
    throw Error("cannot create an OpenGL 4.5 core window: " + err);
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
float Window::content_scale() const {
  float x = 1, y = 1;
  glfwGetWindowContentScale(window_, &x, &y);
  return x > 0 ? x : 1.f;
}

}  // namespace simscope::app::gui
