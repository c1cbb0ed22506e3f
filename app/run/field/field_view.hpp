#pragma once
/// @file How a field result is shown: the image of an output (a plane, or a box's six faces as a
/// mosaic), its axis titles and face labels, and the space coordinates of its samples.
#include <optional>
#include <string>

#include "field/field_params.hpp"
#include "workload.hpp"

namespace simscope::app {

/// "%.4g" of v, as the field's titles and warnings print numbers.
std::string field_number(double v);

/// The colormap and scale of output `view`'s images (Workload::view_hints).
ViewHints field_view_hints(const std::string& view);
/// The image of output `view` of `r`, run with settings `s` (Workload::view_image). Throws
/// simscope::Error for an output `r` lacks (the error view of direct sums says why) and for
/// scattered targets, which are no image.
ViewImage field_view_image(const RunResult& r, const std::string& view, const field::Settings& s);

/// "x=.. y=.. z=.." of image sample (i, j) of `r`, run with settings `s`
/// (Workload::describe_sample).
std::string field_sample_text(const RunResult& r, const field::Settings& s, int i, int j);

/// A plane's samples in x, y, z: its two axes and the normal axis at the plane's offset
/// (field::make_targets' layout); nothing for a box (its faces keep the image's axes) or
/// scattered targets (Workload::sample_coordinates).
std::optional<SampleCoordinates> field_sample_coordinates(const field::Settings& s,
                                                          const SampleCoordinates& axes);

}  // namespace simscope::app
