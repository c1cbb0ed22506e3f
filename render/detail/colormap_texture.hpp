#pragma once
/// @file Internal: a colormap as a 1-D texture, the lookup table the views' shaders sample.
#include <glad/gl.h>

#include <string>

namespace simscope::render::detail {

/// A 1-D RGBA32F texture of 256 texels holding one colormap (colormap.hpp) at a time.
/// Made and used with a current GL context; not copyable.
class ColormapTexture {
 public:
  /// `filter`: GL_LINEAR interpolates between the entries, GL_NEAREST picks one. `wrap`: the
  /// texture's GL_TEXTURE_WRAP_S.
  ColormapTexture(GLint filter, GLint wrap);
  ~ColormapTexture();
  ColormapTexture(const ColormapTexture&) = delete;
  ColormapTexture& operator=(const ColormapTexture&) = delete;

  GLuint id() const { return tex_; }
  /// Uploads the colormap called `name` unless it is the one loaded. Throws RenderError for an
  /// unknown name, or for a GL error ("OpenGL error ... in `what`"); the loaded one is then kept.
  void load(const std::string& name, const char* what);

 private:
  GLuint tex_ = 0;
  std::string loaded_;
};

}  // namespace simscope::render::detail
