#pragma once
/// @file The view parameters (view_schema()) as render/'s ViewSettings for one image.
#include "render/plane_view.hpp"
#include "core/params.hpp"
#include "workload.hpp"

namespace simscope::app {

/// Settings for drawing `image` with the view parameters `view`.
render::ViewSettings to_render_settings(const ParamSet& view, const ViewImage& image);

}  // namespace simscope::app
