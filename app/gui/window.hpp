#pragma once
/// @file A GLFW window with an OpenGL 4.5 core context, and the hooks render/ needs to use it.
/// It counts the events that may change what it shows (input, resizing, exposure, wake()), so
/// that the loop draws only when something happened (frame_pacing.hpp).
#include <atomic>
#include <chrono>
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

  /// Counts from now on every event of the window: keys, characters, mouse buttons, motion,
  /// wheel, entering, focus, size, exposure, files dropped. Chains to the callbacks installed
  /// before (Dear ImGui's back end, KeyPresses, drop.cpp), so call it after those.
  void watch_events();
  /// What happened since the last call: events counted (input), wake() called (woken), and
  /// when the last event was counted (when input).
  struct Events {
    bool input = false, woken = false;
    std::chrono::steady_clock::time_point last_input{};
  };
  Events take_events();
  /// Processes pending events, waiting up to `seconds` for one (0: not at all).
  void wait_events(double seconds);
  /// From any thread: ends the current wait_events() and is counted as `woken`, e.g. for a
  /// worker's result.
  static void wake();

 private:
  GLFWwindow* window_ = nullptr;
};

}  // namespace simscope::app::gui
