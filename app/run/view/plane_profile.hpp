#pragma once
/// @file Probes and line profiles of a plane result.
/// Lays out every output as the shown plane image (PlaneSamples), reads all of them at one sample,
/// and samples a line across the plane by bilinear interpolation (Profile), written as CSV.
/// No GL or ImGui: the GUI's probe and profile plot and the headless `--profile` share it.
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
  /// The output has an integer dtype, e.g. lsq's count and status codes.
  /// Read at the nearest sample, never interpolated.
  bool integer = false;
};

/// Every plane output of one result, and the plane's coordinates.
///
/// Sample coordinates (fi, fj) are fractional sample indices: sample (i, j) sits at (i, j), and the
/// image spans [0, rows-1] x [0, cols-1]. In-plane coordinates (u, v) are affine in them:
/// u = u_first + (u_last - u_first) * fi / (rows - 1), and likewise v with fj and cols. For a field
/// plane (u, v) are e.g. x and y; for lsq the pixel column w and row h. The CSV's coordinate
/// columns (coord_names) are affine in (fi, fj) too: x, y, z for a field plane, one of them the
/// plane's constant offset; otherwise u and v.
struct PlaneSamples {
  int rows = 0, cols = 0;
  std::vector<PlaneColumn> columns;
  std::string u_name = "i", v_name = "j";                   ///< names of the in-plane coordinates
  double u_first = 0, u_last = 0, v_first = 0, v_last = 0;  ///< equal: index coordinates
  std::vector<std::string> coord_names;                     ///< CSV coordinate columns
  /// coord[c] = coord_base[c] + coord_di[c] * fi + coord_dj[c] * fj
  std::vector<double> coord_base, coord_di, coord_dj;

  /// CSV coordinate c at (fi, fj): coord_base[c] + coord_di[c] * fi + coord_dj[c] * fj.
  /// Round-off at zero is removed: a value within 16 ulps of the coordinate's extent
  /// (|base| + |di| (rows - 1) + |dj| (cols - 1)) returns 0.
  double coord_at(std::size_t c, double fi, double fj) const;

  /// Index of column `name`, or -1.
  int column(const std::string& name) const;
  /// In-plane coordinates of sample position (fi, fj).
  double u_at(double fi) const;
  double v_at(double fj) const;
  /// Sample position of in-plane coordinates; the inverse of u_at / v_at.
  double fi_of(double u) const;
  double fj_of(double v) const;
  /// Bilinear interpolation of column c at (fi, fj), clamped to the image.
  /// NaN when a contributing neighbour is NaN. An integer column (PlaneColumn::integer) returns the
  /// nearest sample's value instead, halves rounded away from zero, so codes and counts stay valid.
  double interpolate(int c, double fi, double fj) const;
};

/// Name of the column in plane_samples() that shows `view`, the view parameter's value.
/// `view` itself, or "solution[k]" for lsq's solution with view.component k.
std::string shown_column_name(const RunResult& result, const std::string& view_param,
                              const std::string& view);

/// Every output of `result` shown as a plane image the size of the image of `shown`.
/// One column per choice of the view parameter, read through Workload::view_image. A choice whose
/// output has a leading component axis, picked by an Int parameter "<view param>.component" (lsq's
/// solution), gives one column per component k. A column is `integer` when its output has an
/// integer dtype. Choices not shown as a plane (e.g. the oscillators' phase view) and images of
/// another size are left out. Throws simscope::Error when `shown` gives no image.
PlaneSamples plane_samples(const Workload& workload, const RunResult& result,
                           const std::string& shown);

/// Readout of every column at sample (i, j), clamped into the image.
/// First line "coord=... coord=..." with the sample's coordinates, then one "name = value unit"
/// line per column.
std::string probe_text(const PlaneSamples& s, int i, int j);

/// A line across the plane in in-plane coordinates, (u0, v0) -> (u1, v1).
struct ProfileLine {
  double u0 = 0, v0 = 0, u1 = 0, v1 = 0;
  int samples = 0;  ///< 0: one per grid spacing along the line (see line_profile)
};

/// Parses `--profile x0,y0:x1,y1[:samples]`: in-plane coordinates, samples an integer >= 2.
/// Throws simscope::Error "--profile expects ..." naming the text.
ProfileLine parse_profile_line(const std::string& text);

/// Values along a line: rows of (distance, coordinates..., every column).
struct Profile {
  std::vector<std::string> header;  ///< "distance", coord_names..., column names
  std::vector<std::vector<double>> rows;
  int first_value_column = 0;                 ///< index in header of the first output column
  double fi0 = 0, fj0 = 0, fi1 = 0, fj1 = 0;  ///< the line in sample positions
};

/// Profile from sample position (fi0, fj0) to (fi1, fj1), `samples` evenly spaced points, both ends
/// included. samples = 0 gives ceil(L) + 1 points, at least 2, with L = hypot(fi1 - fi0, fj1 - fj0)
/// in sample spacings, so points are at most one spacing apart. Distance is measured from the
/// start in in-plane coordinates (u, v). Throws simscope::Error when samples is 1 or above
/// 1,000,000.
Profile line_profile(const PlaneSamples& s, double fi0, double fj0, double fi1, double fj1,
                     int samples = 0);
/// Profile of a line in in-plane coordinates.
/// Throws simscope::Error naming the point and the plane's extent when an end lies outside.
Profile line_profile(const PlaneSamples& s, const ProfileLine& line);

/// The profile as CSV: a header line, then one line per point.
/// Values have 9 significant digits; NaN is written "nan".
std::string profile_csv(const Profile& p);
/// Writes profile_csv(p) to `path` via a temporary file renamed into place.
/// Throws simscope::Error naming the path.
void write_profile_csv(const std::string& path, const Profile& p);

}  // namespace simscope::app
