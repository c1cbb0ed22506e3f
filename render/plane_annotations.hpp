#pragma once
/// @file What a PlaneView draws around and over its image besides colours.
/// How the image fills the view, the titles of its two axes, and labels of image regions, e.g.
/// the faces of a box mosaic. Plain data; PlaneView::set_settings checks it.
#include <string>
#include <vector>

namespace simscope::render {

/// How the image fills the area left of the colorbar.
enum class Aspect {
  Square,  ///< square data pixels, as large as fits, centred: for spatial planes (the default)
  Fill,    ///< stretched over the whole area: for arrays whose axes are not lengths
           ///< (e.g. members x nodes), so a 8 x 100 array is not drawn as a thin strip
};

/// The title of one data axis, drawn outside the image along it.
/// Reads "name: first ... last", the coordinates of the first and last sample shown or inside the
/// zoom window; "name" alone when the range is off or does not fit. Axis i's title reads left to
/// right below the image; axis j's reads bottom to top, rotated, left of it.
struct AxisTitle {
  std::string name;            ///< e.g. "x", "pixel column w"; empty: no title on this axis
  bool show_range = true;      ///< append ": first ... last" (numbers with 4 significant digits)
  double first = 0, last = 0;  ///< coordinate of sample 0 and of sample n-1 (may be first > last,
                               ///< e.g. image rows counted downwards); finite
};

/// A text label over a rectangular part of the image, inside its top-left corner on a translucent
/// dark backdrop. The region is in fractions of the data axes: u along axis i, v along axis j, each
/// 0..1, u0 < u1, v0 < v1. It follows zoom and pan, and is drawn only while enough of it is
/// visible to hold the text.
struct RegionLabel {
  double u0 = 0, v0 = 0, u1 = 1, v1 = 1;
  /// Alternatives, longest first, e.g. {"-x face (y right, z up)", "-x (y, z)", "-x"}.
  /// The first that fits the region's visible width is drawn; if none fits, no label.
  std::vector<std::string> texts;
};

/// The annotations of a PlaneView (ViewSettings::annotations).
/// The defaults draw none and keep square pixels.
struct PlaneAnnotations {
  Aspect aspect = Aspect::Square;
  AxisTitle axis_i;  ///< the horizontal axis (data index i, left to right)
  AxisTitle axis_j;  ///< the vertical axis (data index j, bottom to top)
  std::vector<RegionLabel> regions;

  bool has_axis_titles() const { return !axis_i.name.empty() || !axis_j.name.empty(); }
};

}  // namespace simscope::render
