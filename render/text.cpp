#include "render/text.hpp"

#include <glad/gl.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

#include "render/detail/gl_check.hpp"
#include "render/detail/shader.hpp"
#include "render/error.hpp"

// stb_easy_font.h: all functions are static; this is its only user.
#include <stb_easy_font.h>

namespace simscope::render {

using detail::check_gl;

namespace {

struct Vertex {
  float x, y;
  float r, g, b, a;
};

/// stb_easy_font indexes its tables with (c - 32): keep printable ASCII only.
std::string printable(const std::string& text) {
  std::string out = text;
  for (char& c : out) {
    if (c < 32 || c > 126) c = '?';
  }
  return out;
}

}  // namespace

struct TextRenderer::Impl {
  detail::ShaderProgram program{"solid.vert", "solid.frag"};
  GLint viewport_loc = program.uniform("u_viewport");
  GLuint vao = 0, vbo = 0;
  size_t vbo_capacity = 0;  // vertices
  std::vector<Vertex> vertices;
  std::vector<char> scratch;  // stb_easy_font output
};

TextRenderer::TextRenderer(float scale) : impl_(std::make_unique<Impl>()), scale_(scale) {
  glCreateVertexArrays(1, &impl_->vao);
  glCreateBuffers(1, &impl_->vbo);
  glVertexArrayVertexBuffer(impl_->vao, 0, impl_->vbo, 0, sizeof(Vertex));
  glEnableVertexArrayAttrib(impl_->vao, 0);
  glEnableVertexArrayAttrib(impl_->vao, 1);
  glVertexArrayAttribFormat(impl_->vao, 0, 2, GL_FLOAT, GL_FALSE, offsetof(Vertex, x));
  glVertexArrayAttribFormat(impl_->vao, 1, 4, GL_FLOAT, GL_FALSE, offsetof(Vertex, r));
  glVertexArrayAttribBinding(impl_->vao, 0, 0);
  glVertexArrayAttribBinding(impl_->vao, 1, 0);
  check_gl("creating the text vertex array");
}

TextRenderer::~TextRenderer() {
  if (impl_->vbo != 0) glDeleteBuffers(1, &impl_->vbo);
  if (impl_->vao != 0) glDeleteVertexArrays(1, &impl_->vao);
}

float TextRenderer::text_width(const std::string& text) const {
  std::string t = printable(text);
  // stb_easy_font_width counts the advance of the last glyph too: drop its 1-unit gap.
  const int w = stb_easy_font_width(t.data());
  return t.empty() ? 0.0f : static_cast<float>(w - 1) * scale_;
}

void TextRenderer::add_glyphs(const std::string& text, float x, float y, bool vertical,
                              Rgba color) {
  std::string t = printable(text);
  if (t.empty()) return;
  x = std::round(x);  // whole pixels: crisp glyph edges at integer scales
  y = std::round(y);
  // stb_easy_font truncates silently: room for 16 quads (64 bytes each) per glyph, more than any
  // glyph has (at most 11, "@"; "0" needs 6).
  impl_->scratch.resize(t.size() * 16 * 64 + 64);
  const int quads = stb_easy_font_print(0, 0, t.data(), nullptr, impl_->scratch.data(),
                                        static_cast<int>(impl_->scratch.size()));
  // Each quad: 4 vertices of {x, y, z, rgba8} (16 bytes), y pointing down. Horizontal: (x, y) is
  // the top-left corner; vertical (a quarter turn anticlockwise): font x runs up from y, font y
  // (down) runs right from x.
  auto corner = [&](int q, int k) {
    const float* f = reinterpret_cast<const float*>(impl_->scratch.data() + (q * 4 + k) * 16);
    if (vertical)
      return Vertex{x + f[1] * scale_, y + f[0] * scale_, color[0], color[1], color[2], color[3]};
    return Vertex{x + f[0] * scale_, y - f[1] * scale_, color[0], color[1], color[2], color[3]};
  };
  for (int q = 0; q < quads; ++q) {
    const Vertex v0 = corner(q, 0), v1 = corner(q, 1), v2 = corner(q, 2), v3 = corner(q, 3);
    impl_->vertices.insert(impl_->vertices.end(), {v0, v1, v2, v0, v2, v3});
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
  const Vertex a{x0, y0, color[0], color[1], color[2], color[3]};
  const Vertex b{x1, y0, color[0], color[1], color[2], color[3]};
  const Vertex c{x1, y1, color[0], color[1], color[2], color[3]};
  const Vertex d{x0, y1, color[0], color[1], color[2], color[3]};
  impl_->vertices.insert(impl_->vertices.end(), {a, b, c, a, c, d});
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
  glBindVertexArray(impl_->vao);
  glDrawArrays(GL_TRIANGLES, 0, static_cast<GLsizei>(n));
  glBindVertexArray(0);
  glUseProgram(0);
  glDisable(GL_BLEND);
  glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
  impl_->vertices.clear();
  check_gl("drawing text");
}

void TextRenderer::clear() { impl_->vertices.clear(); }

}  // namespace simscope::render
