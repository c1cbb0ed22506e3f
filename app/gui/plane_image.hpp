#pragma once
/// @file The plane view's image: the shown result's chosen output in s.plane, with its view
/// settings and the view panel's histogram.

namespace simscope::app::gui {

struct GuiState;

/// Puts the current result's selected output into the plane view (compared with a pinned A when
/// a comparison is on), with the output's colormap and scale hints on a first showing. When the
/// workload refuses that output, s.view_message says why and no image is left.
void refresh_image(GuiState& s);

}  // namespace simscope::app::gui
