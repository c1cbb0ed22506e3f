#include "render/plane_view.hpp"

#include <glad/gl.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "render/colormap.hpp"
#include "render/detail/colormap_texture.hpp"
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

/// Sizes of the view's furniture in pixels for a UI scale.
/// Either the normal set or a compact one, with smaller text and a narrower colorbar.
struct Metrics {
  float text = 2;  ///< TextRenderer scale (pixels per font unit)
  float pad = 10, bar_w = 18, tick_len = 5, gap = 4, line = 1;
  /// Baseline-to-baseline distance of wrapped lines for text of cap height `cap`.
  float line_step(float cap) const { return std::round(cap * 11 / 7); }
  /// How far descenders (g, p, y) reach below the baseline.
  float descent() const { return 3 * text; }
};

Metrics metrics(float u, bool compact) {
  Metrics k;
  k.line = std::max(1.0f, std::round(u));
  if (!compact) {
    k.text = std::max(1.0f, std::round(2.0f * u));
    k.pad = std::round(10 * u), k.bar_w = std::round(18 * u), k.tick_len = std::round(5 * u);
    k.gap = std::round(4 * u);
  } else {
    k.text = std::max(1.0f, std::round(u));
    k.pad = std::max(2.0f, std::round(5 * u)), k.bar_w = std::max(4.0f, std::round(10 * u));
    k.tick_len = std::max(2.0f, std::round(3 * u)), k.gap = std::max(1.0f, std::round(2 * u));
  }
  return k;
}

/// Room for the axis titles: a strip left of the image (axis j) and one below it (axis i).
struct Strips {
  float left = 0, bottom = 0;
};

Strips strips_of(const PlaneAnnotations& an, const Metrics& k, float cap) {
  const float t = cap + k.descent() + 2 * k.gap;
  return Strips{an.axis_j.name.empty() ? 0.0f : t, an.axis_i.name.empty() ? 0.0f : t};
}

/// Where the colorbar goes when it fits.
struct BarLayout {
  Metrics k;
  float panel_w = 0;     ///< the bar and its tick labels, with padding, at the right
  float title_h = 0;     ///< the title's strip along the top
  float y0 = 0, y1 = 0;  ///< the bar's extent when it does not follow the image
  std::vector<std::string> title_lines;
};

