#pragma once
/// @file The views' label markup (render/text_markup.hpp: `m^2`, `10^-3`, `x^{2}`, `t_{0}`,
/// `\phi`) as plain UTF-8 for the window's own ImGui text: units, help, readouts.
#include <functional>
#include <string>

namespace simscope::app::gui {

/// `markup` as plain UTF-8. Greek and symbols become their characters. Super- and subscripts
/// become the Unicode script characters (digits, + and minus, =, ( ), and the letters Unicode
/// has), e.g. "m^2" -> "m²", "10^-3" -> "10⁻³", "t_{0}" -> "t₀", where `has_glyph` says the font
/// draws them all. A script the font cannot draw stays readable as "^2", "^-3", "^(T+1)" or
/// "_(ab)", without braces. Text without markup comes back unchanged.
std::string plain_text(const std::string& markup, const std::function<bool(char32_t)>& has_glyph);

/// plain_text with the window's current ImGui font and its baked glyphs. DejaVu Sans has the
/// superscripts; ImGui's fallback bitmap font has only ¹ ² ³. Needs an ImGui frame.
std::string ui_text(const std::string& markup);

}  // namespace simscope::app::gui
