#include "render/text.hpp"

#include <glad/gl.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <map>
#include <mutex>
#include <vector>

#include "render/detail/gl_check.hpp"
#include "render/detail/shader.hpp"
#include "render/error.hpp"
#include "render/font_atlas.hpp"
#include "render/font_data.hpp"
#include "render/text_markup.hpp"

namespace simscope::render {

using detail::check_gl;

namespace {

struct Vertex {
  float x, y;
  float u, v;  // atlas coordinates; u < 0: a solid fill
  float r, g, b, a;
};

constexpr float kScriptSize = 0.7f;  // super- and subscripts, relative to the text
constexpr float kSuperRaise = 0.5f;  // superscript baseline above the text's, in cap heights
constexpr float kSubLower = 0.3f;    // subscript baseline below it, in cap heights

/// Atlas for a pixel size in quarter pixels, baked once per process and shared by every renderer.
/// Each renderer uploads its own textures. A few sizes per UI scale.
std::shared_ptr<const FontAtlas> shared_atlas(int key) {
  static std::mutex mutex;
  static std::map<int, std::shared_ptr<const FontAtlas>> cache;
  std::lock_guard lock(mutex);
  auto& a = cache[key];
  if (!a) a = std::make_shared<const FontAtlas>(view_font_ttf(), key / 4.0f);
  return a;
}

int size_key(float pixel_size) {
  return std::max(8, static_cast<int>(std::lround(pixel_size * 4)));
}

}  // namespace

struct TextRenderer::Impl {
  detail::ShaderProgram program{"text.vert", "text.frag"};
  GLint viewport_loc = program.uniform("u_viewport");
  GLint atlas_loc = program.uniform("u_atlas");
  GLuint vao = 0, vbo = 0;
  size_t vbo_capacity = 0;  // vertices
  std::vector<Vertex> vertices;
  struct Batch {
    GLuint texture;  // 0: rectangles only so far
    size_t first, count;
  };
  std::vector<Batch> batches;
  struct Atlas {
    std::shared_ptr<const FontAtlas> font;
    GLuint texture = 0;
  };
  std::map<int, Atlas> atlases;
  std::vector<float> baked;
  float em_per_cap = 0;  // pixels per em for a cap height of one pixel

