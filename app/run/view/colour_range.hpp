#pragma once
/// @file The automatic colour range of an image, as view.range picks it: robust percentiles of
/// the finite values (view.range=percentile, the default) or their min and max (minmax). Shared
/// by the window, headless view.png and sweep frames (to_render_settings), so all three draw one
/// image over the same range. No GL: the values are on the host.
#include <optional>
#include <utility>
#include <vector>

namespace simscope::app {

/// The percentiles view.range=percentile draws between: the 0.5th and the 99.5th, so one value in
/// 200 at either end may lie beyond the range (drawn in the end colours), as napari's and
/// matplotlib users' robust contrast limits do.
inline constexpr double kRangeLowPercentile = 0.5, kRangeHighPercentile = 99.5;

/// The `p`th percentile (0 <= p <= 100) of `values`, by numpy's default rule (linear
/// interpolation between the two closest ranks: position (n - 1) p / 100 of the sorted values).
/// `values` is reordered. nullopt when it is empty.
std::optional<double> percentile_of(std::vector<float>& values, double p);

/// The range (lo, hi) over which to draw `values`: with `percentiles`, the kRangeLowPercentile
/// and kRangeHighPercentile percentiles of the finite values, else their min and max. On a
/// `log_scale` only values > 0 count. With `symmetric` (signed data under a diverging colormap):
/// (-m, m), m the kRangeHighPercentile percentile, or the max, of the finite |values|.
/// lo == hi widens as PlaneView::range() does: (lo - 0.5, hi + 0.5), on a log scale
/// (lo / sqrt(10), lo * sqrt(10)), symmetric m = 0 to (-1, 1). nullopt when no value counts.
/// The result always has finite lo < hi, and lo > 0 on a log scale.
std::optional<std::pair<double, double>> colour_range(const std::vector<float>& values,
                                                      bool percentiles, bool log_scale,
                                                      bool symmetric = false);

}  // namespace simscope::app
