#pragma once
/// @file Parsing numbers typed as text: command-line values and the window's fields.
/// The whole text is read as C-locale decimal via std::from_chars, independent of the process
/// locale. Surrounding blanks and a leading '+' are allowed.
#include <charconv>
#include <string>

#include "core/trimmed.hpp"

namespace simscope {

/// Reads all of `text` as T, an integer or floating-point type. "inf" and "nan" are accepted.
/// Returns false when anything but the number and surrounding blanks is present, or on
/// overflow of T.
template <class T>
bool parse_number(const std::string& text, T& v) {
  std::string t = trimmed(text);
  if (!t.empty() && t[0] == '+') t.erase(0, 1);
  if (t.empty()) return false;
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  return ec == std::errc() && end == t.data() + t.size();
}

}  // namespace simscope
