#include "render/detail/shader.hpp"

#include <string_view>
#include <vector>

#include "render/detail/gl_check.hpp"
#include "render/error.hpp"
#include "shaders_embedded.hpp"

namespace simscope::render::detail {

namespace {

std::string first_line(std::string log) {
  while (!log.empty() && (log.back() == '\n' || log.back() == '\0')) log.pop_back();
  const auto nl = log.find('\n');
  return nl == std::string::npos ? log : log.substr(0, nl) + " ...";
}

GLenum stage_of(std::string_view file) {
  if (file.ends_with(".vert")) return GL_VERTEX_SHADER;
  if (file.ends_with(".frag")) return GL_FRAGMENT_SHADER;
  if (file.ends_with(".comp")) return GL_COMPUTE_SHADER;
  throw RenderError("shader " + std::string(file) + ": unknown stage (expected .vert/.frag/.comp)");
}

}  // namespace

ShaderProgram::ShaderProgram(std::initializer_list<const char*> files) {
  require_gl("ShaderProgram");
  std::vector<GLuint> shaders;
  auto cleanup = [&] {
    for (GLuint s : shaders) glDeleteShader(s);
    if (program_ != 0) glDeleteProgram(program_);
    program_ = 0;
  };
  try {
    for (const char* file : files) {
      if (!names_.empty()) names_ += '+';
      names_ += file;
      const std::string_view src = simscope::embedded::shaders::find(file);
      if (src.empty()) throw RenderError(std::string("shader ") + file + " is not embedded");
      const GLuint s = glCreateShader(stage_of(file));
      check_gl("glCreateShader");
      shaders.push_back(s);
      const GLchar* text = src.data();
      const GLint length = static_cast<GLint>(src.size());
      glShaderSource(s, 1, &text, &length);
      glCompileShader(s);
      GLint ok = GL_FALSE;
      glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
      check_gl("glCompileShader");
      if (ok != GL_TRUE) {
        GLint n = 0;
        glGetShaderiv(s, GL_INFO_LOG_LENGTH, &n);
        std::string log(static_cast<size_t>(n > 0 ? n : 1), '\0');
        glGetShaderInfoLog(s, n, nullptr, log.data());
        throw RenderError(std::string("compiling shader ") + file + ": " + first_line(log));
      }
    }
    program_ = glCreateProgram();
    check_gl("glCreateProgram");
    for (GLuint s : shaders) glAttachShader(program_, s);
    glLinkProgram(program_);
    GLint ok = GL_FALSE;
    glGetProgramiv(program_, GL_LINK_STATUS, &ok);
    check_gl("glLinkProgram");
    if (ok != GL_TRUE) {
      GLint n = 0;
      glGetProgramiv(program_, GL_INFO_LOG_LENGTH, &n);
      std::string log(static_cast<size_t>(n > 0 ? n : 1), '\0');
      glGetProgramInfoLog(program_, n, nullptr, log.data());
      throw RenderError("linking shaders " + names_ + ": " + first_line(log));
    }
    for (GLuint s : shaders) {
      glDetachShader(program_, s);
      glDeleteShader(s);
    }
    shaders.clear();
    check_gl("glDeleteShader");
  } catch (...) {
    cleanup();
    throw;
  }
}

ShaderProgram::~ShaderProgram() {
  if (program_ != 0) glDeleteProgram(program_);
}

GLint ShaderProgram::uniform(const char* name) const {
  const GLint loc = glGetUniformLocation(program_, name);
  check_gl("glGetUniformLocation");
  if (loc < 0) throw RenderError("shaders " + names_ + " have no uniform '" + name + "'");
  return loc;
}

}  // namespace simscope::render::detail
