#pragma once
/// @file A font atlas: the views' glyphs rasterised by stb_truetype (public domain, Sean Barrett;
/// Debian's libstb-dev) at one pixel size into a single-channel bitmap, with each glyph's place
/// in it and its metrics. No GL: the text renderer uploads the bitmap (text.hpp).
///
/// Glyphs: printable ASCII and Latin-1, Greek, the Unicode super- and subscripts (U+2070 ...
/// U+209C), and some symbols (minus U+2212, ellipsis, <=, >=, infinity, partial, nabla, sqrt,
/// approx, arrows, prime). Code points outside that set, or missing from the font, draw as '?'.
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace simscope::render {

/// Where one glyph goes and where it is in the atlas. Pixels relative to the pen position on the
/// baseline, y up: the glyph's box is [x0, x1] x [y0, y1]; s/t are atlas texture coordinates
/// (0..1, t = 0 the bitmap's first row) of the box's left/right, top (t0) and bottom (t1).
struct GlyphBox {
  float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  float s0 = 0, t0 = 0, s1 = 0, t1 = 0;
  float advance = 0;  ///< how far the pen moves, in pixels
};

class FontAtlas {
 public:
  /// Rasterises the glyph set of TTF file contents `ttf` (kept by reference: it must outlive the
  /// atlas) at `pixel_size` pixels per em (stb_truetype's ScaleForMappingEmToPixels), growing
  /// the bitmap from 256 x 256 until everything fits. Throws RenderError when `ttf` is not a
  /// font, or pixel_size is not in [2, 512].
  FontAtlas(std::span<const unsigned char> ttf, float pixel_size);
  ~FontAtlas();
  FontAtlas(const FontAtlas&) = delete;
  FontAtlas& operator=(const FontAtlas&) = delete;

  float pixel_size() const { return pixel_size_; }
  int width() const { return width_; }
  int height() const { return height_; }
  /// The coverage bitmap, width() x height(), row 0 first, 0 = empty, 255 = covered.
  const std::vector<unsigned char>& pixels() const { return pixels_; }

  /// True when `code` is in the glyph set and the font has a glyph for it.
  bool has(char32_t code) const;
  /// The glyph for `code`, or for '?' when has(code) is false.
  const GlyphBox& glyph(char32_t code) const;
  /// Height of the capital H above the baseline, in pixels (from its outline's box).
  float cap_height() const { return cap_height_; }
  /// The font's ascent and descent (descent negative) in pixels, from its hhea table.
  float ascent() const { return ascent_; }
  float descent() const { return descent_; }

  /// Pixels per em for which capitals are `cap_px` pixels tall in font `ttf`.
  static float pixel_size_for_cap(std::span<const unsigned char> ttf, float cap_px);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  float pixel_size_;
  int width_ = 0, height_ = 0;
  std::vector<unsigned char> pixels_;
  float cap_height_ = 0, ascent_ = 0, descent_ = 0;
};

}  // namespace simscope::render
