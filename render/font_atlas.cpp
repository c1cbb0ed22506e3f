#include "render/font_atlas.hpp"

#include <cmath>
#include <string>
#include <unordered_map>

#include "render/error.hpp"

// The implementations, private to this file; ImGui has its own copies.
#define STBRP_STATIC
#define STB_RECT_PACK_IMPLEMENTATION
#include <stb_rect_pack.h>
#define STBTT_STATIC
#define STB_TRUETYPE_IMPLEMENTATION
#include <stb_truetype.h>

namespace simscope::render {
namespace {

struct Range {
  char32_t first, last;
};
constexpr Range kRanges[] = {
    {0x20, 0x7E}, {0xA0, 0xFF}, {0x391, 0x3A9}, {0x3B1, 0x3C9}, {0x2070, 0x209C}};
constexpr char32_t kSymbols[] = {0x3D1,  0x3D5,  0x3F5,  0x2026, 0x2032, 0x2033, 0x2212, 0x2264,
                                 0x2265, 0x221E, 0x2202, 0x2207, 0x221A, 0x2248, 0x2260, 0x2190,
                                 0x2191, 0x2192, 0x2193, 0x2194, 0x2022, 0x210F};

stbtt_fontinfo font_info(std::span<const unsigned char> ttf) {
  stbtt_fontinfo info;
  if (ttf.size() < 12 || stbtt_GetFontOffsetForIndex(ttf.data(), 0) < 0 ||
      !stbtt_InitFont(&info, ttf.data(), stbtt_GetFontOffsetForIndex(ttf.data(), 0)))
    throw RenderError("font atlas: the data (" + std::to_string(ttf.size()) +
                      " bytes) is not a TrueType font");
  return info;
}

/// Height of 'H' in font units.
float cap_units(const stbtt_fontinfo& info) {
  int x0, y0, x1, y1;
  if (!stbtt_GetCodepointBox(&info, 'H', &x0, &y0, &x1, &y1)) {
    int asc, desc, gap;
    stbtt_GetFontVMetrics(&info, &asc, &desc, &gap);
    return 0.7f * static_cast<float>(asc);
  }
  return static_cast<float>(y1);
}

}  // namespace

struct FontAtlas::Impl {
  std::unordered_map<char32_t, GlyphBox> glyphs;
  std::unordered_map<char32_t, bool> present;
  GlyphBox fallback;
};

float FontAtlas::pixel_size_for_cap(std::span<const unsigned char> ttf, float cap_px) {
  const stbtt_fontinfo info = font_info(ttf);
  const float em_per_unit = stbtt_ScaleForMappingEmToPixels(&info, 1.0f);
  return cap_px / (cap_units(info) * em_per_unit);
}

FontAtlas::FontAtlas(std::span<const unsigned char> ttf, float pixel_size)
    : impl_(std::make_unique<Impl>()), pixel_size_(pixel_size) {
  if (!(pixel_size >= 2 && pixel_size <= 512))
    throw RenderError("font atlas: pixel size " + std::to_string(pixel_size) +
                      " must be in [2, 512]");
  const stbtt_fontinfo info = font_info(ttf);
  const float scale = stbtt_ScaleForMappingEmToPixels(&info, pixel_size);
  int asc, desc, gap;
  stbtt_GetFontVMetrics(&info, &asc, &desc, &gap);
  ascent_ = asc * scale;
  descent_ = desc * scale;
  cap_height_ = cap_units(info) * scale;

  std::vector<char32_t> codes;
  for (const Range& r : kRanges)
    for (char32_t c = r.first; c <= r.last; ++c) codes.push_back(c);
  codes.insert(codes.end(), std::begin(kSymbols), std::end(kSymbols));
  std::vector<int> cps(codes.begin(), codes.end());
  std::vector<stbtt_packedchar> packed(codes.size());

  // STBTT_POINT_SIZE(-x) in stb's terms: the size is pixels per em, not ascent - descent.
  stbtt_pack_range range{};
  range.font_size = STBTT_POINT_SIZE(pixel_size);
  range.array_of_unicode_codepoints = cps.data();
  range.num_chars = static_cast<int>(cps.size());
  range.chardata_for_range = packed.data();
  for (int side = 256;; side *= 2) {
    if (side > 8192)
      throw RenderError("font atlas: the glyphs at " + std::to_string(pixel_size) +
                        " px do not fit an 8192 x 8192 bitmap");
    pixels_.assign(static_cast<size_t>(side) * side, 0);
    stbtt_pack_context pc;
    if (!stbtt_PackBegin(&pc, pixels_.data(), side, side, 0, 1, nullptr))
      throw RenderError("font atlas: stbtt_PackBegin failed");
    stbtt_PackSetOversampling(&pc, 1, 1);  // whole-pixel glyphs: crisp at whole-pixel pens
    const int ok = stbtt_PackFontRanges(&pc, ttf.data(), 0, &range, 1);
    stbtt_PackEnd(&pc);
    if (ok) {
      width_ = height_ = side;
      break;
    }
  }
  for (size_t k = 0; k < codes.size(); ++k) {
    const stbtt_packedchar& p = packed[k];
    GlyphBox g;
    g.x0 = p.xoff;
    g.x1 = p.xoff2;
    g.y0 = -p.yoff2;  // stb's y points down
    g.y1 = -p.yoff;
    g.s0 = static_cast<float>(p.x0) / width_;
    g.s1 = static_cast<float>(p.x1) / width_;
    g.t0 = static_cast<float>(p.y0) / height_;
    g.t1 = static_cast<float>(p.y1) / height_;
    g.advance = p.xadvance;
    impl_->glyphs[codes[k]] = g;
    impl_->present[codes[k]] = stbtt_FindGlyphIndex(&info, static_cast<int>(codes[k])) != 0;
  }
  impl_->fallback = impl_->glyphs.at(U'?');
}

FontAtlas::~FontAtlas() = default;

bool FontAtlas::has(char32_t code) const {
  const auto it = impl_->present.find(code);
  return it != impl_->present.end() && it->second;
}

const GlyphBox& FontAtlas::glyph(char32_t code) const {
  if (!has(code)) return impl_->fallback;
  return impl_->glyphs.at(code);
}

}  // namespace simscope::render
