#include "render/detail/gl_check.hpp"

#include "render/error.hpp"

namespace simscope::render::detail {

const char* gl_error_name(GLenum code) {
  switch (code) {
    case GL_NO_ERROR:
      return "GL_NO_ERROR";
    case GL_INVALID_ENUM:
      return "GL_INVALID_ENUM";
    case GL_INVALID_VALUE:
      return "GL_INVALID_VALUE";
    case GL_INVALID_OPERATION:
      return "GL_INVALID_OPERATION";
    case GL_INVALID_FRAMEBUFFER_OPERATION:
      return "GL_INVALID_FRAMEBUFFER_OPERATION";
    case GL_OUT_OF_MEMORY:
      return "GL_OUT_OF_MEMORY";
    case GL_STACK_UNDERFLOW:
      return "GL_STACK_UNDERFLOW";
    case GL_STACK_OVERFLOW:
      return "GL_STACK_OVERFLOW";
    case GL_CONTEXT_LOST:
      return "GL_CONTEXT_LOST";
    default:
      return "unknown GL error";
  }
}

void check_gl(const char* what) {
  GLenum first = glGetError();
  if (first == GL_NO_ERROR) return;
  // Drain the remaining flags so the next check starts clean. Bounded, since a lost context may
  // report GL_CONTEXT_LOST forever.
  for (int k = 0; k < 16 && glGetError() != GL_NO_ERROR; ++k) {
  }
  throw RenderError(std::string("OpenGL error ") + gl_error_name(first) + " in " + what);
}

void require_gl(const char* who) {
  if (glad_glGetError == nullptr || glad_glCreateShader == nullptr) {
    throw RenderError(std::string(who) +
                      ": no OpenGL 4.5 functions loaded; create a context with "
                      "simscope::render::create_context() and make it current first");
  }
}

}  // namespace simscope::render::detail
