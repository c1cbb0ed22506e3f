#pragma once
/// @file Text and flat rectangles for overlays (colorbar labels, ticks), drawn with the
/// stb_easy_font bitmap font (public domain, Sean Barrett): each glyph is a few quads that go into
/// one GL vertex buffer. ASCII only (other bytes draw as '?').
#include <array>
#include <memory>
#include <string>
#include <vector>

namespace simscope::render {

using Rgba = std::array<float, 4>;

/// Collects text and rectangles in viewport pixels (origin bottom-left), then draws them in one
/// call. `scale` is pixels per font unit: glyphs are 7 units tall (digits, capitals) and lines 12;
/// 2 suits 96-dpi screens, multiply by the device pixel ratio on HiDPI ones.
/// Create, use and destroy it while its GL context is current.
class TextRenderer {
 public:
  explicit TextRenderer(float scale = 2.0f);  ///< throws RenderError (shaders, buffers)
  ~TextRenderer();
  TextRenderer(const TextRenderer&) = delete;
  TextRenderer& operator=(const TextRenderer&) = delete;

  void set_scale(float scale) { scale_ = scale; }
  float scale() const { return scale_; }

  /// Width in pixels of a one-line `text` at the current scale.
  float text_width(const std::string& text) const;
  /// Height in pixels of the capitals/digits (7 font units) at the current scale.
  float cap_height() const { return 7.0f * scale_; }

  /// Adds `text` (one line) with its top-left corner at (x, top), in pixels, origin
  /// bottom-left. Default colour: white.
  void add_text(const std::string& text, float x, float top, Rgba color = {1, 1, 1, 1});
  /// Adds `text` (one line) turned a quarter turn anticlockwise, reading bottom to top (like a
  /// plot's vertical axis title): the glyphs' tops face left at x = `left`, the line starts at
  /// y = `bottom` and runs text_width(text) pixels up; it is cap_height() wide (descenders reach
  /// about 2 font units further right).
  void add_text_vertical(const std::string& text, float left, float bottom,
                         Rgba color = {1, 1, 1, 1});
  /// Adds a filled rectangle [x0, x1] x [y0, y1] in pixels. Colours with alpha < 1 blend over
  /// what is already in the framebuffer.
  void add_rect(float x0, float y0, float x1, float y1, Rgba color);

  /// `text` if it is at most `max_width` pixels wide at the current scale, else its longest
  /// prefix followed by "..." that is; empty when not even "..." fits.
  std::string elide(const std::string& text, float max_width) const;
  /// `text` broken at spaces into lines of at most `max_width` pixels (a word wider than that is
  /// elided); at most `max_lines` lines, the last one elided when text remains. Empty text: none.
  std::vector<std::string> wrap(const std::string& text, float max_width, int max_lines) const;
  /// Draws everything added since the last draw into the current framebuffer, in the order
  /// added, blending by alpha (the framebuffer's alpha is kept); viewport_w/h is the size of the
  /// current glViewport. Leaves GL_BLEND disabled. Clears the collected geometry. Throws
  /// RenderError.
  void draw(int viewport_w, int viewport_h);
  /// Drops the collected geometry without drawing.
  void clear();

 private:
  void add_glyphs(const std::string& text, float x, float y, bool vertical, Rgba color);
  struct Impl;
  std::unique_ptr<Impl> impl_;
  float scale_;
};

}  // namespace simscope::render
