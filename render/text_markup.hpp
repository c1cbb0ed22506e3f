#pragma once
/// @file The views' label text: UTF-8 with a little TeX-like markup, turned into code points on
/// three levels (baseline, superscript, subscript). No GL: testable on its own.
///
/// Markup:
///  - `^{...}` superscript, `_{...}` subscript (one level; braces inside are kept as text);
///  - `^` followed by an optional sign and digits (`10^-3`, `m^2`): that run as a superscript;
///  - `\name` for Greek letters (`\phi`, `\theta`, `\lambda`, `\Omega`, ...) and a few symbols
///    (`\pm`, `\times`, `\cdot`, `\infty`, `\partial`, `\nabla`, `\leq`, `\geq`, `\approx`,
///    `\deg`, `\minus`); an unknown name stays as typed;
///  - in a super- or subscript, '-' is the minus sign U+2212.
/// Any other character, including '_' not followed by '{' and Unicode such as "φ" or "10⁻³", is
/// text. Invalid UTF-8 bytes become U+FFFD.
#include <string>
#include <vector>

namespace simscope::render {

/// One character to draw: a Unicode code point and its level (0 baseline, +1 superscript,
/// -1 subscript).
struct TextPiece {
  char32_t code = 0;
  int level = 0;
  bool operator==(const TextPiece&) const = default;
};

/// `text` (UTF-8 with the markup above) as the pieces to draw, in order.
std::vector<TextPiece> parse_markup(const std::string& text);

/// The code points of UTF-8 `text` without markup handling (U+FFFD for invalid bytes).
std::u32string decode_utf8(const std::string& text);

/// True when byte `i` of `text` starts a UTF-8 character (or is past the end): a place where the
/// string may be cut.
bool utf8_boundary(const std::string& text, size_t i);

}  // namespace simscope::render
