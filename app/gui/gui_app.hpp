#pragma once
/// @file The interactive window: GLFW + Dear ImGui around the render/ plane view.
#include <string>
#include <utility>

#include "core/error.hpp"
#include "run_options.hpp"

namespace simscope::app {

/// No window could be opened. what(): the command line's message; reason(): GLFW's own words;
/// no_display(): GLFW could not start (no display), rather than no OpenGL 4.5 core context.
/// simscope.show (app/pygui/py_gui.cpp) words it for Python from reason().
class WindowError : public Error {
 public:
  WindowError(const std::string& message, std::string reason, bool no_display)
      : Error(message), reason_(std::move(reason)), no_display_(no_display) {}
  const std::string& reason() const { return reason_; }
  bool no_display() const { return no_display_; }

 private:
  std::string reason_;
  bool no_display_;
};

/// Opens the window and runs until it is closed, or until --frames N frames are drawn. Returns
/// the exit status. Throws WindowError when no window can be opened: no display, or no
/// OpenGL 4.5; simscope::Error for bad options (make_session's).
int run_gui(const RunOptions& options);

}  // namespace simscope::app
