#pragma once
/// @file The views' TrueType font, compiled into the library.
/// DejaVu Sans (Debian's fonts-dejavu-core; Bitstream Vera licence), read from /usr/share/fonts at
/// build time (SIMSCOPE_VIEW_FONT), so images look the same on every machine.
#include <span>

namespace simscope::render {

/// The bytes of the embedded TTF file; never empty.
std::span<const unsigned char> view_font_ttf();

}  // namespace simscope::render
