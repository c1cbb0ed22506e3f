// The views' label markup as the window's plain text (app/gui/ui_text.hpp): Unicode super- and
// subscripts where the font has them, else the markup kept readable.
#include <gtest/gtest.h>

#include "ui_text.hpp"

using simscope::app::gui::plain_text;

namespace {
bool all_glyphs(char32_t) { return true; }
bool latin1_only(char32_t c) { return c <= 0xFF; }  // ImGui's bitmap font: ¹ ² ³, no ⁻
}  // namespace

TEST(UiText, SuperscriptsBecomeUnicodeWhereTheFontHasThem) {
  EXPECT_EQ(plain_text("k*q/length^2", all_glyphs), "k*q/length\u00b2");
  EXPECT_EQ(plain_text("A^2", all_glyphs), "A\u00b2");
  EXPECT_EQ(plain_text("10^-3 s", all_glyphs), "10\u207b\u00b3 s");
  EXPECT_EQ(plain_text("x^{12}", all_glyphs), "x\u00b9\u00b2");
  EXPECT_EQ(plain_text("m^{4567890}", all_glyphs), "m\u2074\u2075\u2076\u2077\u2078\u2079\u2070");
  EXPECT_EQ(plain_text("t_{0}", all_glyphs), "t\u2080");
  EXPECT_EQ(plain_text("\\phi [rad]", all_glyphs), "\u03c6 [rad]");
}

TEST(UiText, WithoutTheGlyphsTheMarkupStaysReadable) {
  EXPECT_EQ(plain_text("length^2", latin1_only), "length\u00b2");  // ² is Latin-1
  EXPECT_EQ(plain_text("10^-3", latin1_only), "10^-3");            // no ⁻ in the font
  EXPECT_EQ(plain_text("x^{T}", all_glyphs), "x^T");               // no superscript T at all
  EXPECT_EQ(plain_text("x^{ab}", all_glyphs), "x^(ab)");
  EXPECT_EQ(plain_text("t_{0}", latin1_only), "t_0");
}

TEST(UiText, TextWithoutMarkupIsUnchanged) {
  for (const char* t :
       {"sources.half_width [length]", "|E| rel. error", "A^T A", "", "a_b", "\u03c6 \u2264 1"})
    EXPECT_EQ(plain_text(t, all_glyphs), t);
}
