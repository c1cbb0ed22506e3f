#pragma once
/// @file Colormaps: 256-entry RGB tables from matplotlib, embedded at build time.
/// Sources: resources/colormaps/<name>.csv, made by resources/colormaps/generate.py.
#include <array>
#include <string>
#include <vector>

namespace simscope::render {

/// A colormap: `table[k]` is the colour at t = k / (table.size() - 1).
/// r, g, b are in [0, 1], not gamma-decoded; they go to the framebuffer as they are.
struct Colormap {
  std::string name;
  bool cyclic = false;  ///< true for twilight: the first and last colours match (phase views)
  std::vector<std::array<float, 3>> table;

  /// The colour at t, linearly interpolated between neighbouring entries.
  /// t is clamped to [0, 1], also for cyclic maps. NaN gives the bottom colour.
  std::array<float, 3> sample(double t) const;
};

/// viridis, inferno, magma, plasma, turbo, coolwarm, gray, twilight, in this order.
const std::vector<std::string>& colormap_names();

/// The colormap called `name`, parsed once and cached. Thread-safe.
/// Throws RenderError "unknown colormap 'x': expected one of viridis, inferno, ..." otherwise.
const Colormap& colormap(const std::string& name);

}  // namespace simscope::render
