#pragma once
/// @file A line plot with axes for the window's panels, drawn with Dear ImGui draw lists.
/// Ticks and labels come from render/'s tick code (1-2-5 steps); axis titles; gaps at NaN; the
/// sample under the cursor marked with a tooltip. Used by the line profile, the oscillators'
/// R(t) and msd(t), and the lsq pixel inspector (data and fit, the solution vector).
#include <functional>
#include <string>
#include <vector>

namespace simscope::app::gui {

struct XyPlotOptions {
  std::string x_title, y_title;
  float height = 0;      ///< pixels; 0: the space left in the window
  bool fixed_y = false;  ///< use [y_lo, y_hi] (e.g. R in [0, 1]) instead of the data's range
  double y_lo = 0, y_hi = 1;
  /// The tooltip of sample k. Default: "y_title = y  at x_title = x".
  std::function<std::string(std::size_t)> hover_text;
  bool bars = false;  ///< y as bars from 0 (e.g. a solution vector) instead of a line
  /// A second series over the same x, drawn as dots, e.g. data against a fit line; included in
  /// the y range. With mark_gaps, its NaN samples are red ticks along the bottom.
  std::vector<double> dots;
  bool mark_gaps = false;
};

/// Draws y(x) as a line into the current ImGui window at full width. x and y are equally long,
/// x increasing. `id` must be unique in the window. Draws only the frame when there are no
/// points.
void draw_xy_plot(const char* id, const std::vector<double>& x, const std::vector<double>& y,
                  const XyPlotOptions& options);

/// The tooltip an xy plot showed in this ImGui frame, as "ID: text"; empty when none was
/// hovered. Screenshots record it as simscope.plot_hover so tests can read the readout.
std::string plot_hover_this_frame();

}  // namespace simscope::app::gui
