#pragma once
/// @file Quoting input text in one-line error messages.
#include <cstddef>
#include <string>
#include <string_view>

namespace simscope {

/// Returns `text`, read from user input, made fit for a one-line message.
/// Control characters such as newline, tab, NUL and DEL become '?'.
/// Text longer than `max` bytes is cut at a UTF-8 character boundary and ends in "...".
/// Other bytes are kept, so UTF-8 names read as written.
inline std::string quote_text(std::string_view text, std::size_t max = 80) {
  std::size_t n = text.size();
  if (n > max) {
    n = max;
    while (n > 0 && (static_cast<unsigned char>(text[n]) & 0xC0) == 0x80) --n;
  }
  std::string out(text.substr(0, n));
  for (char& c : out)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  return n < text.size() ? out + "..." : out;
}

}  // namespace simscope
