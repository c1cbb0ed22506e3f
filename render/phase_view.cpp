#include "render/phase_view.hpp"

#include <glad/gl.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>

#include "render/colormap.hpp"
#include "render/detail/colormap_texture.hpp"
#include "render/detail/gl_check.hpp"
#include "render/detail/shader.hpp"
#include "render/error.hpp"
#include "render/interop_buffer.hpp"
#include "render/text.hpp"

namespace simscope::render {

using detail::check_gl;

namespace {

constexpr int kCirclePoints = 128;
constexpr float kPi = 3.14159265358979f;

}  // namespace

struct PhaseView::Impl {
  detail::ShaderProgram discs{"phase.vert", "phase.frag"};
  GLint d_rect = discs.uniform("u_rect");
  GLint d_viewport = discs.uniform("u_viewport");
  GLint d_mode = discs.uniform("u_mode");
  GLint d_plane = discs.uniform("u_plane_radius");
  GLint d_dot = discs.uniform("u_dot");
  GLint d_min_dot = discs.uniform("u_min_dot");
  detail::ShaderProgram lines{"phase.edge.vert", "solid.frag"};
  GLint l_rect = lines.uniform("u_rect");
  GLint l_viewport = lines.uniform("u_viewport");
  GLint l_color = lines.uniform("u_color");
  InteropBuffer state;  // 2 n floats: (theta, r) per oscillator
  TextRenderer text;
  GLuint pos_buf = 0, edge_buf = 0, circle_buf = 0;
  GLuint vao_discs = 0, vao_edges = 0, vao_circle = 0;
  // The colormap: 256 entries, interpolated like Colormap::sample (phase.frag).
  detail::ColormapTexture cmap{GL_LINEAR, GL_CLAMP_TO_EDGE};

  PhaseViewSettings settings;
  int n = 0;         // oscillators in the state buffer
  int layout_n = 0;  // positions in pos_buf
  std::size_t pos_capacity = 0;
  int edge_count = 0;
  std::vector<float> positions;   // host copy of the layout
  std::vector<float> host_state;  // last host upload (for picking in the plane layout)
  bool host_state_valid = false;
  float bg[3] = {0.11f, 0.11f, 0.13f};
  float ui_scale = 1.0f;
  // State of the last draw.
  bool drawn = false;
  double rect[4] = {0, 0, 0, 0};  // framebuffer pixels
  float dot_px = 0, min_dot_px = 0;

