#pragma once
/// @file An image size typed as "WxH", as the window's image-size field and --image-size take it.
#include <string>
#include <utility>

namespace simscope::app {

/// Parses "WxH", e.g. "1920x1080", into (width, height), each 1 ... 1048576.
/// Blanks around the numbers and "X" are allowed. GL limits are checked where the image is drawn
/// (render::Offscreen). Throws simscope::Error "image size expects WxH ..." naming the text.
std::pair<int, int> parse_image_size(const std::string& text);

}  // namespace simscope::app
