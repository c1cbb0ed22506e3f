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
/// shows what is drawn. The image's fixed range applies while view.range is auto, except a range
/// through 0 on a log scale, which uses the positive values' range. Its annotations always apply.
/// Throws simscope::Error naming view.min when a locked range is drawn on a log scale with
/// view.min <= 0.
render::ViewSettings to_render_settings(const ParamSet& view, const ViewImage& image,
                                        bool use_hints = true,
                                        const std::vector<std::string>& given = {});

/// A one-line warning about what a log scale makes of `values`, the image of output `label`.
/// Values <= 0 take the lowest colour, clamped rather than |v|, and the range spans the positive
/// values. The warning counts them. "" when every finite value is > 0.
std::string log_scale_warning(const std::string& label, const std::vector<float>& values);

/// Sets view.colormap and view.scale to `image`'s hints where it has them, except those named in
/// `given`, the GUI's --set view parameters. Returns true if any changed.
bool apply_view_hints(ParamSet& view, const ViewImage& image,
                      const std::vector<std::string>& given = {});

}  // namespace simscope::app
