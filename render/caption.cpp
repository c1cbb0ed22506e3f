#include "render/caption.hpp"

#include <glad/gl.h>

#include <algorithm>
#include <cmath>

#include "render/text.hpp"

namespace simscope::render {

void draw_caption(const std::string& text, int w, int h, float ui_scale, CaptionCorner corner) {
  if (text.empty() || w < 1 || h < 1) return;
  TextRenderer t(std::max(1.0f, std::round(2.0f * ui_scale)));
  const float pad = std::max(2.0f, std::round(5 * ui_scale)), cap = t.cap_height();
  const float margin = std::max(2.0f, std::round(6 * ui_scale));
  const std::string line = t.elide(text, w - 2 * (pad + margin));
  if (line.empty()) return;
  const float tw = t.text_width(line), descent = std::round(cap * 0.3f);
  const float box_h = cap + descent + 2 * pad;
  const float x0 = margin, y1 = corner == CaptionCorner::TopLeft ? h - margin : margin + box_h;
  t.add_rect(x0, y1 - box_h, x0 + tw + 2 * pad, y1, Rgba{0, 0, 0, 0.6f});
  t.add_text(line, x0 + pad, y1 - pad, Rgba{1, 1, 1, 1});
  glViewport(0, 0, w, h);
  t.draw(w, h);
}

}  // namespace simscope::render
