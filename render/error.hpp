#pragma once
/// @file The error type of the render module.
#include <stdexcept>
#include <string>

namespace simscope::render {

/// Thrown by every render/ function that fails: a GL or EGL call, an impossible size, an unknown
/// name. The message is one line naming what was attempted, the platform or GL object, and the
/// error code's name, e.g. "EGL_BAD_MATCH", so the app can show it as is. The object that threw
/// stays usable; a throwing constructor creates nothing.
class RenderError : public std::runtime_error {
 public:
  explicit RenderError(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace simscope::render
