// The views' text: markup parsing, the stb_truetype font atlas against the TTF's own tables (read
// by fontTools), and glyphs drawn through a headless context at two scales.
#include <glad/gl.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "render/caption.hpp"
#include "render/font_atlas.hpp"
#include "render/font_data.hpp"
#include "render/offscreen.hpp"
#include "render/text.hpp"
#include "render/text_markup.hpp"
#include "render_test_support.hpp"

namespace simscope::render {
namespace {

using test::Image;
using test::RenderTest;

TEST(TextMarkup, SuperscriptsSubscriptsAndGreek) {
  using P = TextPiece;
  EXPECT_EQ(parse_markup("10^-3 m"),
            (std::vector<P>{{'1', 0}, {'0', 0}, {0x2212, 1}, {'3', 1}, {' ', 0}, {'m', 0}}));
  EXPECT_EQ(parse_markup("x^{2}_{i-1}"),
            (std::vector<P>{{'x', 0}, {'2', 1}, {'i', -1}, {0x2212, -1}, {'1', -1}}));
  EXPECT_EQ(parse_markup("\\phi \\theta \\lambda \\Omega"),
            (std::vector<P>{
                {0x3C6, 0}, {' ', 0}, {0x3B8, 0}, {' ', 0}, {0x3BB, 0}, {' ', 0}, {0x3A9, 0}}));
  // Plain text stays: '_' without '{', '^' without digits, unknown names, UTF-8 as such.
  EXPECT_EQ(parse_markup("grid_size a^b \\foo"), [] {
    std::vector<P> v;
    for (char c : std::string("grid_size a^b \\foo")) v.push_back({char32_t(c), 0});
    return v;
  }());
  EXPECT_EQ(parse_markup("\xcf\x86=10\xe2\x81\xbb\xc2\xb3"),  // φ=10⁻³
            (std::vector<P>{{0x3C6, 0}, {'=', 0}, {'1', 0}, {'0', 0}, {0x207B, 0}, {0xB3, 0}}));
  EXPECT_EQ(parse_markup("a\xff"), (std::vector<P>{{'a', 0}, {0xFFFD, 0}}));
  EXPECT_TRUE(utf8_boundary("\xcf\x86x", 0));
  EXPECT_FALSE(utf8_boundary("\xcf\x86x", 1));
  EXPECT_TRUE(utf8_boundary("\xcf\x86x", 2));
}

/// unitsPerEm, H's yMax and the advance widths of `codes`, from the TTF's head/glyf/hmtx tables
/// through fontTools; empty when fontTools is missing.
std::vector<double> ttf_tables(const std::vector<char32_t>& codes) {
  std::string list;
  for (char32_t c : codes) list += std::to_string(static_cast<unsigned>(c)) + ",";
  const std::string cmd = std::string(SIMSCOPE_PYTHON) +
                          " -c \"from fontTools.ttLib import TTFont; f=TTFont('" +
                          SIMSCOPE_VIEW_FONT +
                          "'); m=f.getBestCmap(); "
                          "print(f['head'].unitsPerEm, f['glyf'][m[72]].yMax, "
                          "*(f['hmtx'][m[c]][0] for c in [" +
                          list + "]))\" 2>/dev/null";
  FILE* p = popen(cmd.c_str(), "r");
  std::vector<double> out;
  if (!p) return out;
  char buf[4096];
  std::string text;
  while (fgets(buf, sizeof buf, p)) text += buf;
  pclose(p);
  std::istringstream in(text);
  for (double v; in >> v;) out.push_back(v);
  return out;
}

TEST(FontAtlas, AdvancesAndCapHeightMatchTheTtfTablesAtEverySize) {
  const std::vector<char32_t> codes{'W', 'i', '0', 0x3C6, 0x3B8, 0x3BB, 0x207B, 0xB3};
  const std::vector<double> t = ttf_tables(codes);
  if (t.size() != codes.size() + 2) GTEST_SKIP() << "fontTools not available for " SIMSCOPE_PYTHON;
  const double upm = t[0], cap_units = t[1];
  for (const float cap_px : {7.0f, 14.0f, 28.0f}) {
    const float px = FontAtlas::pixel_size_for_cap(view_font_ttf(), cap_px);
    EXPECT_NEAR(px * cap_units / upm, cap_px, 1e-3);
    const FontAtlas atlas(view_font_ttf(), px);
    EXPECT_NEAR(atlas.cap_height(), cap_px, 1e-3);
    for (size_t k = 0; k < codes.size(); ++k) {
      EXPECT_TRUE(atlas.has(codes[k])) << "U+" << std::hex << unsigned(codes[k]);
      EXPECT_NEAR(atlas.glyph(codes[k]).advance, px * t[k + 2] / upm, 1e-3)
          << "U+" << std::hex << unsigned(codes[k]) << " at " << px << " px";
    }
    // The glyph boxes: about cap_px tall for H, inside the bitmap, and they scale with the size.
    const GlyphBox& h = atlas.glyph('H');
    EXPECT_NEAR(h.y1 - h.y0, cap_px, 1.01);
    EXPECT_GE(h.s0, 0);
    EXPECT_LE(h.s1, 1);
  }
  // Missing from the set: drawn as '?'.
  const FontAtlas atlas(view_font_ttf(), 20);
  EXPECT_FALSE(atlas.has(0x4E2D));
  EXPECT_EQ(atlas.glyph(0x4E2D).advance, atlas.glyph('?').advance);
}

TEST(FontAtlas, RejectsBadInput) {
  const unsigned char junk[64] = {1, 2, 3};
  EXPECT_THROW(FontAtlas(std::span<const unsigned char>(junk, sizeof junk), 20), RenderError);
  EXPECT_THROW(FontAtlas(view_font_ttf(), 1.0f), RenderError);
  EXPECT_THROW(FontAtlas(view_font_ttf(), 1000.0f), RenderError);
}

/// Bounding box of the pixels brighter than 100 (x0, y0, x1, y1, inclusive; origin bottom-left)
/// within columns [cx0, cx1); and the number of distinct grey levels among the partly lit ones.
struct Ink {
  int x0 = 1 << 30, y0 = 1 << 30, x1 = -1, y1 = -1, levels = 0;
};
Ink ink_of(const Image& img, int cx0 = 0, int cx1 = -1) {
  if (cx1 < 0) cx1 = img.w;
  Ink k;
  std::set<int> greys;
  for (int y = 0; y < img.h; ++y)
    for (int x = cx0; x < cx1; ++x) {
      const int v = img.at(x, y)[0];
      if (v > 20 && v < 235) greys.insert(v);
      if (v <= 100) continue;
      k.x0 = std::min(k.x0, x), k.x1 = std::max(k.x1, x);
      k.y0 = std::min(k.y0, y), k.y1 = std::max(k.y1, y);
    }
  k.levels = static_cast<int>(greys.size());
  return k;
}

Image draw_text(const std::string& text, float scale, int w = 400, int h = 160) {
  Offscreen fb(w, h);
  fb.bind();
  glClearColor(0, 0, 0, 1);
  glClear(GL_COLOR_BUFFER_BIT);
  TextRenderer t(scale);
  t.add_text(text, 20, h - 40, {1, 1, 1, 1});
  t.draw(w, h);
  return Image{w, h, fb.read_rgba()};
}

TEST_F(RenderTest, TextCapsScaleWithTheBakedSize) {
  for (const float scale : {2.0f, 4.0f}) {
    const Image img = draw_text("HH", scale);
    test::save_png(img, "render_text_scale" + std::to_string(int(scale)) + ".png");
    const Ink k = ink_of(img);
    ASSERT_GE(k.x1, 0) << "nothing drawn at scale " << scale;
    // Caps 7 font units tall, their top at y = h - 40, their left side bearing inside x = 20.
    EXPECT_NEAR(k.y1 - k.y0 + 1, 7 * scale, 1.0) << "scale " << scale;
    EXPECT_NEAR(k.y1 + 1, 160 - 40, 1.0);
    EXPECT_NEAR(k.x0, 20, 1.0) << "the ink starts at x";
    TextRenderer t(scale);
    EXPECT_NEAR(k.x1 + 1 - 20, t.text_width("HH"), 1.0);
    EXPECT_GE(k.levels, 3) << "anti-aliased edges";
  }
}

TEST_F(RenderTest, SuperscriptIsSmallerAndRaised) {
  const float scale = 4;
  const Image img = draw_text("10^-3", scale);
  test::save_png(img, "render_text_superscript.png");
  TextRenderer t(scale);
  const int split = 20 + static_cast<int>(t.text_width("10"));
  const Ink base = ink_of(img, 0, split), sup = ink_of(img, split);
  ASSERT_GE(base.x1, 0);
  ASSERT_GE(sup.x1, 0);
  const float cap = 7 * scale;
  // Digits are caps-high, round ones overshooting by about 2 % at each end.
  EXPECT_NEAR(base.y1 - base.y0 + 1, cap, 2.0);
  // The exponent's digit: 0.7 of the size, its baseline half a cap height up.
  EXPECT_NEAR(sup.y1 - sup.y0 + 1, 0.7 * cap, 2.0);
  EXPECT_NEAR(sup.y0 - base.y0, std::round(0.5 * cap), 1.5);
  EXPECT_GT(sup.y1, base.y1);
  EXPECT_GT(t.text_width("10^-3"), t.text_width("10") + 0.5 * t.text_width("\\minus3"));
  EXPECT_LT(t.text_width("10^-3"), t.text_width("10\\minus3"));
}

TEST_F(RenderTest, GreekLettersAreDrawnNotQuestionMarks) {
  const Image greek = draw_text("\\phi\\theta\\lambda", 3);
  const Image qs = draw_text("???", 3);
  int differ = 0;
  for (size_t k = 0; k < greek.rgba.size(); k += 4) differ += greek.rgba[k] != qs.rgba[k];
  EXPECT_GT(differ, 50);
  TextRenderer t(3);
  EXPECT_NE(t.text_width("\\phi\\theta\\lambda"), t.text_width("???"));
}

TEST_F(RenderTest, PrepareBakesEachSizeOnce) {
  TextRenderer t(2);
  t.prepare(2);
  t.prepare(2);
  t.prepare(4);
  const std::vector<float> sizes = t.baked_pixel_sizes();
  ASSERT_EQ(sizes.size(), 4u);  // text and scripts, at 2 and 4
  const float em2 = FontAtlas::pixel_size_for_cap(view_font_ttf(), 14);
  EXPECT_NEAR(sizes[0], em2, 0.13);
  EXPECT_NEAR(sizes[1], 0.7 * em2, 0.13);
  EXPECT_NEAR(sizes[2], 2 * em2, 0.13);
  EXPECT_NEAR(sizes[3], 1.4 * em2, 0.13);
}

TEST_F(RenderTest, CaptionInTheTopLeftCornerOnABackdrop) {
  const int w = 320, h = 200;
  Offscreen fb(w, h);
  fb.bind();
  glClearColor(1, 0, 0, 1);  // red: the backdrop darkens it, the text is white
  glClear(GL_COLOR_BUFFER_BIT);
  draw_caption("k = 1.5  (frame 3 of 4)", w, h, 1);
  const Image img{w, h, fb.read_rgba()};
  test::save_png(img, "render_caption.png");
  TextRenderer t(2);
  const int tw = static_cast<int>(t.text_width("k = 1.5  (frame 3 of 4)"));
  int dark = 0, white = 0, other = 0;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const auto c = img.at(x, y);
      const bool in_box = x >= 6 && x < 6 + tw + 10 && y >= h - 6 - 14 - 4 - 10 && y < h - 6;
      if (!in_box) {
        other += test::max_diff(c, {255, 0, 0}) > 2;
        continue;
      }
      dark += test::max_diff(c, {102, 0, 0}) <= 2;  // red under black at alpha 0.6
      white += c[0] > 230 && c[1] > 230 && c[2] > 230;
    }
  EXPECT_EQ(other, 0) << "nothing outside the caption's box";
  EXPECT_GT(dark, tw * 10) << "the backdrop";
  EXPECT_GT(white, 40) << "the text";
  // The bottom-left corner: the same box, mirrored.
  glClear(GL_COLOR_BUFFER_BIT);
  draw_caption("k = 1.5  (frame 3 of 4)", w, h, 1, CaptionCorner::BottomLeft);
  const Image low{w, h, fb.read_rgba()};
  int moved = 0;
  for (int y = 0; y < 28; ++y)
    for (int x = 0; x < w; ++x) moved += low.at(x, 6 + y) == img.at(x, h - 6 - 28 + y);
  EXPECT_EQ(moved, 28 * w) << "the caption's box moved to the bottom left, unchanged";
}

}  // namespace
}  // namespace simscope::render
