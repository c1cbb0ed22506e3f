#pragma once
/// @file The window's text: Dear ImGui's font baked from a TrueType file (DejaVu Sans from
/// Debian's fonts-dejavu-core) at the monitor's content scale, not the 13 px bitmap font
/// stretched by FontGlobalScale. Includes Greek letters, super- and subscripts and math symbols
/// (phi, theta, lambda, 10⁻³). A change of content scale, e.g. the window moved to another
/// monitor, re-bakes it. Without the TTF file: ImGui's bitmap font at the nearest whole scale.
#include <string>

namespace simscope::app::gui {

/// The TTF file used: SIMSCOPE_FONT when it names a file, else DejaVu Sans in Debian's font
/// folder. Empty when none is found.
std::string ui_font_path();

/// The UI scale in effect: the content scale the fonts are baked at; 1 = 96 dpi.
float ui_scale();

/// The UI scale for a window whose content scale is `content_scale`. First choice: the number
/// in [0.5, 4] in the file SIMSCOPE_UI_SCALE_FILE names, when set and readable. It is a test
/// hook: writing another number there mid-run acts like moving the window to another monitor.
/// Else SIMSCOPE_UI_SCALE, in [0.5, 4], when set; else content_scale.
float choose_ui_scale(float content_scale);

/// Bakes the fonts for `scale` into ImGui's atlas and rescales the style, starting from ImGui's
/// dark style. With `upload`, rebuilds the OpenGL back end's font texture; the back end must be
/// initialised. Returns a one-line note for the log: which font, at which pixel size.
std::string bake_fonts(float scale, bool upload);

}  // namespace simscope::app::gui
