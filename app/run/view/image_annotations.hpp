#pragma once
/// @file What a workload says about a ViewImage besides its values: how the image fills the view,
/// the names and coordinate ranges of its two axes, and labels of image regions, e.g. the faces of
/// a box mosaic. Plain data of the run layer; the front end hands it to the plane view
/// (frontend/view_settings.cpp, to_render_settings), and the profiles read the axes' coordinates
/// (view/plane_profile.cpp).
#include <string>
#include <vector>

namespace simscope::app {

/// How the image fills the view.
enum class ImageAspect {
  Square,  ///< square data pixels: for spatial planes (the default)
  Fill,    ///< stretched over the view: for arrays whose axes are not lengths (members x nodes)
};

/// The title of one data axis: "name: first ... last", the coordinates of its first and last
/// sample; "name" alone when the range is off.
struct AxisTitle {
  std::string name;            ///< e.g. "x", "pixel column w"; empty: no title on this axis
  bool show_range = true;      ///< append ": first ... last"
  double first = 0, last = 0;  ///< coordinate of sample 0 and of sample n-1 (may be first > last,
                               ///< e.g. image rows counted downwards); finite
};

/// A text label over a rectangular part of the image, in fractions of the data axes: u along axis
/// i, v along axis j, each 0..1, u0 < u1, v0 < v1.
struct RegionLabel {
  double u0 = 0, v0 = 0, u1 = 1, v1 = 1;
  /// Alternatives, longest first, e.g. {"-x face (y right, z up)", "-x (y, z)", "-x"}: the view
  /// draws the first that fits.
  std::vector<std::string> texts;
};

/// The annotations of a ViewImage. The defaults say none and keep square pixels.
struct ImageAnnotations {
  ImageAspect aspect = ImageAspect::Square;
  AxisTitle axis_i;  ///< the horizontal axis (data index i, left to right)
  AxisTitle axis_j;  ///< the vertical axis (data index j, bottom to top)
  std::vector<RegionLabel> regions;
};

}  // namespace simscope::app
