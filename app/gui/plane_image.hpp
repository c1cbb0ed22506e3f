#pragma once
/// @file The plane view's image: the shown result's chosen output in s.plane, with its view
/// settings and the view panel's histogram.

namespace simscope::app::gui {

struct GuiState;

/// Puts the current result's selected output into the plane view (compared with a pinned A when
/// a comparison is on), with the output's colormap and scale hints on a first showing. When the
/// workload refuses that output, s.view_message says why and no image is left.
void refresh_image(GuiState& s);

/// Before any result: the shown output's colormap and scale hints (Workload::view_hints) in the
/// view parameters, as refresh_image sets them on its first showing, so the view panel shows
/// the output's own defaults from the start.
void hint_view_before_result(GuiState& s);

}  // namespace simscope::app::gui
