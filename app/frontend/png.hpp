#pragma once
/// @file PNG files (libpng) with text metadata: views' images, screenshots and frames.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace simscope::app {

/// Writes `rgba` (width * height * 4 bytes, top row first) as an 8-bit RGBA PNG at `path`, whole
/// or not at all (io::AtomicFile). Each `text` entry, key -> UTF-8 value, becomes a text chunk:
/// tEXt for ASCII values, iTXt otherwise. Throws simscope::Error naming the file and the reason.
void write_png(const std::string& path, const std::vector<std::uint8_t>& rgba, int width,
               int height, const std::map<std::string, std::string>& text);

}  // namespace simscope::app
