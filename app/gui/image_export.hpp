#pragma once
/// @file Images of the centre view at any size from the window. The "Image at size..." popup
/// (button or key I) takes "WxH", by default the centre view's size in pixels. It saves the
/// view rendered offscreen at that size as simscope-view-<time>.png with the screenshot's
/// metadata, or exports the data with view.png at that size. Sizes beyond the GL's limit fail
/// with a message naming the limit (render::Offscreen).
#include <cstdint>
#include <string>
#include <vector>

namespace simscope::app::gui {

struct GuiState;

struct ImageExportState {
  bool open_popup = false;         ///< key I or the button: open the popup this frame
  std::string text;                ///< the size field
  int view_w = 0, view_h = 0;      ///< the centre view's size in framebuffer pixels, last frame
  int export_w = 0, export_h = 0;  ///< the size of the next exports' view.png; 0: 1024 x 832
  int want_w = 0, want_h = 0;      ///< a view image asked for, saved after drawing (0: none)
};

/// The button and the popup, inside the right panel's ImGui window.
void draw_image_size_controls(GuiState& s);
/// Saves a view image asked for in the popup, after the frame's drawing, with the window's GL
/// context current. The status bar says where, or why not.
void save_requested_view_image(GuiState& s);
/// The centre view, plane or the workload's own, drawn offscreen at w x h: RGBA, top row first.
/// Draws `caption` over its top-left corner (render/caption.hpp) when not empty. Throws
/// render::RenderError, e.g. beyond the GL's size limit, which the message names.
std::vector<std::uint8_t> render_view_offscreen(GuiState& s, int w, int h,
                                                const std::string& caption = "");
/// The size of view.png in the window's exports.
std::pair<int, int> export_image_size(const GuiState& s);

}  // namespace simscope::app::gui
