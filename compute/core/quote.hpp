#pragma once
/// @file Input text quoted in a one-line error message.
#include <cstddef>
#include <string>
#include <string_view>

namespace simscope {

/// `text` (a value, name or line read from a user's input) made fit for a one-line message:
/// control characters (newlines, tabs, NUL, DEL) become '?', and text longer than `max` bytes
/// is cut there (not inside a UTF-8 character) and ends in "...". Other bytes are kept as given,
/// so UTF-8 names read as written.
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
