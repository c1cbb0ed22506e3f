#pragma once
/// @file The window's comparison. "Pin" or key A keeps the shown result as A. The view then
/// shows B (current), A, B - A or (B - A) / |A|; key D cycles. The panel shows the largest and
/// RMS difference and A's parameters that differ from B's. An export also writes A and the
/// differences (compare.hpp). State in GuiState::compare; the plane's image
/// (plane_image.cpp), the keys (shortcuts.cpp), exports (window_export.cpp) and panels.cpp call
/// the hooks.
#include <memory>
#include <string>
#include <vector>

#include "view/compare.hpp"

namespace simscope::app::gui {

struct GuiState;

struct CompareState {
  std::shared_ptr<const RunResult> pinned;  ///< A, or none
  CompareMode mode = CompareMode::Current;
  DiffStats stats, relative;  ///< of the shown output, B - A and (B - A) / |A|
  std::string stats_label;    ///< the shown output's label the stats are of ("" : none)
  std::string message;        ///< why there is no comparison (e.g. sizes differ)
};

/// Pins the shown result as A. Needs a full result of a plane view; else a status bar message.
void pin_result(GuiState& s);
/// Called after s.image is made from B's output `which`. With a result pinned for this
/// workload, updates the stats and, unless the mode is Current, replaces s.image with the
/// mode's image. Returns a suffix for the view-hint key: "/difference" while a difference is
/// shown, so its diverging colormap and linear scale apply, and "" so the output's own apply
/// once it is not.
std::string apply_compare(GuiState& s, const std::string& which);
/// True while s.image is not B's own image; the plane then uploads it from the host.
bool compare_shown(const GuiState& s);
/// The right panel's "Compare" section.
void draw_compare_panel(GuiState& s);
/// Key D: the next mode, in the cycle Current, Pinned, Difference, Relative, while a result of
/// this workload is pinned.
void cycle_compare_mode(GuiState& s);
/// After an export of B into `dir`: writes A into DIR/pinned and B - A into DIR/difference when
/// a result of this workload is pinned, and appends the paths to `written`. Throws
/// simscope::Error.
void export_compare(const GuiState& s, const std::string& dir, std::vector<std::string>& written);
/// "B - A: max |B - A| 1.2, RMS 0.3 (magnitude)" for the screenshot's simscope.compare; "" when
/// nothing is pinned.
std::string compare_summary(const GuiState& s);

}  // namespace simscope::app::gui
