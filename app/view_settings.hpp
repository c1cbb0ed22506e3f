#pragma once
/// @file The view parameters (view_schema()) as render/'s ViewSettings for one image.
#include "core/params.hpp"
#include "render/plane_view.hpp"
#include "workload.hpp"

namespace simscope::app {

/// Settings for drawing `image` with the view parameters `view`. With `use_hints`, the image's
/// colormap/scale hints replace view.colormap/view.scale while those are at their defaults (the
/// headless runner); the GUI applies the hints to its view parameters instead, so its panel shows
/// what is drawn (apply_view_hints). The image's fixed range applies while view.range is auto; its
/// annotations (aspect, axis titles, region labels) always. Throws simscope::Error naming
/// view.min when a locked range (view.range=locked) is drawn on a log scale with view.min <= 0.
render::ViewSettings to_render_settings(const ParamSet& view, const ViewImage& image,
                                        bool use_hints = true);

/// Sets view.colormap / view.scale to `image`'s hints (those it has). Returns true if any changed.
bool apply_view_hints(ParamSet& view, const ViewImage& image);

}  // namespace simscope::app
