#pragma once
/// @file Colorbar ticks: "nice" values and their labels.
/// Linear scales use 1-2-5 steps, log scales decades.
#include <string>
#include <vector>

namespace simscope::render {

/// One tick of a colorbar.
struct Tick {
  double value;       ///< data value (e.g. 0.5, or 1e-3 in log scale)
  double position;    ///< 0 at the bottom of the bar (range minimum) ... 1 at the top (maximum)
  std::string label;  ///< e.g. "0.5", "-20", "1e-3", "2.5e6"
};

/// Ticks for the range [lo, hi]; lo < hi, and 0 < lo for a log scale.
///   - linear: multiples of a step 1, 2 or 5 x 10^k, chosen so 5 to 7 ticks fall inside the range;
///     2.5 x 10^k when no 1-2-5 step fits. Where no step gives 5 to 7, e.g. [0, 7], the fewer
///     ticks win: 4, or 8 only if 4 is impossible.
///   - log: the decades 10^k inside the range, every n-th one when there are more than 7. Under 5
///     decades, 2 x 10^k and 5 x 10^k are added. If that gives more than 7 ticks, the decades stay
///     alone, or get 3 x 10^k when fewer than 3. A range under about a decade gets linear ticks at
///     logarithmic positions.
/// Returns an empty vector for an empty or non-finite range.
std::vector<Tick> colorbar_ticks(double lo, double hi, bool log_scale);

/// Positions, 0 bottom ... 1 top, of unlabelled minor ticks. None in linear scale.
/// In log scale: every unlabelled m x 10^k (m = 1..9) inside the range, or every unlabelled decade
/// when the range spans more than 7 decades.
std::vector<double> colorbar_minor_ticks(double lo, double hi, bool log_scale);

/// A short label for `value` on a grid of spacing `step` > 0.
/// Magnitudes in [1e-3, 1e5) print as decimals with the digits the step needs, trailing zeros
/// dropped ("0.25", "1", "-40"). Others print as mantissa "e" exponent ("1e-5", "2.5e6"). Values
/// within step * 1e-9 of zero print "0". `scientific` forces the mantissa-exponent form, so one
/// colorbar does not mix "5e5" and "50000".
std::string format_tick(double value, double step, bool scientific = false);

}  // namespace simscope::render
