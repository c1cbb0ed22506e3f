#pragma once
/// @file The error type of the render module.
#include <stdexcept>
#include <string>

namespace simscope::render {

/// Thrown by every render/ function that fails: a failed GL or EGL call, an impossible size,
/// an unknown name. The message is one line that names what was attempted, the platform or GL
/// object involved and the error code's name (e.g. "EGL_BAD_MATCH"), so that the app can show
/// it as is. A RenderError leaves the object it came from usable (or, for constructors, not
/// created).
class RenderError : public std::runtime_error {
 public:
  explicit RenderError(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace simscope::render
