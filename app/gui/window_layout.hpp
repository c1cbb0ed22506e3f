#pragma once
/// @file Where the window's parts go: the parameters panel on the left, the view panel on the
/// right, the status bar at the bottom and the centre view between them.
#include <string>

namespace simscope::app::gui {

/// The window's parts in window units (ImGui's), for a window W x H.
struct WindowLayout {
  float W = 0, H = 0;
  float left = 0, right = 0;  ///< the panels' widths; 0 while hidden (key H)
  float bottom = 0;           ///< the status bar's height
};

/// The layout at UI scale `scale`: the panels at their natural widths, narrowed together where
/// they would leave the centre view less than 45 % of W (an 800 px window: 250 and 190 px, the
/// centre 360 px), or none when `panels` is false; a status bar 58 px high at scale 1.
WindowLayout window_layout(float W, float H, float scale, bool panels);

/// Draws, in place of the plane, the reason it shows nothing for the chosen output: wrapped,
/// centred in the centre view, no colorbar.
void draw_view_message(const std::string& why, const WindowLayout& l);

}  // namespace simscope::app::gui
