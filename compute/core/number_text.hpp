#pragma once
/// @file Numbers typed as text (command-line values, the window's fields): the whole text, blanks
/// around it allowed, a leading '+' too, read as C-locale decimal (std::from_chars: independent
/// of the process locale).
#include <cctype>
#include <charconv>
#include <string>

namespace simscope {

/// `s` without leading and trailing blanks.
inline std::string trimmed(const std::string& s) {
  std::size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return s.substr(a, b - a);
}

/// Reads all of `text` as a T (an integer or floating-point type); false when anything but the
/// number and blanks around it is there, or it is out of T's range ("inf" and "nan" are read).
template <class T>
bool parse_number(const std::string& text, T& v) {
  std::string t = trimmed(text);
  if (!t.empty() && t[0] == '+') t.erase(0, 1);
  if (t.empty()) return false;
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  return ec == std::errc() && end == t.data() + t.size();
}

}  // namespace simscope
