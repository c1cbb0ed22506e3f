#pragma once
/// @file PNG files through Qt's QImageWriter, with text metadata (tEXt chunks).
#include <QString>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace simscope::app {

/// Writes `rgba` (width*height*4 bytes, top row first) as PNG at `path`, atomically (temp file
/// + rename), with each `text` entry as a PNG text chunk (key -> value). Throws simscope::Error
/// naming the file and QImageWriter's error.
void write_png(const std::string& path, const std::vector<std::uint8_t>& rgba, int width,
               int height, const std::map<QString, QString>& text);

}  // namespace simscope::app
