#pragma once
/// @file The mouse over the plane view: the wheel zooms about the cursor, the right button pans,
/// the value under the cursor shows as a tooltip, and a click goes to the workload's panel.
/// (Probes and line profiles: explore.hpp.) `fb_h` is the framebuffer's height and `sx`, `sy`
/// its pixels per window unit, to map ImGui's mouse position onto the plane.

namespace simscope::app::gui {

struct GuiState;

/// Zooms and pans s.plane with the mouse, unless ImGui takes the mouse; keeps s.zoom* as the
/// view clamped them.
void zoom_and_pan(GuiState& s, int fb_h, float sx, float sy);
/// The value under the cursor on the plane in s.cursor_text, and as a tooltip when `tooltip`.
/// The caller clears s.cursor_text each frame, so nothing is left when the cursor leaves the
/// image.
void cursor_readout(GuiState& s, int fb_h, float sx, float sy, bool tooltip);
/// A left click on the image: the sample under it to the workload's on_click.
void click_plane(GuiState& s, int fb_h, float sx, float sy);

}  // namespace simscope::app::gui
