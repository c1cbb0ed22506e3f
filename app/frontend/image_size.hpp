#pragma once
/// @file An image size typed as "WxH" (the window's image-size field; --image-size's form).
#include <string>
#include <utility>

namespace simscope::app {

/// Parses "WxH" (e.g. "1920x1080"; blanks around the numbers allowed, "X" or "x") into
/// (width, height), each 1 ... 1048576. Whether the GL can render that large is checked where the
/// image is drawn (render::Offscreen names its limit). Throws simscope::Error "image size
/// expects WxH ..." naming the text.
std::pair<int, int> parse_image_size(const std::string& text);

}  // namespace simscope::app
