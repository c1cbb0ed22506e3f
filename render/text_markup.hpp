#pragma once
/// @file The views' label text: UTF-8 with a little TeX-like markup.
/// Parsed into code points on three levels: baseline, superscript, subscript. No GL.
///
/// Markup:
///  - `^{...}` superscript, `_{...}` subscript; one level, braces inside are kept as text.
///  - `^` followed by an optional sign and digits (`10^-3`, `m^2`): that run as a superscript.
///  - `\name` for Greek letters (`\phi`, `\theta`, `\lambda`, `\Omega`, ...) and some symbols:
///    `\pm`, `\times`, `\cdot`, `\infty`, `\partial`, `\nabla`, `\leq`, `\geq`, `\approx`,
///    `\deg`, `\minus`. An unknown name stays as typed.
///  - In a super- or subscript, '-' is the minus sign U+2212.
/// Any other character is text, including '_' not followed by '{' and Unicode such as "φ" or
/// "10⁻³". Invalid UTF-8 bytes become U+FFFD.
#include <string>
#include <vector>

namespace simscope::render {

/// One character to draw: a Unicode code point and its level.
/// Level 0 is the baseline, +1 superscript, -1 subscript.
struct TextPiece {
  char32_t code = 0;
  int level = 0;
  bool operator==(const TextPiece&) const = default;
};

/// `text` (UTF-8 with the markup above) as the pieces to draw, in order.
std::vector<TextPiece> parse_markup(const std::string& text);

/// Code points of UTF-8 `text`, no markup handling. Invalid bytes become U+FFFD.
std::u32string decode_utf8(const std::string& text);

/// True when byte `i` of `text` starts a UTF-8 character or is past the end, so the string may be
/// cut there.
bool utf8_boundary(const std::string& text, size_t i);

}  // namespace simscope::render
