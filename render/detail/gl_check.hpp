#pragma once
/// @file Internal: checking OpenGL calls (glGetError) and naming GL error codes.
#include <glad/gl.h>

#include <string>

namespace simscope::render::detail {

/// The name of a glGetError() code, e.g. "GL_INVALID_OPERATION".
const char* gl_error_name(GLenum code);

/// Drains glGetError(); when any error was pending, throws RenderError
/// "OpenGL error GL_INVALID_VALUE in <what>". Call after each GL call or small group of calls.
void check_gl(const char* what);

/// Throws RenderError when no GL functions are loaded, i.e. no context was made current through
/// create_context(). `who` names the caller in the message.
void require_gl(const char* who);

}  // namespace simscope::render::detail
