#pragma once
/// @file Comparing two results of one workload: A (pinned) and B (current).
/// The view shows B, A, B - A or (B - A) / |A|, with the largest and RMS difference; differences
/// use a diverging colormap centred on 0. An export writes A's outputs to DIR/pinned/ and the
/// differences to DIR/difference/ beside B's. No GL or ImGui: the GUI's Pin and the headless
/// `--pin-set` share it.
#include <string>
#include <vector>

#include "output/json.hpp"
#include "view/plane_profile.hpp"
#include "workload.hpp"

namespace simscope::app {

/// What the view shows while a result is pinned.
enum class CompareMode { Current, Pinned, Difference, Relative };

/// "B (current)", "A (pinned)", "B - A", "(B - A) / |A|", in enum order.
const std::vector<std::string>& compare_mode_names();

/// An output's values as doubles, as its file holds them: float64 in full, others through
/// float32. The only reader of an output's storage for comparisons.
std::vector<double> output_values(const OutputArray& o);

/// Whether `unit` is "rad", an angle such as the oscillators' phases.
/// Angle differences are wrapped into (-pi, pi], as numpy.angle(exp(1j * (b - a))).
bool is_angle(const std::string& unit);
/// b - a, wrapped into (-pi, pi] when `angle` (is_angle).
double difference(double a, double b, bool angle);

/// Differences of two equally long arrays over the pairs where both are finite.
/// Holds the largest |b - a| and the root mean square. Relative stats use |b - a| / |a| over pairs
/// with |a| > 0. With `angle`, b - a is wrapped into (-pi, pi] (difference()).
struct DiffStats {
  double max_abs = 0, rms = 0;
  std::size_t compared = 0;  ///< pairs counted
  std::size_t skipped = 0;   ///< pairs left out (a non-finite value, or a == 0 for relative)
};
DiffStats diff_stats(const std::vector<float>& a, const std::vector<float>& b, bool relative,
                     bool angle = false);

/// The image of `mode` from images `a` (A) and `b` (B) of one output: b, a, b - a or (b - a) / |a|.
/// Relative is NaN where a == 0. b - a is wrapped when b's unit is an angle (is_angle).
/// Differences are labelled "B - A: label" or "(B - A) / |A|: label" (relative has no unit), with
/// colormap "coolwarm", a linear scale and a range symmetric about 0.
/// Throws simscope::Error naming both sizes when the images differ in size.
ViewImage compare_image(const ViewImage& a, const ViewImage& b, CompareMode mode);

/// The plane samples (probe, line profile) of what `mode` shows, from A's `a` and B's `b`.
/// Returns b, a, or for each column of b that a holds by name, b - a or (b - a) / |a|, with the
/// rules and labels of compare_image. Columns of b that a lacks are left out of differences.
/// Throws simscope::Error naming both sizes when the planes differ in size.
PlaneSamples compare_samples(const PlaneSamples& a, const PlaneSamples& b, CompareMode mode);

/// B - A for every output of `b` that `a` holds with the same shape.
/// float64 outputs stay float64; others, integers included, become float32 so negative differences
/// are kept. Angles are wrapped into (-pi, pi], so difference/phases.npy holds phase differences.
std::vector<OutputArray> output_differences(const RunResult& a, const RunResult& b);

/// The parameters of `a` that differ from `b`'s, as "name=value (B: value)", in schema order.
std::vector<std::string> differing_params(const ParamSet& a, const ParamSet& b);

/// Writes A's outputs and run.json (`manifest_a`) into DIR/pinned, all or nothing (export_run), and
/// B - A of every common output into DIR/difference/<output>.npy. Returns the paths written.
/// Throws simscope::Error naming the path that failed.
std::vector<std::string> export_comparison(const RunResult& a, const RunResult& b,
                                           const std::string& dir, const Json& manifest_a);

}  // namespace simscope::app
