#pragma once
/// @file Probes and line profiles of a plane result: every output of a result laid out as the
/// shown plane image (PlaneSamples), the readout of all of them at one sample, and a line across
/// the plane sampled by bilinear interpolation (Profile), written as CSV. Pure C++ (no GL, no
/// ImGui): the GUI's probe and profile plot and the headless `--profile` share it.
#include <optional>
#include <string>
#include <vector>

#include "workload.hpp"

namespace simscope::app {

/// One output as an image aligned with the shown plane: value(i, j) = data[i * cols + j].
struct PlaneColumn {
  std::string name;   ///< output name, e.g. "magnitude"; "solution[2]" for a component
  std::string label;  ///< e.g. "|E|"
  std::string unit;   ///< e.g. "k*q/length^2"
  std::vector<float> data;
  /// The output holds integers (an integer dtype, e.g. lsq's count and status codes): read at
  /// the nearest sample, never interpolated (PlaneSamples::interpolate).
  bool integer = false;
};

/// Every plane output of one result, and the plane's coordinates.
///
/// Sample coordinates (fi, fj) are fractional sample indices: sample (i, j) sits at (i, j), the
/// image spans [0, rows-1] x [0, cols-1]. The plane's in-plane coordinates (u, v) (for a field
/// plane e.g. x and y, for lsq the pixel column w and row h) are affine in them:
/// u = u_first + (u_last - u_first) * fi / (rows - 1), the same for v with fj and cols. The
/// CSV's coordinate columns (coord_names) are affine in (fi, fj) too: x, y, z for a field plane
/// (one of them the plane's constant offset), else u and v.
struct PlaneSamples {
  int rows = 0, cols = 0;
  std::vector<PlaneColumn> columns;
  std::string u_name = "i", v_name = "j";                   ///< names of the in-plane coordinates
  double u_first = 0, u_last = 0, v_first = 0, v_last = 0;  ///< equal: index coordinates
  std::vector<std::string> coord_names;                     ///< CSV coordinate columns
  /// coord[c] = coord_base[c] + coord_di[c] * fi + coord_dj[c] * fj
  std::vector<double> coord_base, coord_di, coord_dj;

  /// CSV coordinate c at sample position (fi, fj), coord_base[c] + coord_di[c] * fi +
  /// coord_dj[c] * fj, with round-off at zero removed: a value within 16 ulps of the
  /// coordinate's extent (|base| + |di| (rows - 1) + |dj| (cols - 1)) is 0 (the centre line of
  /// a plane -1.5 ... 1.5 gave y = -2.7e-15).
  double coord_at(std::size_t c, double fi, double fj) const;

  /// Index of column `name`, or -1.
  int column(const std::string& name) const;
  /// In-plane coordinates of sample position (fi, fj).
  double u_at(double fi) const;
  double v_at(double fj) const;
  /// Sample position of in-plane coordinates (u, v) (the inverse of u_at / v_at).
  double fi_of(double u) const;
  double fj_of(double v) const;
  /// Bilinear interpolation of column c at (fi, fj), clamped to the image; NaN when a
  /// neighbour taking part is NaN. An integer column (PlaneColumn::integer) gives the nearest
  /// sample's value instead (halves round away from zero), so codes and counts stay values of
  /// the map.
  double interpolate(int c, double fi, double fj) const;
};

/// The name of the column showing `view` (the value of the workload's view parameter) in
/// plane_samples(): `view` itself, or "solution[k]" for lsq's solution with view.component k.
std::string shown_column_name(const RunResult& result, const std::string& view_param,
                              const std::string& view);

/// Every output of `result` that the workload shows as a plane image of the same size as the
/// image of `shown` (the view parameter's value): one column per choice of the view parameter
/// (each read through Workload::view_image, the one function that turns outputs into plane
/// images), one per component k of a choice whose output has a leading component axis picked by
/// an Int parameter "<view param>.component" (lsq's
/// solution). A column is `integer` when its output has an integer dtype. Choices shown other than
/// as a plane (e.g. the oscillators' phase view) and images of another size are left out. Throws
/// simscope::Error when `shown` gives no image.
PlaneSamples plane_samples(const Workload& workload, const RunResult& result,
                           const std::string& shown);

/// The readout of every column at sample (i, j) (clamped into the image), one line each:
/// "name = value unit", after a first line "coord=... coord=..." of the sample's coordinates.
std::string probe_text(const PlaneSamples& s, int i, int j);

/// A line across the plane, in the in-plane coordinates (u0, v0) -> (u1, v1).
struct ProfileLine {
  double u0 = 0, v0 = 0, u1 = 0, v1 = 0;
  int samples = 0;  ///< 0: one per grid spacing along the line (see line_profile)
};

/// Parses `--profile x0,y0:x1,y1[:samples]` (numbers in the plane's in-plane coordinates,
/// samples an integer >= 2). Throws simscope::Error "--profile expects ..." naming the text.
ProfileLine parse_profile_line(const std::string& text);

/// Values along a line: rows of (distance, coordinates..., every column).
struct Profile {
  std::vector<std::string> header;  ///< "distance", coord_names..., column names
  std::vector<std::vector<double>> rows;
  int first_value_column = 0;                 ///< index in header of the first output column
  double fi0 = 0, fj0 = 0, fi1 = 0, fj1 = 0;  ///< the line in sample positions
};

/// The profile from sample position (fi0, fj0) to (fi1, fj1) with `samples` points evenly
/// spaced, both ends included; samples = 0: ceil(L) + 1 points, L the line's length in sample
/// spacings (hypot(fi1 - fi0, fj1 - fj0)), so points are at most one grid spacing apart (at
/// least 2 points). Distance is measured in the in-plane coordinates (u, v) from the start.
/// Throws simscope::Error when samples is 1 or above 1,000,000.
Profile line_profile(const PlaneSamples& s, double fi0, double fj0, double fi1, double fj1,
                     int samples = 0);
/// The same for a line in in-plane coordinates. Throws simscope::Error naming the point and the
/// plane's extent when an end lies outside the plane.
Profile line_profile(const PlaneSamples& s, const ProfileLine& line);

/// The profile as CSV: the header line, then one line per point (values with 9 significant
/// digits, "nan" for NaN).
std::string profile_csv(const Profile& p);
/// Writes profile_csv(p) to `path` (through a temporary file renamed into place). Throws
/// simscope::Error naming the path.
void write_profile_csv(const std::string& path, const Profile& p);

}  // namespace simscope::app
