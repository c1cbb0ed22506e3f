#pragma once
/// @file Internal: GLSL programs built from the embedded sources in shaders/.
#include <glad/gl.h>

#include <initializer_list>
#include <string>

namespace simscope::render::detail {

/// A linked GLSL program built from embedded shaders looked up by file name, e.g. "plane.frag".
/// The extension sets the stage: .vert, .frag, .comp. Needs a current GL 4.5 context.
/// Throws RenderError with the first line of the compiler's or linker's log on failure.
class ShaderProgram {
 public:
  explicit ShaderProgram(std::initializer_list<const char*> files);
  ~ShaderProgram();
  ShaderProgram(const ShaderProgram&) = delete;
  ShaderProgram& operator=(const ShaderProgram&) = delete;

  GLuint id() const { return program_; }
  /// The location of uniform `name`; throws RenderError when the program has no such uniform.
  GLint uniform(const char* name) const;

 private:
  GLuint program_ = 0;
  std::string names_;
};

}  // namespace simscope::render::detail
