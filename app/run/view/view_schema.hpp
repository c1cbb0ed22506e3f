#pragma once
/// @file How results are drawn, shared by every workload: colormap, scale, range. A Schema like
/// the workloads' own, so the GUI view panel, --set view.colormap=inferno, presets and export
/// metadata all use the same names.
#include <string>

#include "params/schema.hpp"

namespace simscope::app {

/// view.colormap (viridis|inferno|magma|plasma|turbo|coolwarm|gray|twilight),
/// view.scale (linear|log), view.range (percentile|minmax|locked; colour_range.hpp), view.min,
/// view.max, view.colorbar (bool). Rule of use: view.min and view.max are used only with
/// view.range=locked, so unused_warnings() names them when given with another range. The
/// headless front ends warn.
const Schema& view_schema();

/// Checks what the view parameters `view`, of view_schema(), need together: a locked range
/// (view.range=locked) needs view.min < view.max. Throws simscope::Error naming view.min and
/// view.max and their values otherwise. A range from the data passes whatever they hold.
void check_view_params(const ParamSet& view);

}  // namespace simscope::app
