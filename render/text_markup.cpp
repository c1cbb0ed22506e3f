#include "render/text_markup.hpp"

#include <cstdint>
#include <string_view>

namespace simscope::render {
namespace {

struct Named {
  std::string_view name;
  char32_t code;
};

// Greek letters by their TeX names, then a few symbols.
constexpr Named kNames[] = {
    {"alpha", 0x3B1},    {"beta", 0x3B2},     {"gamma", 0x3B3},   {"delta", 0x3B4},
    {"epsilon", 0x3B5},  {"zeta", 0x3B6},     {"eta", 0x3B7},     {"theta", 0x3B8},
    {"iota", 0x3B9},     {"kappa", 0x3BA},    {"lambda", 0x3BB},  {"mu", 0x3BC},
    {"nu", 0x3BD},       {"xi", 0x3BE},       {"pi", 0x3C0},      {"rho", 0x3C1},
    {"sigma", 0x3C3},    {"tau", 0x3C4},      {"upsilon", 0x3C5}, {"phi", 0x3C6},
    {"chi", 0x3C7},      {"psi", 0x3C8},      {"omega", 0x3C9},   {"varphi", 0x3D5},
    {"vartheta", 0x3D1}, {"Gamma", 0x393},    {"Delta", 0x394},   {"Theta", 0x398},
    {"Lambda", 0x39B},   {"Xi", 0x39E},       {"Pi", 0x3A0},      {"Sigma", 0x3A3},
    {"Upsilon", 0x3A5},  {"Phi", 0x3A6},      {"Psi", 0x3A8},     {"Omega", 0x3A9},
    {"pm", 0xB1},        {"times", 0xD7},     {"cdot", 0xB7},     {"deg", 0xB0},
    {"infty", 0x221E},   {"partial", 0x2202}, {"nabla", 0x2207},  {"leq", 0x2264},
    {"geq", 0x2265},     {"approx", 0x2248},  {"minus", 0x2212},
};

/// Decodes one character at text[i], advancing i. Invalid: U+FFFD, one byte consumed.
char32_t next_code(const std::string& text, size_t& i) {
  const auto b = static_cast<unsigned char>(text[i]);
  int len = b < 0x80 ? 1 : (b >> 5) == 6 ? 2 : (b >> 4) == 14 ? 3 : (b >> 3) == 30 ? 4 : 0;
  if (len == 0 || i + len > text.size()) {
    ++i;
    return 0xFFFD;
  }
  char32_t c = len == 1 ? b : len == 2 ? (b & 0x1F) : len == 3 ? (b & 0x0F) : (b & 0x07);
  for (int k = 1; k < len; ++k) {
    const auto t = static_cast<unsigned char>(text[i + k]);
    if ((t & 0xC0) != 0x80) {
      ++i;
      return 0xFFFD;
    }
    c = (c << 6) | (t & 0x3F);
  }
  i += len;
  return c;
}

bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

std::u32string decode_utf8(const std::string& text) {
  std::u32string out;
  for (size_t i = 0; i < text.size();) out.push_back(next_code(text, i));
  return out;
}

bool utf8_boundary(const std::string& text, size_t i) {
  return i >= text.size() || (static_cast<unsigned char>(text[i]) & 0xC0) != 0x80;
}

std::vector<TextPiece> parse_markup(const std::string& text) {
  std::vector<TextPiece> out;
  int level = 0;
  bool braced = false;  // inside ^{...} or _{...}
  bool run = false;     // inside ^-12 (sign and digits)
  size_t i = 0;
  auto put = [&](char32_t c) {
    if (level != 0 && c == '-') c = 0x2212;
    out.push_back({c, level});
  };
  while (i < text.size()) {
    const char c = text[i];
    if (run && !is_digit(c)) {
      run = false;
      level = 0;
    }
    if (braced && c == '}') {
      braced = false;
      level = 0;
      ++i;
      continue;
    }
    if (level == 0 && (c == '^' || c == '_') && i + 1 < text.size() && text[i + 1] == '{') {
      level = c == '^' ? 1 : -1;
      braced = true;
      i += 2;
      continue;
    }
    if (level == 0 && c == '^' && i + 1 < text.size()) {
      const size_t d = (text[i + 1] == '-' || text[i + 1] == '+') ? i + 2 : i + 1;
      if (d < text.size() && is_digit(text[d])) {
        level = 1;
        run = true;
        ++i;
        for (; i < d; ++i) put(static_cast<unsigned char>(text[i]));
        continue;
      }
    }
    if (c == '\\' && i + 1 < text.size() && is_alpha(text[i + 1])) {
      size_t e = i + 1;
      while (e < text.size() && is_alpha(text[e])) ++e;
      const std::string_view name(text.data() + i + 1, e - i - 1);
      bool found = false;
      for (const Named& n : kNames) {
        if (n.name == name) {
          put(n.code);
          found = true;
          break;
        }
      }
      if (found) {
        i = e;
        continue;
      }
    }
    put(next_code(text, i));
  }
  return out;
}

}  // namespace simscope::render