  const Atlas& atlas(float pixel_size) {
    const int key = size_key(pixel_size);
    auto it = atlases.find(key);
    if (it != atlases.end()) return it->second;
    Atlas a;
    a.font = shared_atlas(key);
    glCreateTextures(GL_TEXTURE_2D, 1, &a.texture);
    glTextureStorage2D(a.texture, 1, GL_R8, a.font->width(), a.font->height());
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
    glTextureSubImage2D(a.texture, 0, 0, 0, a.font->width(), a.font->height(), GL_RED,
                        GL_UNSIGNED_BYTE, a.font->pixels().data());
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glTextureParameteri(a.texture, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
    glTextureParameteri(a.texture, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    glTextureParameteri(a.texture, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTextureParameteri(a.texture, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    check_gl("uploading a font atlas");
    baked.push_back(a.font->pixel_size());
    return atlases.emplace(key, std::move(a)).first->second;
  }

  /// The CPU atlas for pixel size `px`, without a GL texture; for measuring.
  std::shared_ptr<const FontAtlas> measure(float px) const {
    const auto it = atlases.find(size_key(px));
    return it != atlases.end() ? it->second.font : shared_atlas(size_key(px));
  }

  void push(GLuint texture, std::initializer_list<Vertex> vs) {
    if (batches.empty() ||
        (texture != 0 && batches.back().texture != 0 && batches.back().texture != texture)) {
      batches.push_back({texture, vertices.size(), 0});
    } else if (texture != 0) {
      batches.back().texture = texture;
    }
    vertices.insert(vertices.end(), vs);
    batches.back().count += vs.size();
  }
};

TextRenderer::TextRenderer(float scale) : impl_(std::make_unique<Impl>()), scale_(scale) {
  impl_->em_per_cap = FontAtlas::pixel_size_for_cap(view_font_ttf(), 1.0f);
  glCreateVertexArrays(1, &impl_->vao);
  glCreateBuffers(1, &impl_->vbo);
  glVertexArrayVertexBuffer(impl_->vao, 0, impl_->vbo, 0, sizeof(Vertex));
  for (GLuint a = 0; a < 3; ++a) {
    glEnableVertexArrayAttrib(impl_->vao, a);
    glVertexArrayAttribBinding(impl_->vao, a, 0);
  }
  glVertexArrayAttribFormat(impl_->vao, 0, 2, GL_FLOAT, GL_FALSE, offsetof(Vertex, x));
  glVertexArrayAttribFormat(impl_->vao, 1, 2, GL_FLOAT, GL_FALSE, offsetof(Vertex, u));
  glVertexArrayAttribFormat(impl_->vao, 2, 4, GL_FLOAT, GL_FALSE, offsetof(Vertex, r));
  check_gl("creating the text vertex array");
}

TextRenderer::~TextRenderer() {
  for (auto& [key, a] : impl_->atlases)
    if (a.texture != 0) glDeleteTextures(1, &a.texture);
  if (impl_->vbo != 0) glDeleteBuffers(1, &impl_->vbo);
  if (impl_->vao != 0) glDeleteVertexArrays(1, &impl_->vao);
}

float text_pixel_size(float scale) {
  return FontAtlas::pixel_size_for_cap(view_font_ttf(), 7.0f * scale);
}

float TextRenderer::pixel_size() const { return impl_->em_per_cap * cap_height(); }

void TextRenderer::prepare(float scale) {
  const float px = impl_->em_per_cap * 7.0f * scale;
  impl_->atlas(px);
  impl_->atlas(px * kScriptSize);
}

std::vector<float> TextRenderer::baked_pixel_sizes() const { return impl_->baked; }

float TextRenderer::layout_width(const std::string& text) const {
  const float px = pixel_size();
  const auto base = impl_->measure(px);
  std::shared_ptr<const FontAtlas> script;
  float pen = 0, first = 0, right = 0;
  bool any = false;
  for (const TextPiece& p : parse_markup(text)) {
    if (p.level != 0 && !script) script = impl_->measure(px * kScriptSize);
    const GlyphBox& g = (p.level == 0 ? *base : *script).glyph(p.code);
    const bool ink = g.x1 > g.x0;
    if (!any) first = ink ? g.x0 : 0;
    any = true;
    right = std::round(pen) + (ink ? g.x1 : g.advance);
    pen += g.advance;
  }
  return any ? right - first : 0.0f;
}

float TextRenderer::text_width(const std::string& text) const { return layout_width(text); }

void TextRenderer::add_glyphs(const std::string& text, float x, float y, bool vertical,
                              Rgba color) {
  const std::vector<TextPiece> pieces = parse_markup(text);
  if (pieces.empty()) return;
  const float px = pixel_size(), cap = cap_height();
  const Impl::Atlas& base = impl_->atlas(px);
  const Impl::Atlas* script = nullptr;
  for (const TextPiece& p : pieces)
    if (p.level != 0) script = &impl_->atlas(px * kScriptSize);
  // Horizontal: (x, y) is the caps' top-left corner. Vertical, a quarter turn anticlockwise: tops
  // face left at x and the line runs up from y. Pens and baselines snap to whole pixels.
  const float baseline = vertical ? std::round(x + cap) : std::round(y - cap);
  float pen = vertical ? std::round(y) : std::round(x);
  const float raise = std::round(kSuperRaise * cap), lower = std::round(kSubLower * cap);
  {  // the first glyph's ink at the pen: its left side bearing is not part of the text's box
    const Impl::Atlas& a = pieces[0].level == 0 ? base : *script;
    const GlyphBox& g = a.font->glyph(pieces[0].code);
    if (g.x1 > g.x0) pen -= g.x0;
  }
  for (const TextPiece& p : pieces) {
    const Impl::Atlas& a = p.level == 0 ? base : *script;
    const GlyphBox& g = a.font->glyph(p.code);
    const float b = p.level > 0 ? raise : p.level < 0 ? -lower : 0.0f;  // up from the baseline
    const float gx0 = std::round(pen) + g.x0, gx1 = std::round(pen) + g.x1;
    const float gy0 = g.y0 + b, gy1 = g.y1 + b;
    Vertex v0, v1, v2, v3;  // bottom-left, bottom-right, top-right, top-left of the glyph
    auto make = [&](float along, float up, float s, float t) {
      return vertical ? Vertex{baseline - up, along, s, t, color[0], color[1], color[2], color[3]}
                      : Vertex{along, baseline + up, s, t, color[0], color[1], color[2], color[3]};
    };
    v0 = make(gx0, gy0, g.s0, g.t1);
    v1 = make(gx1, gy0, g.s1, g.t1);
    v2 = make(gx1, gy1, g.s1, g.t0);
    v3 = make(gx0, gy1, g.s0, g.t0);
    if (gx1 > gx0 && gy1 > gy0) impl_->push(a.texture, {v0, v1, v2, v0, v2, v3});
    pen += g.advance;
  }
}

void TextRenderer::add_text(const std::string& text, float x, float top, Rgba color) {
  add_glyphs(text, x, top, false, color);
}

void TextRenderer::add_text_vertical(const std::string& text, float left, float bottom,
                                     Rgba color) {
  add_glyphs(text, left, bottom, true, color);
}

std::string TextRenderer::elide(const std::string& text, float max_width) const {
  if (text_width(text) <= max_width) return text;
  for (size_t n = text.size(); n-- > 0;) {
    if (!utf8_boundary(text, n)) continue;
    std::string t = text.substr(0, n);
    while (!t.empty() && t.back() == ' ') t.pop_back();
    t += "...";
    if (text_width(t) <= max_width) return t;
  }
  return "";
}

std::vector<std::string> TextRenderer::wrap(const std::string& text, float max_width,
                                            int max_lines) const {
  std::vector<std::string> words;
  for (size_t a = 0; a < text.size();) {
    const size_t b = std::min(text.find(' ', a), text.size());
    if (b > a) words.push_back(text.substr(a, b - a));
    a = b + 1;
  }
  std::vector<std::string> lines;
  if (max_lines < 1) return lines;
  std::string line;
  size_t rest = words.size();  // the first word not placed when the lines ran out
  for (size_t k = 0; k < words.size() && rest == words.size(); ++k) {
    const std::string joined = line.empty() ? words[k] : line + " " + words[k];
    if (text_width(joined) <= max_width) {
      line = joined;
      continue;
    }
    if (!line.empty()) {
      lines.push_back(line);
      line.clear();
      if (static_cast<int>(lines.size()) == max_lines) {
        rest = k;
        break;
      }
    }
    if (text_width(words[k]) <= max_width) {
      line = words[k];
    } else {  // a word wider than a line
      lines.push_back(elide(words[k], max_width));
      if (static_cast<int>(lines.size()) == max_lines) rest = k + 1;
    }
  }
  if (!line.empty()) lines.push_back(line);
  if (rest < words.size() && !lines.empty()) {  // text remains: the last line says so
    std::string last = lines.back();
    for (size_t r = rest; r < words.size(); ++r) last += " " + words[r];
    lines.back() = elide(last, max_width);
  }
  while (!lines.empty() && lines.back().empty()) lines.pop_back();
  return lines;
}

void TextRenderer::add_rect(float x0, float y0, float x1, float y1, Rgba color) {
  const Vertex a{x0, y0, -1, -1, color[0], color[1], color[2], color[3]};
  const Vertex b{x1, y0, -1, -1, color[0], color[1], color[2], color[3]};
  const Vertex c{x1, y1, -1, -1, color[0], color[1], color[2], color[3]};
  const Vertex d{x0, y1, -1, -1, color[0], color[1], color[2], color[3]};
  impl_->push(0, {a, b, c, a, c, d});
}

void TextRenderer::draw(int viewport_w, int viewport_h) {
  if (impl_->vertices.empty() || viewport_w < 1 || viewport_h < 1) {
    clear();
    return;
  }
  const size_t n = impl_->vertices.size();
  if (n > impl_->vbo_capacity) {
    glNamedBufferData(impl_->vbo, static_cast<GLsizeiptr>(n * sizeof(Vertex)), nullptr,
                      GL_STREAM_DRAW);
    impl_->vbo_capacity = n;
  }
  glNamedBufferSubData(impl_->vbo, 0, static_cast<GLsizeiptr>(n * sizeof(Vertex)),
                       impl_->vertices.data());
  check_gl("uploading text vertices");
  glEnable(GL_BLEND);
  glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ZERO, GL_ONE);
  glUseProgram(impl_->program.id());
  glUniform2f(impl_->viewport_loc, static_cast<float>(viewport_w), static_cast<float>(viewport_h));
  glUniform1i(impl_->atlas_loc, 0);
  glBindVertexArray(impl_->vao);
  for (const Impl::Batch& b : impl_->batches) {
    glBindTextureUnit(0, b.texture);
    glDrawArrays(GL_TRIANGLES, static_cast<GLint>(b.first), static_cast<GLsizei>(b.count));
  }
  glBindTextureUnit(0, 0);
  glBindVertexArray(0);
  glUseProgram(0);
  glDisable(GL_BLEND);
  glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
  impl_->vertices.clear();
  impl_->batches.clear();
  check_gl("drawing text");
}

void TextRenderer::clear() {
  impl_->vertices.clear();
  impl_->batches.clear();
}

}  // namespace simscope::render
