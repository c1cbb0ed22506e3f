#pragma once
/// @file A GLFW window with an OpenGL 4.5 core context, and the hooks render/ needs to use it.
#include <string>

#include "render/gl_context.hpp"

struct GLFWwindow;

namespace simscope::app::gui {

class Window {
 public:
  /// Creates the window: OpenGL 4.5 core, vsync. Throws simscope::Error with GLFW's message when
  /// there is no display or no suitable OpenGL.
  Window(int width, int height, const std::string& title);
  ~Window();
  Window(const Window&) = delete;
  Window& operator=(const Window&) = delete;

  GLFWwindow* handle() const { return window_; }
  render::WindowHooks hooks() const;
  bool should_close() const;
  void request_close();
  /// Framebuffer size in pixels, 0 x 0 while minimised, and window size in screen coordinates.
  void framebuffer_size(int& w, int& h) const;
  void window_size(int& w, int& h) const;
  /// HiDPI scale; 1 on ordinary screens.
  float content_scale() const;

 private:
  GLFWwindow* window_ = nullptr;
};

}  // namespace simscope::app::gui
