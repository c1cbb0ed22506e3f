#pragma once
/// @file The view parameters (view_schema()) as render/'s ViewSettings for one image.
#include <string>
#include <vector>

#include "params/schema.hpp"
#include "render/plane_view.hpp"
#include "workload.hpp"

namespace simscope::app {

/// Settings for drawing `image` with the view parameters `view`. With `use_hints`, the image's
/// colormap/scale hints replace view.colormap/view.scale while those are at their defaults and
/// not named in `given` (the view parameters the user set, e.g. by --set: an explicit
/// view.scale=log stays log on a signed output) (the headless runner); the GUI applies the hints
/// to its view parameters instead, so its panel shows what is drawn (apply_view_hints). The
/// image's fixed range applies while view.range is auto, except a range through 0 on a log
/// scale (then the positive values' range); its annotations (aspect, axis titles, region labels)
/// always. Throws simscope::Error naming view.min when a locked range (view.range=locked) is
/// drawn on a log scale with view.min <= 0.
render::ViewSettings to_render_settings(const ParamSet& view, const ViewImage& image,
                                        bool use_hints = true,
                                        const std::vector<std::string>& given = {});

/// What a log scale makes of `values` (the image of output `label`), as the plane view draws it:
/// values <= 0 have no logarithm and take the lowest colour (clamped, not |v|), the range spans
/// the positive values. A one-line warning that says so and counts them; "" when every finite
/// value is > 0.
std::string log_scale_warning(const std::string& label, const std::vector<float>& values);

/// Sets view.colormap / view.scale to `image`'s hints (those it has), except those named in
/// `given` (the GUI's --set view parameters, for its first image). Returns true if any changed.
bool apply_view_hints(ParamSet& view, const ViewImage& image,
                      const std::vector<std::string>& given = {});

}  // namespace simscope::app
