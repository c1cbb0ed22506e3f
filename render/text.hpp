#pragma once
/// @file Text and flat rectangles for overlays: titles, colorbar labels, ticks.
/// Glyphs of the embedded DejaVu Sans (font_data.hpp) are anti-aliased and baked by stb_truetype
/// at each scale's pixel size (font_atlas.hpp), so text is crisp at any UI scale. Text is UTF-8
/// with text_markup.hpp's markup: Greek (\phi or "φ"), superscripts (10^-3, x^{2}) and subscripts
/// (t_{0}). Glyph quads and rectangles share one vertex buffer, one draw call per atlas.
#include <array>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace simscope::render {

using Rgba = std::array<float, 4>;

/// Pixels per em of the views' font at TextRenderer scale `scale`; capitals are 7 * scale pixels.
float text_pixel_size(float scale);

/// Collects text and rectangles in viewport pixels, origin bottom-left, then draws them.
/// `scale` is pixels per font unit. Capitals and digits are 7 units tall, lines about 11.
/// 2 suits 96-dpi screens; multiply by the device pixel ratio on HiDPI ones. Superscripts and
/// subscripts are 0.7 times that size.
/// Create, use and destroy it while its GL context is current.
class TextRenderer {
 public:
  explicit TextRenderer(float scale = 2.0f);  ///< throws RenderError (shaders, buffers)
  ~TextRenderer();
  TextRenderer(const TextRenderer&) = delete;
  TextRenderer& operator=(const TextRenderer&) = delete;

  /// Sets the scale for text added next. Atlases for new sizes are baked when first used.
  void set_scale(float scale) { scale_ = scale; }
  float scale() const { return scale_; }
  /// Bakes the atlases that text at `scale` needs, unless done: its size and the super- and
  /// subscripts' size. Throws RenderError.
  void prepare(float scale);
  /// The font's pixels per em at the current scale.
  float pixel_size() const;
  /// Pixels per em of every atlas this renderer holds, in the order made.
  std::vector<float> baked_pixel_sizes() const;

  /// Width in pixels of one-line `text` at the current scale, from the first glyph's ink to the
  /// last glyph's. The left side bearing is dropped: ink starts where add_text is told.
  float text_width(const std::string& text) const;
  /// Height in pixels of capitals and digits (7 font units) at the current scale.
  float cap_height() const { return 7.0f * scale_; }

  /// Adds one-line `text` with its top-left corner at (x, top), in pixels, origin bottom-left.
  /// Default colour: white.
  void add_text(const std::string& text, float x, float top, Rgba color = {1, 1, 1, 1});
  /// Adds one-line `text` turned a quarter turn anticlockwise, reading bottom to top.
  /// Glyph tops face left at x = `left`. The line starts at y = `bottom` and runs text_width(text)
  /// pixels up. It is cap_height() wide; descenders reach about 2 font units further right.
  void add_text_vertical(const std::string& text, float left, float bottom,
                         Rgba color = {1, 1, 1, 1});
  /// Adds a filled rectangle [x0, x1] x [y0, y1] in pixels.
  /// Colours with alpha < 1 blend over the framebuffer.
  void add_rect(float x0, float y0, float x1, float y1, Rgba color);

  /// `text` if it fits in `max_width` pixels at the current scale, else its longest prefix plus
  /// "..." that fits. Empty when not even "..." fits.
  std::string elide(const std::string& text, float max_width) const;
  /// `text` broken at spaces into at most `max_lines` lines of at most `max_width` pixels.
  /// A word wider than that is elided, and so is the last line when text remains. Empty text: none.
  std::vector<std::string> wrap(const std::string& text, float max_width, int max_lines) const;
  /// Draws everything added since the last draw into the current framebuffer, in order, blending by
  /// alpha; the framebuffer's alpha is kept. viewport_w/h is the size of the current glViewport.
  /// Leaves GL_BLEND disabled and clears the collected geometry. Throws RenderError.
  void draw(int viewport_w, int viewport_h);
  /// Drops the collected geometry without drawing.
  void clear();

 private:
  void add_glyphs(const std::string& text, float x, float y, bool vertical, Rgba color);
  float layout_width(const std::string& text) const;
  struct Impl;
  std::unique_ptr<Impl> impl_;
  float scale_;
};

}  // namespace simscope::render
