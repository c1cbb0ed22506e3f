#pragma once
/// @file Text without its surrounding blanks: typed values, CSV cells, lines of a file.
#include <string>
#include <string_view>

namespace simscope {

/// The blanks trimmed: space, tab, newline, carriage return, form feed, vertical tab (the C
/// locale's isspace, whatever the process locale).
inline constexpr std::string_view kBlanks = " \t\n\r\f\v";

/// `s` without leading and trailing blanks, as a view into `s`. "" when all blanks.
inline std::string_view trimmed_view(std::string_view s) {
  const auto a = s.find_first_not_of(kBlanks);
  if (a == std::string_view::npos) return {};
  return s.substr(a, s.find_last_not_of(kBlanks) - a + 1);
}

/// `s` without leading and trailing blanks.
inline std::string trimmed(std::string_view s) { return std::string(trimmed_view(s)); }

}  // namespace simscope
