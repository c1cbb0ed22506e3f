// A colormap as a 1-D texture (detail/colormap_texture.hpp).
#include "render/detail/colormap_texture.hpp"

#include <vector>

#include "render/colormap.hpp"
#include "render/detail/gl_check.hpp"

namespace simscope::render::detail {

ColormapTexture::ColormapTexture(GLint filter, GLint wrap) {
  glCreateTextures(GL_TEXTURE_1D, 1, &tex_);
  glTextureStorage1D(tex_, 1, GL_RGBA32F, 256);
  glTextureParameteri(tex_, GL_TEXTURE_MIN_FILTER, filter);
  glTextureParameteri(tex_, GL_TEXTURE_MAG_FILTER, filter);
  glTextureParameteri(tex_, GL_TEXTURE_WRAP_S, wrap);
}

ColormapTexture::~ColormapTexture() {
  if (tex_) glDeleteTextures(1, &tex_);
}

void ColormapTexture::load(const std::string& name, const char* what) {
  if (loaded_ == name) return;
  const Colormap& map = colormap(name);
  std::vector<float> rgba;
  rgba.reserve(map.table.size() * 4);
  for (const auto& c : map.table) rgba.insert(rgba.end(), {c[0], c[1], c[2], 1.0f});
  glTextureSubImage1D(tex_, 0, 0, static_cast<GLsizei>(map.table.size()), GL_RGBA, GL_FLOAT,
                      rgba.data());
  check_gl(what);
  loaded_ = name;
}

}  // namespace simscope::render::detail
