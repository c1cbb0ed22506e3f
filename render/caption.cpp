#include "render/caption.hpp"

#include <glad/gl.h>

#include <algorithm>
#include <cmath>

#include "render/text.hpp"

namespace simscope::render {

namespace {
float caption_pad(float ui_scale) { return std::max(2.0f, std::round(5 * ui_scale)); }
float caption_margin(float ui_scale) { return std::max(2.0f, std::round(6 * ui_scale)); }
/// The backdrop's height for text of cap height `cap`.
float caption_box_height(float cap, float ui_scale) {
  return cap + std::round(cap * 0.3f) + 2 * caption_pad(ui_scale);
}
}  // namespace

int caption_strip_height(float ui_scale) {
  const TextRenderer t(std::max(1.0f, std::round(2.0f * ui_scale)));
  return int(
      std::ceil(2 * caption_margin(ui_scale) + caption_box_height(t.cap_height(), ui_scale)));
}

void draw_caption(const std::string& text, int w, int h, float ui_scale, CaptionCorner corner) {
  if (text.empty() || w < 1 || h < 1) return;
  TextRenderer t(std::max(1.0f, std::round(2.0f * ui_scale)));
  const float pad = caption_pad(ui_scale), cap = t.cap_height();
  const float margin = caption_margin(ui_scale);
  const std::string line = t.elide(text, w - 2 * (pad + margin));
  if (line.empty()) return;
  const float tw = t.text_width(line), box_h = caption_box_height(cap, ui_scale);
  const float x0 = margin, y1 = corner == CaptionCorner::TopLeft ? h - margin : margin + box_h;
  t.add_rect(x0, y1 - box_h, x0 + tw + 2 * pad, y1, Rgba{0, 0, 0, 0.6f});
  t.add_text(line, x0 + pad, y1 - pad, Rgba{1, 1, 1, 1});
  glViewport(0, 0, w, h);
  t.draw(w, h);
}

void draw_caption_strip(const std::string& text, int w, int h, float ui_scale,
                        const std::array<float, 3>& bg) {
  if (text.empty() || w < 1 || h < 1) return;
  const int strip = std::min(h, caption_strip_height(ui_scale));
  glViewport(0, 0, w, h);
  glEnable(GL_SCISSOR_TEST);
  glScissor(0, h - strip, w, strip);
  glClearColor(bg[0], bg[1], bg[2], 1.0f);
  glClear(GL_COLOR_BUFFER_BIT);
  glDisable(GL_SCISSOR_TEST);
  draw_caption(text, w, h, ui_scale, CaptionCorner::TopLeft);
}

}  // namespace simscope::render
