#include "render/plane_view.hpp"

#include <glad/gl.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "render/colormap.hpp"
#include "render/detail/gl_check.hpp"
#include "render/detail/minmax.hpp"
#include "render/detail/shader.hpp"
#include "render/error.hpp"
#include "render/interop_buffer.hpp"
#include "render/text.hpp"
#include "render/ticks.hpp"

namespace simscope::render {

using detail::check_gl;

namespace {

constexpr float kNanGrey = 0.5f;

std::string title_of(const ViewSettings& s) {
  if (s.unit.empty()) return s.label;
  return s.label.empty() ? "[" + s.unit + "]" : s.label + " [" + s.unit + "]";
}

}  // namespace

struct PlaneView::Impl {
  detail::ShaderProgram program{"quad.vert", "plane.frag"};
  GLint loc_rect = program.uniform("u_rect");
  GLint loc_viewport = program.uniform("u_viewport");
  GLint loc_mode = program.uniform("u_mode");
  GLint loc_log = program.uniform("u_log");
  GLint loc_range = program.uniform("u_range");
  GLint loc_nan = program.uniform("u_nan_color");
  GLint loc_window = program.uniform("u_window");
  std::array<double, 4> window{0, 0, 1, 1};  // zoom window (u0, v0, du, dv)
  InteropBuffer buffer;
  mutable detail::MinMax minmax;
  TextRenderer text;
  GLuint vao = 0, data_tex = 0, cmap_tex = 0;
  GLint max_texture = 0;

  ViewSettings settings;
  std::string loaded_cmap;
  int rows = 0, cols = 0;          // of the data
  int tex_rows = 0, tex_cols = 0;  // of the allocated texture
  mutable bool range_dirty = true;
  mutable detail::DataRange data_range;
  float bg[3] = {0.11f, 0.11f, 0.13f};
  float ui_scale = 1.0f;
  std::optional<PixelRect> image_rect, bar_rect;

  void check_size(int r, int c) const {
    if (r < 1 || c < 1 || r > max_texture || c > max_texture) {
      throw RenderError("plane of " + std::to_string(r) + " x " + std::to_string(c) +
                        " values: each side must be 1.." + std::to_string(max_texture) +
                        " (GL_MAX_TEXTURE_SIZE)");
    }
  }

  void load_colormap() {
    if (loaded_cmap == settings.colormap) return;
    const Colormap& map = colormap(settings.colormap);
    std::vector<float> rgba;
    rgba.reserve(map.table.size() * 4);
    for (const auto& c : map.table) rgba.insert(rgba.end(), {c[0], c[1], c[2], 1.0f});
    glTextureSubImage1D(cmap_tex, 0, 0, static_cast<GLsizei>(map.table.size()), GL_RGBA, GL_FLOAT,
                        rgba.data());
    check_gl("uploading the colormap texture");
    loaded_cmap = settings.colormap;
  }

