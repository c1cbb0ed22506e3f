#include "image_size.hpp"

#include <cctype>

#include "core/error.hpp"
#include "core/number_text.hpp"

namespace simscope::app {
namespace {

/// A decimal integer in [1, 1048576], or 0.
int side(const std::string& text) {
  int v = 0;
  return parse_number(text, v) && v >= 1 && v <= 1048576 ? v : 0;
}

}  // namespace

std::pair<int, int> parse_image_size(const std::string& text) {
  std::string lower = trimmed(text);
  for (char& c : lower) c = char(std::tolower(static_cast<unsigned char>(c)));
  const auto x = lower.find('x');
  const int w = x == std::string::npos || lower.find('x', x + 1) != std::string::npos
                    ? 0
                    : side(lower.substr(0, x));
  const int h = w ? side(lower.substr(x + 1)) : 0;
  if (!w || !h)
    throw Error("image size expects WxH with 1 <= W, H <= 1048576 (e.g. 1920x1080), got '" + text +
                "'");
  return {w, h};
}

}  // namespace simscope::app
