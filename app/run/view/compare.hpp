#pragma once
/// @file Comparing two results of one workload: A (pinned) and B (current). The view can show B,
/// A, B - A or (B - A) / |A| (the differences with a diverging colormap centred on 0), with the
/// largest and the RMS difference; an export writes A's outputs (DIR/pinned/) and the
/// differences (DIR/difference/) beside B's. Pure C++ (no GL, no ImGui): the GUI's Pin and the
/// headless `--pin-set` share it.
#include <string>
#include <vector>

#include "json.hpp"
#include "view/plane_profile.hpp"
#include "workload.hpp"

namespace simscope::app {

/// What the view shows while a result is pinned.
enum class CompareMode { Current, Pinned, Difference, Relative };

/// "B (current)", "A (pinned)", "B - A", "(B - A) / |A|", in enum order.
const std::vector<std::string>& compare_mode_names();

/// The values of an output as doubles, as its file holds them (float64 exports in full, the
/// others through float32): the one place that reads an output's storage for comparisons.
std::vector<double> output_values(const OutputArray& o);

/// An output in radians (unit "rad": the oscillators' phases) is an angle: its differences are
/// wrapped into (-pi, pi], as numpy.angle(exp(1j * (b - a))) gives them.
bool is_angle(const std::string& unit);
/// b - a, wrapped into (-pi, pi] when `angle` (is_angle).
double difference(double a, double b, bool angle);

/// Differences of two equally long arrays over the pairs where both are finite (and, relative,
/// |a| > 0): the largest |b - a| (relative: |b - a| / |a|) and the root mean square; with
/// `angle`, b - a wrapped into (-pi, pi] (difference()).
struct DiffStats {
  double max_abs = 0, rms = 0;
  std::size_t compared = 0;  ///< pairs counted
  std::size_t skipped = 0;   ///< pairs left out (a non-finite value, or a == 0 for relative)
};
DiffStats diff_stats(const std::vector<float>& a, const std::vector<float>& b, bool relative,
                     bool angle = false);

/// The image of `mode` from A's image `a` and B's image `b` of the same output: b, a, b - a or
/// (b - a) / |a| (NaN where a == 0; b - a wrapped for an angle, is_angle of b's unit). The
/// differences get label "B - A: label" or
/// "(B - A) / |A|: label" (relative: no unit), colormap "coolwarm", linear scale and a range
/// symmetric about 0. Throws simscope::Error when the two images differ in size (naming both).
ViewImage compare_image(const ViewImage& a, const ViewImage& b, CompareMode mode);

/// The plane samples (probe and line profile) of what `mode` shows, from A's samples `a` and B's
/// `b` of the same plane: b, a, or for every column of b that a holds (by name) b - a or
/// (b - a) / |a| (NaN where a == 0; b - a wrapped for an angle), labelled as compare_image labels
/// the image (relative: no unit); columns of b that a lacks are left out of the differences. Throws
/// simscope::Error when the planes differ in size (naming both).
PlaneSamples compare_samples(const PlaneSamples& a, const PlaneSamples& b, CompareMode mode);

/// B - A for every output of `b` that `a` holds with the same shape (float64 outputs in
/// float64, the others as float32, integers included, so a negative difference is kept; an
/// angle's wrapped into (-pi, pi], so difference/phases.npy holds phase differences).
std::vector<OutputArray> output_differences(const RunResult& a, const RunResult& b);

/// The parameters of `a` that differ from `b`'s, as "name=value (B: value)", in schema order.
std::vector<std::string> differing_params(const ParamSet& a, const ParamSet& b);

/// Writes A's outputs and run.json (`manifest_a`) into DIR/pinned (export_run: all or nothing)
/// and B - A of every common output into DIR/difference/<output>.npy. Returns the paths written.
/// Throws simscope::Error naming the path that failed.
std::vector<std::string> export_comparison(const RunResult& a, const RunResult& b,
                                           const std::string& dir, const Json& manifest_a);

}  // namespace simscope::app
