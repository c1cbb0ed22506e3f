#pragma once
/// @file Colorbar ticks: "nice" values (1-2-5 steps, or decades in log scale) and their labels.
#include <string>
#include <vector>

namespace simscope::render {

/// One tick of a colorbar.
struct Tick {
  double value;       ///< data value (e.g. 0.5, or 1e-3 in log scale)
  double position;    ///< 0 at the bottom of the bar (range minimum) ... 1 at the top (maximum)
  std::string label;  ///< e.g. "0.5", "-20", "1e-3", "2.5e6"
};

/// Ticks for the range [lo, hi] (lo < hi; for log scale 0 < lo).
///   - linear: multiples of a step 1, 2 or 5 x 10^k (2.5 x 10^k when no 1-2-5 step fits)
///     chosen so that 5 to 7 ticks fall inside the range; where no such step exists (e.g.
///     [0, 7]: step 1 gives 8, step 2 gives 4) the fewer ticks, 4 (8 only if 4 is impossible);
///   - log: the decades 10^k inside the range, every n-th one when there are more than 7;
///     with fewer than 5 decades 2 x 10^k and 5 x 10^k are added (where that gives more than 7
///     ticks: the decades alone, or 3 x 10^k added when those are fewer than 3); a range narrower
///     than about a decade falls back to linear ticks (positions still logarithmic).
/// Returns an empty vector for an empty or non-finite range.
std::vector<Tick> colorbar_ticks(double lo, double hi, bool log_scale);

/// Positions (0 bottom ... 1 top) of unlabelled minor ticks: in log scale every m x 10^k
/// (m = 1..9) inside the range that has no label, or every unlabelled decade when the range spans
/// more than 7 decades; none in linear scale.
std::vector<double> colorbar_minor_ticks(double lo, double hi, bool log_scale);

/// A short label for `value` on a grid of spacing `step` (> 0): plain decimals with as many
/// digits as the step needs, trailing zeros dropped, for magnitudes in [1e-3, 1e5) ("0.25",
/// "1", "-40"), else mantissa "e" exponent ("1e-5", "2.5e6"); values within step * 1e-9 of zero
/// print "0".
/// `scientific` forces the mantissa-exponent form (so one colorbar does not mix "5e5" and
/// "50000").
std::string format_tick(double value, double step, bool scientific = false);

}  // namespace simscope::render
