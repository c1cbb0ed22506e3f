#pragma once
/// @file A font atlas: the views' glyphs at one pixel size in a single-channel bitmap.
/// Rasterised by stb_truetype (Sean Barrett, public domain), with each glyph's place and metrics.
/// No GL: the text renderer uploads the bitmap (text.hpp).
///
/// Glyphs: printable ASCII and Latin-1, Greek, the Unicode super- and subscripts (U+2070 ...
/// U+209C), and some symbols: minus U+2212, ellipsis, <=, >=, infinity, partial, nabla, sqrt,
/// approx, arrows, prime. Other code points, and those missing from the font, draw as '?'.
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace simscope::render {

/// Where one glyph goes and where it is in the atlas.
/// Pixels are relative to the pen position on the baseline, y up; the glyph's box is
/// [x0, x1] x [y0, y1]. s and t are atlas texture coordinates in 0..1, t = 0 at the bitmap's first
/// row: s0/s1 at the box's left and right, t0 at its top, t1 at its bottom.
struct GlyphBox {
  float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  float s0 = 0, t0 = 0, s1 = 0, t1 = 0;
  float advance = 0;  ///< how far the pen moves, in pixels
};

class FontAtlas {
 public:
  /// Rasterises the glyph set of TTF contents `ttf` at `pixel_size` pixels per em
  /// (stb_truetype's ScaleForMappingEmToPixels). `ttf` is kept by reference and must outlive the
  /// atlas. The bitmap grows from 256 x 256 until everything fits. Throws RenderError when `ttf` is
  /// not a font or pixel_size is not in [2, 512].
  FontAtlas(std::span<const unsigned char> ttf, float pixel_size);
  ~FontAtlas();
  FontAtlas(const FontAtlas&) = delete;
  FontAtlas& operator=(const FontAtlas&) = delete;

  float pixel_size() const { return pixel_size_; }
  int width() const { return width_; }
  int height() const { return height_; }
  /// The coverage bitmap, width() x height(), row 0 first; 0 is empty, 255 covered.
  const std::vector<unsigned char>& pixels() const { return pixels_; }

  /// True when `code` is in the glyph set and the font has a glyph for it.
  bool has(char32_t code) const;
  /// The glyph for `code`, or for '?' when has(code) is false.
  const GlyphBox& glyph(char32_t code) const;
  /// Height in pixels of capital H above the baseline, from its outline's box.
  float cap_height() const { return cap_height_; }
  /// The font's ascent and descent in pixels, from its hhea table. Descent is negative.
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