/// Coordinate text for an axis title: whole numbers as such ("499"), else 4 significant digits.
/// Values within 1e-12 of `scale` of zero print "0".
std::string format_coord(double v, double scale) {
  if (std::fabs(v) <= 1e-12 * scale) v = 0;
  char buf[40];
  if (v == std::round(v) && std::fabs(v) < 1e9)
    std::snprintf(buf, sizeof buf, "%.0f", v);
  else
    std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

/// "name: a ... b" for the samples of an n-sample axis that zoom window [w0, w0 + dw] shows,
/// at least in part. The window is in fractions of the axis.
std::string axis_text(const AxisTitle& a, int n, double w0, double dw) {
  if (!a.show_range || n < 1) return a.name;
  const int k0 = std::clamp(static_cast<int>(std::floor(w0 * n + 1e-9)), 0, n - 1);
  const int k1 = std::clamp(static_cast<int>(std::ceil((w0 + dw) * n - 1e-9)) - 1, k0, n - 1);
  auto at = [&](int k) { return n > 1 ? a.first + (a.last - a.first) * k / (n - 1) : a.first; };
  const double scale = std::max(std::fabs(a.first), std::fabs(a.last));
  return a.name + ": " + format_coord(at(k0), scale) + " ... " + format_coord(at(k1), scale);
}

/// A tick label as drawn: "2.5e-03" as 2.5×10⁻³ with a real superscript (text_markup.hpp), "1e+04"
/// as 10⁴. Other labels are unchanged.
std::string display_label(const std::string& label) {
  const size_t e = label.find('e');
  if (e == std::string::npos || e == 0) return label;
  const std::string mant = label.substr(0, e);
  const int exponent = std::atoi(label.c_str() + e + 1);
  const std::string power = "10^{" + std::to_string(exponent) + "}";
  if (mant == "1") return power;
  if (mant == "-1") return "\\minus" + power;
  return (mant[0] == '-' ? "\\minus" + mant.substr(1) : mant) + "\\times" + power;
}

void check_annotations(const PlaneAnnotations& an) {
  for (const AxisTitle* a : {&an.axis_i, &an.axis_j})
    if (!std::isfinite(a->first) || !std::isfinite(a->last))
      throw RenderError("axis title '" + a->name +
                        "': the first and last coordinates must be "
                        "finite");
  for (const RegionLabel& r : an.regions) {
    const bool ok = std::isfinite(r.u0) && std::isfinite(r.u1) && std::isfinite(r.v0) &&
                    std::isfinite(r.v1) && r.u0 < r.u1 && r.v0 < r.v1;
    if (!ok)
      throw RenderError("region label '" + (r.texts.empty() ? std::string() : r.texts.front()) +
                        "': needs finite fractions u0 < u1 and v0 < v1");
  }
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
  GLuint vao = 0, data_tex = 0;
  detail::ColormapTexture cmap{GL_NEAREST, GL_REPEAT};
  GLint max_texture = 0;

  ViewSettings settings;
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

  /// Uploads the PBO into the R32F texture, cols wide and rows high.
  /// The buffer must hold rows*cols floats.
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

  /// The colorbar's layout with metrics `k` in a w x h view; nullopt when it does not fit.
  /// The panel must leave the image 40 % of the width, the bar must be at least 4 text heights
  /// tall, and the title wraps onto at most 3 lines of the view's width.
  std::optional<BarLayout> plan_bar(const Metrics& k, const std::vector<Tick>& ticks,
                                    const std::string& title, const PlaneAnnotations& an, int w,
                                    int h) {
    text.set_scale(k.text);
    const float cap = text.cap_height();
    BarLayout b;
    b.k = k;
    float label_w = 0;
    for (const Tick& t : ticks)
      label_w = std::max(label_w, text.text_width(display_label(t.label)));
    if (!title.empty()) {
      b.title_lines = text.wrap(title, w - 2 * k.pad, 3);
      if (b.title_lines.empty()) return std::nullopt;
      b.title_h = cap + (b.title_lines.size() - 1) * k.line_step(cap) + k.pad;
    }
    b.panel_w = k.pad + k.bar_w + k.tick_len + k.gap + label_w + k.pad;
    b.y0 = k.pad + strips_of(an, k, cap).bottom + std::ceil(cap / 2);
    b.y1 = h - k.pad - b.title_h - std::ceil(cap / 2);
    if (!(b.panel_w < 0.6f * w) || b.y1 - b.y0 < 4 * cap) return std::nullopt;
    return b;
  }

  /// Adds the axis titles beside image rectangle `img`, in view pixels, centred on it.
  /// Axis i's title stays right of the image area's left edge ax and `pad` from the right edge of a
  /// view of width w. Axis j's stays within the image's height. Each shows the range, else the
  /// name, else the name elided.
  void add_axis_titles(const PixelRect& img, const Strips& strips, const Metrics& k, float ax,
                       float w, Rgba ink) {
    const PlaneAnnotations& an = settings.annotations;
    const float cap = text.cap_height();
    auto fit = [&](const AxisTitle& a, int n, double w0, double dw, float max_w) {
      const std::string full = axis_text(a, n, w0, dw);
      if (text.text_width(full) <= max_w) return full;
      return text.elide(a.name, max_w);
    };
    if (strips.bottom > 0) {
      const float room = w - k.pad - ax;
      const std::string t = fit(an.axis_i, rows, window[0], window[2], room);
      const float tw = text.text_width(t);
      const float left = std::clamp(static_cast<float>(img.x + img.w / 2) - tw / 2, ax,
                                    std::max(ax, ax + room - tw));
      text.add_text(t, left, static_cast<float>(img.y) - k.gap, ink);
    }
    if (strips.left > 0) {
      // Along the image only: the colorbar's title, just above the image, may reach this far left.
      const float room = static_cast<float>(img.h), y0 = static_cast<float>(img.y);
      const std::string t = fit(an.axis_j, cols, window[1], window[3], room);
      const float tw = text.text_width(t);
      const float bottom = std::clamp(y0 + room / 2 - tw / 2, y0, std::max(y0, y0 + room - tw));
      text.add_text_vertical(t, static_cast<float>(img.x) - k.gap - k.descent() - cap, bottom, ink);
    }
  }

  /// Adds each region label in the top-left corner of the region's visible part of `img`, on a
  /// translucent dark backdrop. Uses the first alternative that fits, or none.
  void add_region_labels(const PixelRect& img, const Metrics& k) {
    const float cap = text.cap_height(), bp = k.gap;
    const float box_h = cap + 2 * bp + 2 * k.text;  // descenders reach about 2 font units
    for (const RegionLabel& r : settings.annotations.regions) {
      auto sx = [&](double u) {
        return std::clamp(img.x + (u - window[0]) / window[2] * img.w, img.x, img.x + img.w);
      };
      auto sy = [&](double v) {
        return std::clamp(img.y + (v - window[1]) / window[3] * img.h, img.y, img.y + img.h);
      };
      const float x0 = static_cast<float>(sx(r.u0)), x1 = static_cast<float>(sx(r.u1));
      const float y0 = static_cast<float>(sy(r.v0)), y1 = static_cast<float>(sy(r.v1));
      if (y1 - y0 < box_h + 2 * k.gap) continue;
      for (const std::string& t : r.texts) {
        const float tw = text.text_width(t);
        if (t.empty() || tw + 2 * bp + 2 * k.gap > x1 - x0) continue;
        const float bx = std::round(x0 + k.gap), top = std::round(y1 - k.gap);
        text.add_rect(bx, top - box_h, bx + tw + 2 * bp, top, Rgba{0, 0, 0, 0.55f});
        text.add_text(t, bx + bp, top - bp, Rgba{1, 1, 1, 1});
        break;
      }
    }
  }
};

PlaneView::PlaneView() {
  detail::require_gl("PlaneView");
  impl_ = std::make_unique<Impl>();
  Impl& m = *impl_;
  glGetIntegerv(GL_MAX_TEXTURE_SIZE, &m.max_texture);
  glCreateVertexArrays(1, &m.vao);
  check_gl("creating the plane view's textures");
  m.cmap.load(m.settings.colormap, "uploading the colormap texture");
}

PlaneView::~PlaneView() {
  if (!impl_) return;
  if (impl_->data_tex != 0) glDeleteTextures(1, &impl_->data_tex);
  if (impl_->vao != 0) glDeleteVertexArrays(1, &impl_->vao);
}

void PlaneView::set_settings(const ViewSettings& s) {
  colormap(s.colormap);  // throws for unknown names
  check_annotations(s.annotations);
  if (!s.auto_range) {
    // %g, not std::to_string: a range of 1e-7 .. 2e-7 must not read "0.000000".
    const auto g = [](double v) {
      char b[32];
      std::snprintf(b, sizeof b, "%g", v);
      return std::string(b);
    };
    if (!std::isfinite(s.min) || !std::isfinite(s.max) || !(s.min < s.max)) {
      throw RenderError("a locked range needs finite view.min < view.max, got view.min = " +
                        g(s.min) + " and view.max = " + g(s.max));
    }
    if (s.log_scale && !(s.min > 0)) {
      throw RenderError("a locked range on a log scale needs view.min > 0, got view.min = " +
                        g(s.min));
    }
  }
  impl_->cmap.load(s.colormap, "uploading the colormap texture");  // throws: none changed
  impl_->settings = s;
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
  const PlaneAnnotations& an = s.annotations;
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

  // Layout in pixels relative to (x, y): the normal colorbar, else the compact one, else none with
  // a note.
  const std::vector<Tick> ticks = colorbar_ticks(lo, hi, s.log_scale);
  const std::string title = title_of(s);
  const Metrics normal = metrics(m.ui_scale, false), compact = metrics(m.ui_scale, true);
  const bool small = w < 220 * m.ui_scale || h < 180 * m.ui_scale;
  std::optional<BarLayout> bar;
  if (s.colorbar) {
    if (!small) bar = m.plan_bar(normal, ticks, title, an, w, h);
    if (!bar) bar = m.plan_bar(compact, ticks, title, an, w, h);
  }
  const Metrics k = bar ? bar->k : small ? compact : normal;
  m.text.set_scale(k.text);
  const float cap = m.text.cap_height();
  const Strips strips = strips_of(an, k, cap);

  float ax = strips.left, ay = strips.bottom;
  float aw = w - strips.left, ah = h - strips.bottom;
  if (bar) {
    ax = k.pad + strips.left;
    ay = k.pad + strips.bottom;
    aw = w - bar->panel_w - k.pad - strips.left;
    ah = h - 2 * k.pad - bar->title_h - strips.bottom;
  }
  float bar_y0 = bar ? bar->y0 : 0, bar_y1 = bar ? bar->y1 : 0;

  glUseProgram(m.program.id());
  glBindVertexArray(m.vao);
  glBindTextureUnit(1, m.cmap.id());
  glUniform2f(m.loc_viewport, static_cast<float>(w), static_cast<float>(h));
  glUniform1i(m.loc_log, s.log_scale ? 1 : 0);
  if (s.log_scale) {
    glUniform2f(m.loc_range, static_cast<float>(std::log10(lo)),
                static_cast<float>(std::log10(hi)));
  } else {
    glUniform2f(m.loc_range, static_cast<float>(lo), static_cast<float>(hi));
  }
  glUniform3f(m.loc_nan, kNanGrey, kNanGrey, kNanGrey);
  PixelRect img;  // relative to (x, y)
  bool have_image = false;
  if (m.tex_rows > 0 && aw >= 1 && ah >= 1) {
    if (an.aspect == Aspect::Fill) {
      img = PixelRect{std::round(ax), std::round(ay), std::floor(aw), std::floor(ah)};
    } else {
      const double scale =
          std::min(static_cast<double>(aw) / m.rows, static_cast<double>(ah) / m.cols);
      const double iw = m.rows * scale, ih = m.cols * scale;
      img = PixelRect{std::floor(ax + (aw - iw) / 2 + 0.5), std::floor(ay + (ah - ih) / 2 + 0.5),
                      iw, ih};
    }
    glBindTextureUnit(0, m.data_tex);
    glUniform1i(m.loc_mode, 0);
    glUniform4f(m.loc_window, float(m.window[0]), float(m.window[1]), float(m.window[2]),
                float(m.window[3]));
    glUniform4f(m.loc_rect, static_cast<float>(img.x), static_cast<float>(img.y),
                static_cast<float>(img.w), static_cast<float>(img.h));
    glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
    m.image_rect = PixelRect{x + img.x, y + img.y, img.w, img.h};
    have_image = true;
    // The bar spans the image's height when that leaves room for its labels.
    if (bar && img.h - std::ceil(cap) >= 4 * cap) {
      bar_y0 = static_cast<float>(img.y) + std::ceil(cap / 2);
      bar_y1 = static_cast<float>(img.y + img.h) - std::ceil(cap / 2);
    }
  }
  const float bar_w = bar ? k.bar_w : 0;
  const float bx0 = bar ? w - bar->panel_w + k.pad : 0, bx1 = bx0 + bar_w;
  if (bar) {
    glUniform1i(m.loc_mode, 1);
    glUniform4f(m.loc_rect, bx0, bar_y0, bar_w, bar_y1 - bar_y0);
    glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
    m.bar_rect = PixelRect{x + bx0, y + bar_y0, bar_w, bar_y1 - bar_y0};
  }
  glBindVertexArray(0);
  glUseProgram(0);
  check_gl("drawing the plane");

  // Text light on dark backgrounds, dark on light ones.
  const float lum = 0.2126f * m.bg[0] + 0.7152f * m.bg[1] + 0.0722f * m.bg[2];
  const Rgba ink = lum > 0.5f ? Rgba{0, 0, 0, 1} : Rgba{1, 1, 1, 1};
  const Rgba frame = lum > 0.5f ? Rgba{0.3f, 0.3f, 0.3f, 1} : Rgba{0.75f, 0.75f, 0.75f, 1};
  if (have_image) {
    m.add_axis_titles(img, strips, k, ax, static_cast<float>(w), ink);
    m.add_region_labels(img, k);
  }
  if (bar) {
    // Frame, ticks, labels, title.
    const float line = k.line, tick_len = k.tick_len, gap = k.gap;
    m.text.add_rect(bx0 - line, bar_y0 - line, bx1 + line, bar_y0, frame);
    m.text.add_rect(bx0 - line, bar_y1, bx1 + line, bar_y1 + line, frame);
    m.text.add_rect(bx0 - line, bar_y0, bx0, bar_y1, frame);
    m.text.add_rect(bx1, bar_y0, bx1 + line, bar_y1, frame);
    for (const Tick& t : ticks) {
      const float ty = std::round(bar_y0 + static_cast<float>(t.position) * (bar_y1 - bar_y0));
      m.text.add_rect(bx1, ty - line / 2, bx1 + tick_len, ty + line - line / 2, frame);
      m.text.add_text(display_label(t.label), bx1 + tick_len + gap, ty + std::round(cap / 2), ink);
    }
    for (const double pos : colorbar_minor_ticks(lo, hi, s.log_scale)) {
      const float ty = std::round(bar_y0 + static_cast<float>(pos) * (bar_y1 - bar_y0));
      m.text.add_rect(bx1, ty - line / 2, bx1 + std::round(tick_len / 2), ty + line - line / 2,
                      frame);
    }
    float top = std::min<float>(h - k.pad, bar_y1 + std::ceil(cap / 2) + bar->title_h);
    for (const std::string& l : bar->title_lines) {
      m.text.add_text(l, std::min(bx0, w - k.pad - m.text.text_width(l)), top, ink);
      top -= k.line_step(cap);
    }
  } else if (s.colorbar) {
    // Say why the colorbar is missing, in the top-right corner, if even that fits.
    m.text.set_scale(compact.text);
    const float c = m.text.cap_height(), g = compact.gap;
    for (const char* note : {"colorbar hidden: view too small", "no colorbar: too small"}) {
      const float tw = m.text.text_width(note);
      if (tw + 4 * g > w || c + 4 * g > h) continue;
      const float x1 = w - g, y1 = h - g;
      m.text.add_rect(x1 - tw - 2 * g, y1 - c - 2 * g - std::round(2 * compact.text), x1, y1,
                      Rgba{0, 0, 0, 0.6f});
      m.text.add_text(note, x1 - tw - g, y1 - g, Rgba{1, 1, 1, 1});
      break;
    }
  }
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

std::array<float, 3> PlaneView::background() const {
  return {impl_->bg[0], impl_->bg[1], impl_->bg[2]};
}

void PlaneView::set_ui_scale(float scale) {
  if (!(scale > 0 && scale <= 16)) throw RenderError("ui scale must be in (0, 16]");
  impl_->ui_scale = scale;
  // Bakes the fonts for this scale now, normal and compact, not at the next draw.
  impl_->text.prepare(metrics(scale, false).text);
  impl_->text.prepare(metrics(scale, true).text);
}

std::vector<float> PlaneView::text_pixel_sizes() const { return impl_->text.baked_pixel_sizes(); }

int PlaneView::rows() const { return impl_->rows; }
int PlaneView::cols() const { return impl_->cols; }

}  // namespace simscope::render
