#pragma once
/// @file Colormaps: 256-entry RGB tables from matplotlib (resources/colormaps/<name>.csv, made by
/// resources/colormaps/generate.py and embedded at build time).
#include <array>
#include <string>
#include <vector>

namespace simscope::render {

/// A colormap: `table[k]` is the colour (r, g, b in [0, 1], not gamma-decoded: the values go to
/// the framebuffer as they are) at t = k / (table.size() - 1).
struct Colormap {
  std::string name;
  bool cyclic = false;  ///< true for twilight: the first and last colours match (phase views)
  std::vector<std::array<float, 3>> table;

  /// The colour at t, linearly interpolated between neighbouring table entries. t is clamped
  /// to [0, 1] (also for cyclic maps); NaN gives the bottom colour.
  std::array<float, 3> sample(double t) const;
};

/// viridis, inferno, magma, plasma, turbo, coolwarm, gray, twilight (in this order).
const std::vector<std::string>& colormap_names();

/// The colormap called `name` (parsed once, then cached; thread-safe). Throws RenderError
/// "unknown colormap 'x': expected one of viridis, inferno, ..." for other names.
const Colormap& colormap(const std::string& name);

}  // namespace simscope::render
