// The views' label markup as plain UTF-8 for ImGui (ui_text.hpp).
#include "ui_text.hpp"

#include <imgui.h>

#include <vector>

#include "render/text_markup.hpp"

namespace simscope::app::gui {
namespace {

/// The Unicode superscript (level 1) or subscript (level -1) form of `c`, or 0 when none.
char32_t script_form(char32_t c, int level) {
  if (level > 0) {
    switch (c) {
      case '0':
        return 0x2070;
      case '1':
        return 0xB9;
      case '2':
        return 0xB2;
      case '3':
        return 0xB3;
      case '+':
        return 0x207A;
      case '-':
      case 0x2212:
        return 0x207B;
      case '=':
        return 0x207C;
      case '(':
        return 0x207D;
      case ')':
        return 0x207E;
      case 'n':
        return 0x207F;
      case 'i':
        return 0x2071;
      default:
        return c >= '4' && c <= '9' ? 0x2074 + (c - '4') : 0;
    }
  }
  switch (c) {
    case '+':
      return 0x208A;
    case '-':
    case 0x2212:
      return 0x208B;
    case '=':
      return 0x208C;
    case '(':
      return 0x208D;
    case ')':
      return 0x208E;
    case 'a':
      return 0x2090;
    case 'e':
      return 0x2091;
    case 'o':
      return 0x2092;
    case 'x':
      return 0x2093;
    default:
      return c >= '0' && c <= '9' ? 0x2080 + (c - '0') : 0;
  }
}

void put_utf8(std::string& out, char32_t c) {
  if (c < 0x80) {
    out += char(c);
  } else if (c < 0x800) {
    out += char(0xC0 | (c >> 6));
    out += char(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += char(0xE0 | (c >> 12));
    out += char(0x80 | ((c >> 6) & 0x3F));
    out += char(0x80 | (c & 0x3F));
  } else {
    out += char(0xF0 | (c >> 18));
    out += char(0x80 | ((c >> 12) & 0x3F));
    out += char(0x80 | ((c >> 6) & 0x3F));
    out += char(0x80 | (c & 0x3F));
  }
}

}  // namespace

std::string plain_text(const std::string& markup, const std::function<bool(char32_t)>& has_glyph) {
  const std::vector<render::TextPiece> pieces = render::parse_markup(markup);
  std::string out;
  for (std::size_t i = 0; i < pieces.size();) {
    if (pieces[i].level == 0) {
      put_utf8(out, pieces[i++].code);
      continue;
    }
    // A run of one level: all in script characters the font has, else marked as typed.
    std::size_t e = i;
    while (e < pieces.size() && pieces[e].level == pieces[i].level) ++e;
    bool mapped = true;
    for (std::size_t k = i; k < e && mapped; ++k) {
      const char32_t f = script_form(pieces[k].code, pieces[i].level);
      mapped = f != 0 && has_glyph(f);
    }
    if (mapped) {
      for (std::size_t k = i; k < e; ++k)
        put_utf8(out, script_form(pieces[k].code, pieces[i].level));
    } else {
      // "^-3" as typed; a longer run of anything else in parentheses, "^(T+1)".
      bool number = true;
      for (std::size_t k = i; k < e; ++k) {
        const char32_t c = pieces[k].code;
        number &= (c >= '0' && c <= '9') || (k == i && (c == '+' || c == 0x2212));
      }
      const bool parens = e - i > 1 && !number;
      out += pieces[i].level > 0 ? '^' : '_';
      if (parens) out += '(';
      for (std::size_t k = i; k < e; ++k)
        put_utf8(out, pieces[k].code == 0x2212 ? char32_t('-') : pieces[k].code);
      if (parens) out += ')';
    }
    i = e;
  }
  return out;
}

std::string ui_text(const std::string& markup) {
  if (markup.find_first_of("^_\\") == std::string::npos) return markup;  // nothing to change
  const ImFont* font = ImGui::GetFont();
  return plain_text(markup, [font](char32_t c) {
    return font && c <= 0xFFFF && font->FindGlyphNoFallback(ImWchar(c)) != nullptr;
  });
}

}  // namespace simscope::app::gui