  /// PBO -> R32F texture (cols wide, rows high), after the buffer holds rows*cols floats.
  void upload_texture(int r, int c) {
    if (r != tex_rows || c != tex_cols) {
      if (data_tex != 0) glDeleteTextures(1, &data_tex);
      data_tex = 0;
      tex_rows = tex_cols = 0;
      glCreateTextures(GL_TEXTURE_2D, 1, &data_tex);
      glTextureStorage2D(data_tex, 1, GL_R32F, c, r);
      glTextureParameteri(data_tex, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
      glTextureParameteri(data_tex, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
      glTextureParameteri(data_tex, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
      glTextureParameteri(data_tex, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
      check_gl("allocating the data texture (R32F)");
      tex_rows = r;
      tex_cols = c;
    }
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, buffer.gl_buffer());
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
    glTextureSubImage2D(data_tex, 0, 0, 0, c, r, GL_RED, GL_FLOAT, nullptr);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
    check_gl("pixel buffer -> data texture (glTextureSubImage2D)");
    rows = r;
    cols = c;
    range_dirty = true;
  }
};

PlaneView::PlaneView() {
  detail::require_gl("PlaneView");
  impl_ = std::make_unique<Impl>();
  Impl& m = *impl_;
  glGetIntegerv(GL_MAX_TEXTURE_SIZE, &m.max_texture);
  glCreateVertexArrays(1, &m.vao);
  glCreateTextures(GL_TEXTURE_1D, 1, &m.cmap_tex);
  glTextureStorage1D(m.cmap_tex, 1, GL_RGBA32F, 256);
  glTextureParameteri(m.cmap_tex, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTextureParameteri(m.cmap_tex, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  check_gl("creating the plane view's textures");
  m.load_colormap();
}

PlaneView::~PlaneView() {
  if (!impl_) return;
  if (impl_->data_tex != 0) glDeleteTextures(1, &impl_->data_tex);
  if (impl_->cmap_tex != 0) glDeleteTextures(1, &impl_->cmap_tex);
  if (impl_->vao != 0) glDeleteVertexArrays(1, &impl_->vao);
}

void PlaneView::set_settings(const ViewSettings& s) {
  colormap(s.colormap);  // throws for unknown names
  if (!s.auto_range) {
    if (!std::isfinite(s.min) || !std::isfinite(s.max) || !(s.min < s.max)) {
      throw RenderError("locked range [" + std::to_string(s.min) + ", " + std::to_string(s.max) +
                        "]: needs finite min < max");
    }
    if (s.log_scale && !(s.min > 0)) {
      throw RenderError("locked log-scale range needs min > 0 (got " + std::to_string(s.min) + ")");
    }
  }
  const ViewSettings old = impl_->settings;
  impl_->settings = s;
  try {
    impl_->load_colormap();
  } catch (...) {
    impl_->settings = old;
    throw;
  }
}

const ViewSettings& PlaneView::settings() const { return impl_->settings; }

void PlaneView::set_data_host(const float* data, int rows, int cols) {
  impl_->check_size(rows, cols);
  impl_->buffer.upload_host(data, static_cast<size_t>(rows) * static_cast<size_t>(cols));
  impl_->upload_texture(rows, cols);
}

void PlaneView::set_data_device(const float* device_ptr, int rows, int cols) {
  impl_->check_size(rows, cols);
  impl_->buffer.upload_device(device_ptr, static_cast<size_t>(rows) * static_cast<size_t>(cols));
  impl_->upload_texture(rows, cols);
}

float* PlaneView::map_device(int rows, int cols) {
  impl_->check_size(rows, cols);
  float* ptr = impl_->buffer.map_device(static_cast<size_t>(rows) * static_cast<size_t>(cols));
  if (ptr != nullptr) {
    impl_->rows = rows;  // the texture follows in unmap_device()
    impl_->cols = cols;
  }
  return ptr;
}

void PlaneView::unmap_device() {
  impl_->buffer.unmap_device();
  if (impl_->rows > 0) impl_->upload_texture(impl_->rows, impl_->cols);
}

std::pair<double, double> PlaneView::range() const {
  const Impl& m = *impl_;
  const ViewSettings& s = m.settings;
  if (!s.auto_range) return {s.min, s.max};
  if (m.tex_rows == 0) return {0.0, 1.0};
  if (m.range_dirty) {
    m.data_range = m.minmax.reduce(m.buffer.gl_buffer(),
                                   static_cast<size_t>(m.rows) * static_cast<size_t>(m.cols));
    m.range_dirty = false;
  }
  const detail::DataRange& r = m.data_range;
  if (s.log_scale) {
    if (!r.has_positive) return {1.0, 10.0};
    const double lo = r.min_positive, hi = r.max;
    if (!(lo < hi)) return {lo / std::sqrt(10.0), lo * std::sqrt(10.0)};
    return {lo, hi};
  }
  if (r.finite_count == 0) return {0.0, 1.0};
  if (!(r.min < r.max)) return {r.min - 0.5, r.max + 0.5};
  return {r.min, r.max};
}

void PlaneView::draw(int x, int y, int w, int h) {
  Impl& m = *impl_;
  m.image_rect.reset();
  m.bar_rect.reset();
  if (w < 1 || h < 1) return;
  const ViewSettings& s = m.settings;
  const auto [lo, hi] = range();

  glDisable(GL_DEPTH_TEST);
  glDisable(GL_CULL_FACE);
  glDisable(GL_BLEND);
  glViewport(x, y, w, h);
  glEnable(GL_SCISSOR_TEST);
  glScissor(x, y, w, h);
  glClearColor(m.bg[0], m.bg[1], m.bg[2], 1.0f);
  glClear(GL_COLOR_BUFFER_BIT);
  glDisable(GL_SCISSOR_TEST);
  check_gl("clearing the plane view");

  // Layout, in pixels relative to (x, y).
  const float u = m.ui_scale;
  m.text.set_scale(std::max(1.0f, std::round(2.0f * u)));
  const float pad = std::round(10 * u), bar_w = std::round(18 * u), tick_len = std::round(5 * u);
  const float gap = std::round(4 * u), line = std::max(1.0f, std::round(u));
  const float cap = m.text.cap_height();
  const std::vector<Tick> ticks = colorbar_ticks(lo, hi, s.log_scale);
  const std::string title = title_of(s);
  float label_w = 0;
  for (const Tick& t : ticks) label_w = std::max(label_w, m.text.text_width(t.label));
  const float title_w = m.text.text_width(title);
  const float title_h = title.empty() ? 0.0f : cap + std::round(10 * u);
  // The colorbar panel is as wide as the bar and its tick labels; the title sits in a stripe
  // along the top, right-aligned, so a long unit does not take width from the image.
  const float panel_w = pad + bar_w + tick_len + gap + label_w + pad;
  float bar_y0 = pad + std::ceil(cap / 2), bar_y1 = h - pad - title_h - std::ceil(cap / 2);
  const bool bar =
      s.colorbar && panel_w < 0.6f * w && title_w + 2 * pad <= w && bar_y1 - bar_y0 >= 4 * cap;

  float ax = 0, ay = 0, aw = static_cast<float>(w), ah = static_cast<float>(h);
  if (bar) {
    ax = pad;
    ay = pad;
    aw = w - panel_w - pad;
    ah = h - 2 * pad - title_h;
  }

  glUseProgram(m.program.id());
  glBindVertexArray(m.vao);
  glBindTextureUnit(1, m.cmap_tex);
  glUniform2f(m.loc_viewport, static_cast<float>(w), static_cast<float>(h));
  glUniform1i(m.loc_log, s.log_scale ? 1 : 0);
  if (s.log_scale) {
    glUniform2f(m.loc_range, static_cast<float>(std::log10(lo)),
                static_cast<float>(std::log10(hi)));
  } else {
    glUniform2f(m.loc_range, static_cast<float>(lo), static_cast<float>(hi));
  }
  glUniform3f(m.loc_nan, kNanGrey, kNanGrey, kNanGrey);
  if (m.tex_rows > 0 && aw >= 1 && ah >= 1) {
    const double scale =
        std::min(static_cast<double>(aw) / m.rows, static_cast<double>(ah) / m.cols);
    const double iw = m.rows * scale, ih = m.cols * scale;
    const double ix = std::floor(ax + (aw - iw) / 2 + 0.5),
                 iy = std::floor(ay + (ah - ih) / 2 + 0.5);
    glBindTextureUnit(0, m.data_tex);
    glUniform1i(m.loc_mode, 0);
    glUniform4f(m.loc_window, float(m.window[0]), float(m.window[1]), float(m.window[2]),
                float(m.window[3]));
    glUniform4f(m.loc_rect, static_cast<float>(ix), static_cast<float>(iy), static_cast<float>(iw),
                static_cast<float>(ih));
    glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
    m.image_rect = PixelRect{x + ix, y + iy, iw, ih};
    // The bar spans the image's height when that leaves room for its labels.
    if (bar && ih - std::ceil(cap) >= 4 * cap) {
      bar_y0 = static_cast<float>(iy) + std::ceil(cap / 2);
      bar_y1 = static_cast<float>(iy + ih) - std::ceil(cap / 2);
    }
  }
  const float bx0 = w - panel_w + pad, bx1 = bx0 + bar_w;
  if (bar) {
    glUniform1i(m.loc_mode, 1);
    glUniform4f(m.loc_rect, bx0, bar_y0, bar_w, bar_y1 - bar_y0);
    glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
    m.bar_rect = PixelRect{x + bx0, y + bar_y0, bar_w, bar_y1 - bar_y0};
  }
  glBindVertexArray(0);
  glUseProgram(0);
  check_gl("drawing the plane");
  if (!bar) return;

  // Frame, ticks, labels, title. Text light on dark backgrounds, dark on light ones.
  const float lum = 0.2126f * m.bg[0] + 0.7152f * m.bg[1] + 0.0722f * m.bg[2];
  const Rgba ink = lum > 0.5f ? Rgba{0, 0, 0, 1} : Rgba{1, 1, 1, 1};
  const Rgba frame = lum > 0.5f ? Rgba{0.3f, 0.3f, 0.3f, 1} : Rgba{0.75f, 0.75f, 0.75f, 1};
  m.text.add_rect(bx0 - line, bar_y0 - line, bx1 + line, bar_y0, frame);
  m.text.add_rect(bx0 - line, bar_y1, bx1 + line, bar_y1 + line, frame);
  m.text.add_rect(bx0 - line, bar_y0, bx0, bar_y1, frame);
  m.text.add_rect(bx1, bar_y0, bx1 + line, bar_y1, frame);
  for (const Tick& t : ticks) {
    const float ty = std::round(bar_y0 + static_cast<float>(t.position) * (bar_y1 - bar_y0));
    m.text.add_rect(bx1, ty - line / 2, bx1 + tick_len, ty + line - line / 2, frame);
    m.text.add_text(t.label, bx1 + tick_len + gap, ty + std::round(cap / 2), ink);
  }
  for (const double pos : colorbar_minor_ticks(lo, hi, s.log_scale)) {
    const float ty = std::round(bar_y0 + static_cast<float>(pos) * (bar_y1 - bar_y0));
    m.text.add_rect(bx1, ty - line / 2, bx1 + std::round(tick_len / 2), ty + line - line / 2,
                    frame);
  }
  if (!title.empty())
    m.text.add_text(title, std::min(bx0, w - pad - title_w),
                    std::min<float>(h - pad, bar_y1 + std::ceil(cap / 2) + title_h), ink);
  m.text.draw(w, h);
}

std::optional<std::pair<double, double>> PlaneView::image_coords(double px, double py) const {
  const Impl& m = *impl_;
  if (!m.image_rect) return std::nullopt;
  const PixelRect& r = *m.image_rect;
  const double fi = (px - r.x) / r.w, fj = (py - r.y) / r.h;
  if (!(fi >= 0 && fi < 1 && fj >= 0 && fj < 1)) return std::nullopt;
  const auto& z = m.window;
  return std::make_pair((z[0] + fi * z[2]) * m.rows, (z[1] + fj * z[3]) * m.cols);
}

void PlaneView::set_zoom(double zoom, double cu, double cv) {
  if (!(zoom >= 1) || !std::isfinite(zoom) || !std::isfinite(cu) || !std::isfinite(cv))
    throw RenderError("plane view zoom must be a finite number >= 1");
  const double d = 1.0 / zoom;
  const double u0 = std::clamp(cu - d / 2, 0.0, 1.0 - d), v0 = std::clamp(cv - d / 2, 0.0, 1.0 - d);
  impl_->window = {u0, v0, d, d};
}

std::array<double, 4> PlaneView::zoom_window() const { return impl_->window; }

std::optional<PixelRect> PlaneView::last_image_rect() const { return impl_->image_rect; }
std::optional<PixelRect> PlaneView::last_colorbar_rect() const { return impl_->bar_rect; }
std::string PlaneView::upload_path() const { return impl_->buffer.path(); }
std::string PlaneView::upload_fallback_reason() const { return impl_->buffer.fallback_reason(); }

void PlaneView::set_background(float r, float g, float b) {
  impl_->bg[0] = std::clamp(r, 0.0f, 1.0f);
  impl_->bg[1] = std::clamp(g, 0.0f, 1.0f);
  impl_->bg[2] = std::clamp(b, 0.0f, 1.0f);
}

void PlaneView::set_ui_scale(float scale) {
  if (!(scale > 0 && scale <= 16)) throw RenderError("ui scale must be in (0, 16]");
  impl_->ui_scale = scale;
}

int PlaneView::rows() const { return impl_->rows; }
int PlaneView::cols() const { return impl_->cols; }

}  // namespace simscope::render