  void bind_state_buffer() {
    // The interop buffer's storage may have been re-specified; the name stays.
    glVertexArrayVertexBuffer(vao_discs, 0, state.gl_buffer(), 0, 2 * sizeof(float));
    check_gl("binding the phase view's state buffer");
  }
};

PhaseView::PhaseView() {
  detail::require_gl("PhaseView");
  impl_ = std::make_unique<Impl>();
  Impl& m = *impl_;
  glCreateBuffers(1, &m.pos_buf);
  glCreateBuffers(1, &m.edge_buf);
  glCreateBuffers(1, &m.circle_buf);
  std::vector<float> circle(2 * kCirclePoints);
  for (int i = 0; i < kCirclePoints; ++i) {
    circle[2 * i] = std::cos(2 * kPi * i / kCirclePoints);
    circle[2 * i + 1] = std::sin(2 * kPi * i / kCirclePoints);
  }
  glNamedBufferData(m.circle_buf, GLsizeiptr(circle.size() * sizeof(float)), circle.data(),
                    GL_STATIC_DRAW);
  // Discs: attribute 0 is (theta, r) per instance, attribute 1 the layout position per instance.
  glCreateVertexArrays(1, &m.vao_discs);
  glEnableVertexArrayAttrib(m.vao_discs, 0);
  glVertexArrayAttribFormat(m.vao_discs, 0, 2, GL_FLOAT, GL_FALSE, 0);
  glVertexArrayAttribBinding(m.vao_discs, 0, 0);
  glVertexArrayBindingDivisor(m.vao_discs, 0, 1);
  glVertexArrayAttribFormat(m.vao_discs, 1, 2, GL_FLOAT, GL_FALSE, 0);
  glVertexArrayAttribBinding(m.vao_discs, 1, 1);
  glVertexArrayBindingDivisor(m.vao_discs, 1, 1);
  glVertexArrayVertexBuffer(m.vao_discs, 1, m.pos_buf, 0, 2 * sizeof(float));
  // Edges: positions per vertex, node pairs in the element buffer.
  glCreateVertexArrays(1, &m.vao_edges);
  glEnableVertexArrayAttrib(m.vao_edges, 0);
  glVertexArrayAttribFormat(m.vao_edges, 0, 2, GL_FLOAT, GL_FALSE, 0);
  glVertexArrayAttribBinding(m.vao_edges, 0, 0);
  glVertexArrayVertexBuffer(m.vao_edges, 0, m.pos_buf, 0, 2 * sizeof(float));
  glVertexArrayElementBuffer(m.vao_edges, m.edge_buf);
  glCreateVertexArrays(1, &m.vao_circle);
  glEnableVertexArrayAttrib(m.vao_circle, 0);
  glVertexArrayAttribFormat(m.vao_circle, 0, 2, GL_FLOAT, GL_FALSE, 0);
  glVertexArrayAttribBinding(m.vao_circle, 0, 0);
  glVertexArrayVertexBuffer(m.vao_circle, 0, m.circle_buf, 0, 2 * sizeof(float));
  check_gl("creating the phase view's buffers");
  glProgramUniform1i(m.discs.id(), m.discs.uniform("u_cmap"), 0);
  m.cmap.load(m.settings.colormap, "uploading the phase view's colormap");
}

PhaseView::~PhaseView() {
  if (!impl_) return;
  Impl& m = *impl_;
  for (GLuint* b : {&m.pos_buf, &m.edge_buf, &m.circle_buf})
    if (*b) glDeleteBuffers(1, b);
  for (GLuint* v : {&m.vao_discs, &m.vao_edges, &m.vao_circle})
    if (*v) glDeleteVertexArrays(1, v);
}

void PhaseView::set_settings(const PhaseViewSettings& s) {
  colormap(s.colormap);  // throws for unknown names
  if (s.layout != "nodes" && s.layout != "plane")
    throw RenderError("phase view: layout must be 'nodes' or 'plane', got '" + s.layout + "'");
  if (!(std::isfinite(s.dot) && s.dot > 0) ||
      !(std::isfinite(s.plane_radius) && s.plane_radius > 0))
    throw RenderError("phase view: dot size and plane radius must be finite and > 0");
  impl_->cmap.load(s.colormap, "uploading the phase view's colormap");  // throws: none changed
  impl_->settings = s;
}

const PhaseViewSettings& PhaseView::settings() const { return impl_->settings; }

void PhaseView::set_layout(const float* xy, int n) {
  Impl& m = *impl_;
  if (n < 0 || (n > 0 && xy == nullptr)) throw RenderError("phase view: bad layout");
  for (int i = 0; i < 2 * n; ++i)
    if (!std::isfinite(xy[i])) throw RenderError("phase view: layout position not finite");
  const std::size_t bytes = std::size_t(std::max(n, 1)) * 2 * sizeof(float);
  if (bytes > m.pos_capacity) {
    glNamedBufferData(m.pos_buf, GLsizeiptr(bytes), nullptr, GL_DYNAMIC_DRAW);
    m.pos_capacity = bytes;
  }
  if (n > 0) glNamedBufferSubData(m.pos_buf, 0, GLsizeiptr(std::size_t(n) * 2 * sizeof(float)), xy);
  check_gl("uploading the phase view's layout");
  m.positions.assign(xy, xy + 2 * std::size_t(n));
  m.layout_n = n;
  if (m.edge_count > 0) m.edge_count = 0;  // edges belong to the previous layout
}

void PhaseView::set_edges(const std::vector<std::pair<int, int>>& edges) {
  Impl& m = *impl_;
  std::vector<std::uint32_t> idx;
  idx.reserve(2 * edges.size());
  for (const auto& [a, b] : edges) {
    if (a < 0 || b < 0 || a >= m.layout_n || b >= m.layout_n)
      throw RenderError("phase view: edge " + std::to_string(a) + "-" + std::to_string(b) +
                        " outside the layout of " + std::to_string(m.layout_n) + " nodes");
    idx.push_back(std::uint32_t(a));
    idx.push_back(std::uint32_t(b));
  }
  glNamedBufferData(m.edge_buf, GLsizeiptr(std::max<std::size_t>(1, idx.size()) * 4),
                    idx.empty() ? nullptr : idx.data(), GL_DYNAMIC_DRAW);
  check_gl("uploading the phase view's edges");
  m.edge_count = int(edges.size());
}

void PhaseView::set_state_host(const float* theta_r, int n) {
  Impl& m = *impl_;
  if (n < 1 || theta_r == nullptr) throw RenderError("phase view: no oscillators to show");
  m.state.upload_host(theta_r, 2 * std::size_t(n));
  m.bind_state_buffer();
  m.n = n;
  m.host_state.assign(theta_r, theta_r + 2 * std::size_t(n));
  m.host_state_valid = true;
}

void PhaseView::set_state_device(const float* theta_r, int n) {
  Impl& m = *impl_;
  if (n < 1 || theta_r == nullptr) throw RenderError("phase view: no oscillators to show");
  m.state.upload_device(theta_r, 2 * std::size_t(n));
  m.bind_state_buffer();
  m.n = n;
  m.host_state_valid = false;
}

void PhaseView::draw(int x, int y, int w, int h) {
  Impl& m = *impl_;
  m.drawn = false;
  if (w < 1 || h < 1) return;
  const PhaseViewSettings& s = m.settings;
  const bool plane = s.layout == "plane";
  if (m.n > 0 && !plane && m.layout_n < m.n)
    throw RenderError("phase view: " + std::to_string(m.n) + " oscillators but a layout of " +
                      std::to_string(m.layout_n) + " nodes");
  glDisable(GL_DEPTH_TEST);
  glDisable(GL_CULL_FACE);
  glViewport(x, y, w, h);
  glEnable(GL_SCISSOR_TEST);
  glScissor(x, y, w, h);
  glClearColor(m.bg[0], m.bg[1], m.bg[2], 1.0f);
  glClear(GL_COLOR_BUFFER_BIT);
  glDisable(GL_SCISSOR_TEST);
  check_gl("clearing the phase view");

  const float u = m.ui_scale;
  m.text.set_scale(std::max(1.0f, std::round(2.0f * u)));
  const float cap = m.text.cap_height();
  const float pad = std::round(10 * u) + std::round(2 * s.dot * u);
  const float top = s.title.empty() ? 0.0f : cap + std::round(12 * u);
  const float bottom = s.legend ? cap + std::round(26 * u) : 0.0f;
  const float avail_w = w - 2 * pad, avail_h = h - 2 * pad - top - bottom;
  const float sq = std::floor(std::max(0.0f, std::min(avail_w, avail_h)));
  const float rx = std::floor((w - sq) / 2), ry = std::floor(pad + bottom + (avail_h - sq) / 2);
  // Discs no larger than the spacing of n nodes on the circle allows.
  const int n = m.n;
  const float spacing = n > 0 ? kPi * sq / float(n) : sq;
  m.dot_px = std::max(1.5f, std::min(s.dot * u, 0.4f * spacing));
  m.min_dot_px = std::min(m.dot_px, std::max(1.0f, 0.5f * u));
  m.rect[0] = x + rx, m.rect[1] = y + ry, m.rect[2] = sq, m.rect[3] = sq;

  glEnable(GL_BLEND);
  glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
  if (sq >= 4) {
    glUseProgram(m.lines.id());
    glUniform4f(m.l_rect, rx, ry, sq, sq);
    glUniform2f(m.l_viewport, float(w), float(h));
    if (!plane && s.edges && m.edge_count > 0) {
      glUniform4f(m.l_color, 0.62f, 0.64f, 0.70f, n > 500 ? 0.15f : 0.35f);
      glBindVertexArray(m.vao_edges);
      glDrawElements(GL_LINES, 2 * m.edge_count, GL_UNSIGNED_INT, nullptr);
    }
    if (plane) {
      // The unit circle |z| = 1, scaled like the discs' positions.
      const float k = 1.0f / s.plane_radius;
      glUniform4f(m.l_rect, rx + sq * (1 - k) / 2, ry + sq * (1 - k) / 2, sq * k, sq * k);
      glUniform4f(m.l_color, 0.55f, 0.55f, 0.6f, 0.6f);
      glBindVertexArray(m.vao_circle);
      glDrawArrays(GL_LINE_LOOP, 0, kCirclePoints);
    }
    check_gl("drawing the phase view's lines");
    if (n > 0) {
      glUseProgram(m.discs.id());
      glUniform4f(m.d_rect, rx, ry, sq, sq);
      glUniform2f(m.d_viewport, float(w), float(h));
      glUniform1i(m.d_mode, plane ? 1 : 0);
      glUniform1f(m.d_plane, s.plane_radius);
      glUniform1f(m.d_dot, m.dot_px);
      glUniform1f(m.d_min_dot, m.min_dot_px);
      glBindTextureUnit(0, m.cmap.id());
      glBindVertexArray(m.vao_discs);
      if (plane) {
        glDisableVertexArrayAttrib(m.vao_discs, 1);
        glVertexAttrib2f(1, 0.0f, 0.0f);
      } else {
        glEnableVertexArrayAttrib(m.vao_discs, 1);
      }
      glDrawArraysInstanced(GL_TRIANGLE_STRIP, 0, 4, n);
      check_gl("drawing the phase view's discs");
    }
    glBindVertexArray(0);
    glUseProgram(0);
    m.drawn = true;
  }

  // Title, and the legend: the colormap from theta = -pi to pi.
  const float lum = 0.2126f * m.bg[0] + 0.7152f * m.bg[1] + 0.0722f * m.bg[2];
  const Rgba ink = lum > 0.5f ? Rgba{0, 0, 0, 1} : Rgba{1, 1, 1, 1};
  if (!s.title.empty()) m.text.add_text(s.title, std::round(10 * u), h - std::round(8 * u), ink);
  if (s.legend && w > 200 * u) {
    const Colormap& map = colormap(s.colormap);
    const float bw = std::round(140 * u), bh = std::round(8 * u);
    const float bx = w - std::round(12 * u) - bw, by = std::round(8 * u) + cap + std::round(4 * u);
    const int steps = 56;
    for (int i = 0; i < steps; ++i) {
      const auto c = map.sample((i + 0.5) / steps);
      m.text.add_rect(bx + bw * i / steps, by, bx + bw * (i + 1) / steps, by + bh,
                      Rgba{c[0], c[1], c[2], 1});
    }
    const float ty = by - std::round(3 * u);
    m.text.add_text("\\minus\\pi", bx - m.text.text_width("\\minus\\pi") / 2, ty, ink);
    m.text.add_text("0", bx + bw / 2 - m.text.text_width("0") / 2, ty, ink);
    m.text.add_text("\\pi", bx + bw - m.text.text_width("\\pi") / 2, ty, ink);
    const float label_x = bx - m.text.text_width("phase \\theta") - std::round(30 * u);
    m.text.add_text("phase \\theta", label_x, by + bh / 2 + cap / 2, ink);
    // The discs' size, at the bottom left where it fits: radius dot * r (shader phase.vert).
    for (const char* key : {"size: amplitude r", "size: r"}) {
      const float kx = std::round(10 * u);
      if (kx + m.text.text_width(key) + std::round(20 * u) > label_x) continue;
      m.text.add_text(key, kx, by + bh / 2 + cap / 2, ink);
      break;
    }
  }
  m.text.draw(w, h);
  glDisable(GL_BLEND);
  check_gl("drawing the phase view");
}

std::optional<int> PhaseView::oscillator_at(double px, double py) const {
  const Impl& m = *impl_;
  if (!m.drawn || m.n == 0) return std::nullopt;
  const bool plane = m.settings.layout == "plane";
  if (plane && !m.host_state_valid) return std::nullopt;
  const double lim = m.dot_px * 3 + 4;
  double best = lim * lim;
  std::optional<int> hit;
  for (int i = 0; i < m.n; ++i) {
    double ux, uy;
    if (plane) {
      const double th = m.host_state[2 * std::size_t(i)], r = m.host_state[2 * std::size_t(i) + 1];
      ux = r * std::cos(th) / m.settings.plane_radius,
      uy = r * std::sin(th) / m.settings.plane_radius;
    } else {
      ux = m.positions[2 * std::size_t(i)], uy = m.positions[2 * std::size_t(i) + 1];
    }
    const double cx = m.rect[0] + (ux * 0.5 + 0.5) * m.rect[2];
    const double cy = m.rect[1] + (uy * 0.5 + 0.5) * m.rect[3];
    const double d2 = (px - cx) * (px - cx) + (py - cy) * (py - cy);
    if (d2 < best) best = d2, hit = i;
  }
  return hit;
}

std::string PhaseView::upload_path() const { return impl_->state.path(); }
std::string PhaseView::upload_fallback_reason() const { return impl_->state.fallback_reason(); }

void PhaseView::set_background(float r, float g, float b) {
  impl_->bg[0] = std::clamp(r, 0.0f, 1.0f);
  impl_->bg[1] = std::clamp(g, 0.0f, 1.0f);
  impl_->bg[2] = std::clamp(b, 0.0f, 1.0f);
}

void PhaseView::set_ui_scale(float scale) {
  if (!(scale > 0 && scale <= 16)) throw RenderError("ui scale must be in (0, 16]");
  impl_->ui_scale = scale;
}

int PhaseView::count() const { return impl_->n; }

}  // namespace simscope::render
