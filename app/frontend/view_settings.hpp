#pragma once
/// @file The view parameters (view_schema()) as render/'s ViewSettings for one image.
#include <string>
#include <vector>

#include "params/schema.hpp"
#include "render/plane_view.hpp"
#include "workload.hpp"

namespace simscope::app {

/// Settings for drawing `image` with view parameters `view`.
/// With `use_hints` (headless), the image's colormap and scale hints replace view.colormap and
/// view.scale while those are at their defaults and not named in `given`, the view parameters the
/// user set. The GUI instead applies hints to its view parameters (apply_view_hints), so its panel
/// shows what is drawn. While view.range is not locked, the image's fixed range applies, except a
/// range through 0 on a log scale; else the range comes from the image's values by view.range
/// (colour_range: percentile or minmax, symmetric for a symmetric image on a linear scale, the
/// positive values on a log scale), locked into the settings so that the window, view.png and
/// sweep frames draw over the same range. No finite (positive) value: auto_range, PlaneView's
/// fallback. Its annotations always apply.
/// Throws simscope::Error naming view.min when a locked range is drawn on a log scale with
/// view.min <= 0.
render::ViewSettings to_render_settings(const ParamSet& view, const ViewImage& image,
                                        bool use_hints = true,
                                        const std::vector<std::string>& given = {});

/// A one-line warning about what a log scale makes of `values`, the image of output `label`.
/// Values <= 0 take the lowest colour, clamped rather than |v|, and the range spans the positive
/// values. The warning counts them. "" when every finite value is > 0.
std::string log_scale_warning(const std::string& label, const std::vector<float>& values);

/// Sets view.colormap and view.scale to `hints` (an image's, or Workload::view_hints before
/// any result), or to view_schema()'s defaults (viridis, sequential; log) where it has none, so
/// each output gets its own default colormap and scale. Leaves those named in `given` (the GUI's
/// --set view parameters, a colormap the user chose). Returns true if any changed.
bool apply_view_hints(ParamSet& view, const ViewHints& hints,
                      const std::vector<std::string>& given = {});

}  // namespace simscope::app
