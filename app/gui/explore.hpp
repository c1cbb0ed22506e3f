#pragma once
/// @file The plane view's exploration tools. The probe: a left click shows every output at the
/// sample. The line profile: a left drag with Shift held at some time during it draws a line
/// and a plot of the shown output along it, with axes, a hover readout and "Save CSV" or key P.
/// State lives in GuiState::explore; the window's frame loop calls the hooks below. Files:
/// probe.cpp (state, mouse, overlay, panel), profile_plot.cpp (the plot window and the CSV).
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "view/compare.hpp"
#include "view/plane_profile.hpp"

namespace simscope::app::gui {

struct GuiState;

/// What the probe and the profile keep between frames.
struct ExploreState {
  /// Every plane output of what the view shows: plane_samples of the result, or with a pinned
  /// A, compare_samples of the compare mode. Rebuilt when the result, the shown output, the
  /// compare mode or the pinned result changes; see the keys below.
  std::shared_ptr<const PlaneSamples> samples;
  std::uint64_t samples_serial = ~std::uint64_t(0);
  std::string samples_shown;
  CompareMode samples_mode = CompareMode::Current;
  const void* samples_pinned = nullptr;

  std::optional<std::pair<int, int>> probe;  ///< the probed sample (i, j), or none
  std::string probe_readout;                 ///< probe_text of it, this frame

  bool pressed = false;             ///< the left button is held since a press on the image
  bool shift_seen = false;          ///< Shift was down at some frame of this press: a line
  bool dragging = false;            ///< a line is being drawn (pressed and shift_seen)
  int press_i = 0, press_j = 0;     ///< the sample pressed (probed on release without Shift)
  double press_u = 0, press_v = 0;  ///< its in-plane coordinates (the line's start)
  /// The line in in-plane coordinates (PlaneSamples u, v). Kept across results, so the plot
  /// follows a recomputation or a live run along the same line.
  double u0 = 0, v0 = 0, u1 = 0, v1 = 0;
  bool have_line = false;
  bool show_plot = false;          ///< the "Line profile" window is open
  std::optional<Profile> profile;  ///< along the line, for the current samples
  std::uint64_t profile_serial = ~std::uint64_t(0);
  std::string shown_column;    ///< the profile column plotted (the shown output)
  bool want_save_csv = false;  ///< key P or the button: write the CSV after this frame
};

/// The probe's and the profile's mouse handling over the plane, after the panels, with the
/// plane's last draw. A click without Shift probes the sample; a Shift-drag draws the line and
/// opens the plot. fb_h, sx and sy as the window's frame loop has them: framebuffer height and
/// framebuffer pixels per window unit.
void explore_mouse(GuiState& s, int fb_h, float sx, float sy);
/// Draws the probe marker and the line over the plane (ImGui's background draw list, clipped
/// to the image), the "Line profile" window, and a pending CSV save. Call once a frame, after
/// explore_mouse, while an ImGui frame is open.
void draw_explore(GuiState& s, int fb_h, float sx, float sy);
/// The "Probe" section of the right panel, inside its ImGui window.
void draw_probe_panel(GuiState& s);
/// Text chunks for a screenshot, when there are any: simscope.probe (the readout) and
/// simscope.profile (the line and its points).
void add_explore_text(const GuiState& s, std::map<std::string, std::string>& text);

/// The samples of the shown result, rebuilt when stale. Null without a plane result.
const PlaneSamples* explore_samples(GuiState& s);
/// Recomputes the profile along the line for the current samples when stale.
void update_profile(GuiState& s);
/// Writes the profile as CSV to a new file simscope-profile-<time>.csv in the working folder.
/// The status bar says where, or why not.
void save_profile_csv(GuiState& s);
/// Draws the plot of the profile inside an ImGui window: axes with ticks, the curve, and the
/// value under the cursor.
void draw_profile_plot(const Profile& p, int column, const std::string& y_title, float scale);

}  // namespace simscope::app::gui
