// The comparison (app/run/view/compare.hpp) and the line profile (app/run/view/plane_profile.hpp), checked against
// values computed here independently (float64 by hand).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "view/compare.hpp"
#include "core/error.hpp"
#include "view/plane_profile.hpp"

using namespace simscope::app;

namespace {

ViewImage image(int rows, int cols, std::vector<float> data) {
  ViewImage v;
  v.rows = rows, v.cols = cols, v.data = std::move(data), v.label = "q", v.unit = "u";
  return v;
}

/// A 3 x 4 plane with one column v(i, j) = 2 i + 3 j + 1 (bilinear reproduces it exactly) and
/// u from -1 to 1, v from 0 to 6.
PlaneSamples plane() {
  PlaneSamples s;
  s.rows = 3, s.cols = 4;
  PlaneColumn c{"lin", "L", "m", {}};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) c.data.push_back(float(2 * i + 3 * j + 1));
  s.columns.push_back(c);
  s.u_name = "x", s.v_name = "y";
  s.u_first = -1, s.u_last = 1, s.v_first = 0, s.v_last = 6;
  s.coord_names = {"x", "y"};
  s.coord_base = {-1, 0}, s.coord_di = {1, 0}, s.coord_dj = {0, 2};
  return s;
}

}  // namespace

TEST(Compare, DiffStatsOverFinitePairs) {
  const std::vector<float> a = {1, 2, 4, NAN, 0};
  const std::vector<float> b = {2, 2, 1, 5, 3};
  const DiffStats d = diff_stats(a, b, false);
  EXPECT_EQ(d.compared, 4u);
  EXPECT_EQ(d.skipped, 1u);
  EXPECT_DOUBLE_EQ(d.max_abs, 3.0);
  EXPECT_NEAR(d.rms, std::sqrt((1.0 + 0 + 9 + 9) / 4), 1e-12);
  const DiffStats r = diff_stats(a, b, true);  // a == 0 left out too
  EXPECT_EQ(r.compared, 3u);
  EXPECT_DOUBLE_EQ(r.max_abs, 1.0);  // (2 - 1) / 1 and |1 - 4| / 4
  EXPECT_NEAR(r.rms, std::sqrt((1.0 + 0 + 0.75 * 0.75) / 3), 1e-12);
}

TEST(Compare, ImagesOfEachMode) {
  const ViewImage a = image(1, 3, {1, -2, 0});
  const ViewImage b = image(1, 3, {3, -1, 5});
  EXPECT_EQ(compare_image(a, b, CompareMode::Current).data.host(), b.data.host());
  EXPECT_EQ(compare_image(a, b, CompareMode::Pinned).data.host(), a.data.host());
  const ViewImage d = compare_image(a, b, CompareMode::Difference);
  EXPECT_EQ(d.data.host(), (std::vector<float>{2, 1, 5}));
  EXPECT_EQ(d.colormap, "coolwarm");
  EXPECT_EQ(d.scale, "linear");
  EXPECT_EQ(d.range_lo, -5);
  EXPECT_EQ(d.range_hi, 5);
  EXPECT_EQ(d.label, "B - A: q");
  const ViewImage r = compare_image(a, b, CompareMode::Relative);
  EXPECT_FLOAT_EQ(r.data.host()[0], 2.f);
  EXPECT_FLOAT_EQ(r.data.host()[1], 0.5f);
  EXPECT_TRUE(std::isnan(r.data.host()[2]));
  EXPECT_TRUE(r.unit.empty());
  try {
    compare_image(image(2, 2, {0, 0, 0, 0}), b, CompareMode::Difference);
    ADD_FAILURE();
  } catch (const simscope::Error& e) {
    EXPECT_NE(std::string(e.what()).find("2 x 2 samples, the current B 1 x 3"), std::string::npos);
  }
}

TEST(Compare, OutputDifferencesKeepPrecision) {
  RunResult a, b;
  OutputArray f{"f", "F", "", simscope::io::DType::Float32, {2}, {1.5f, 2}};
  OutputArray g{"g", "G", "", simscope::io::DType::Float64, {2}, std::vector<double>{1.0, 1e-12}};
  OutputArray n{"n", "N", "", simscope::io::DType::Int32, {2}, std::vector<std::int32_t>{5, 1}};
  a.outputs = {f, g, n};
  f.data = {1, 4}, g.data = std::vector<double>{1.0, 3e-12};
  n.data = std::vector<std::int32_t>{2, 3};
  b.outputs = {f, g, n, OutputArray{"only_b", "", "", simscope::io::DType::Float32, {1}, {1}}};
  const auto d = output_differences(a, b);
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(d[0].data.host(), (std::vector<float>{-0.5f, 2}));
  EXPECT_EQ(d[1].dtype, simscope::io::DType::Float64);
  EXPECT_DOUBLE_EQ(d[1].data.values<double>()[1], 3e-12 - 1e-12);
  EXPECT_EQ(d[2].dtype, simscope::io::DType::Float32);  // an int difference may be negative
  EXPECT_EQ(d[2].data.host(), (std::vector<float>{-3, 2}));
}

TEST(Profile, BilinearReproducesALinearField) {
  const PlaneSamples s = plane();
  for (double fi : {0.0, 0.25, 1.5, 2.0})
    for (double fj : {0.0, 0.7, 2.5, 3.0})
      EXPECT_NEAR(s.interpolate(0, fi, fj), 2 * fi + 3 * fj + 1, 1e-12) << fi << " " << fj;
}

TEST(Profile, IntegerColumnTakesTheNearestSample) {
  PlaneSamples s = plane();
  s.columns[0].integer = true;  // e.g. lsq's count: never blended between samples
  for (double fi : {0.0, 0.25, 0.5, 1.6, 2.0})
    for (double fj : {0.0, 0.7, 1.49, 2.5, 3.0}) {
      const double ni = std::floor(fi + 0.5), nj = std::floor(fj + 0.5);  // halves round up
      EXPECT_EQ(s.interpolate(0, fi, fj), 2 * ni + 3 * nj + 1) << fi << " " << fj;
    }
}

TEST(Profile, OnePointPerGridSpacing) {
  const PlaneSamples s = plane();
  const Profile p = line_profile(s, 0, 0, 2, 3);  // length sqrt(13) = 3.6 sample spacings
  ASSERT_EQ(p.rows.size(), 5u);                   // ceil(3.6) + 1
  EXPECT_EQ(p.header, (std::vector<std::string>{"distance", "x", "y", "lin"}));
  for (std::size_t k = 0; k < p.rows.size(); ++k) {
    const double t = double(k) / 4, fi = 2 * t, fj = 3 * t;
    EXPECT_NEAR(p.rows[k][1], -1 + fi, 1e-12);
    EXPECT_NEAR(p.rows[k][2], 2 * fj, 1e-12);
    EXPECT_NEAR(p.rows[k][0], std::hypot(fi, 2 * fj), 1e-12);  // in x, y units
    EXPECT_NEAR(p.rows[k][3], 2 * fi + 3 * fj + 1, 1e-12);
  }
}

TEST(Profile, LineInPlaneCoordinatesAndBadLines) {
  const PlaneSamples s = plane();
  const Profile p = line_profile(s, parse_profile_line("-1,0:1,6:3"));
  ASSERT_EQ(p.rows.size(), 3u);
  EXPECT_NEAR(p.rows[1][3], 2 * 1 + 3 * 1.5 + 1, 1e-12);
  try {
    line_profile(s, parse_profile_line("0,0:2,0"));
    ADD_FAILURE();
  } catch (const simscope::Error& e) {
    EXPECT_NE(
        std::string(e.what()).find("(2, 0) lies outside the plane: x in [-1, 1], y in [0, 6]"),
        std::string::npos)
        << e.what();
  }
  for (const char* bad : {"", "1,2", "1,2:3", "1,2:3,4:1", "1,2:3,4:x", "a,2:3,4", "1,2:3,4:5:6"})
    EXPECT_THROW(parse_profile_line(bad), simscope::Error) << bad;
  EXPECT_THROW(line_profile(s, 0, 0, 1, 1, 1), simscope::Error);
}

TEST(Profile, ProbeAndCsv) {
  const PlaneSamples s = plane();
  const std::string t = probe_text(s, 2, 1);
  EXPECT_NE(t.find("x=1 y=2  [i=2 j=1]"), std::string::npos) << t;
  EXPECT_NE(t.find("lin = 8 m"), std::string::npos) << t;
  const std::string csv = profile_csv(line_profile(s, 0, 0, 0, 1, 2));
  EXPECT_EQ(csv, "distance,x,y,lin\n0,-1,0,1\n2,-1,2,4\n");
}

// The fresh-user finding: the line profile in the B - A mode plotted B. The samples of what the
// view shows (probe and profile read them) are B - A, A or (B - A) / |A| column by column, and a
// profile across them is the profile of the difference.
TEST(Compare, SamplesOfEachMode) {
  const PlaneSamples a = plane();
  PlaneSamples b = plane();
  b.columns[0].data[0] = 0;  // b - a = -1 there; a = 1 (i = j = 0): relative -1
  for (std::size_t k = 1; k < b.columns[0].data.size(); ++k) b.columns[0].data[k] *= 3;
  b.columns.push_back(PlaneColumn{"only_b", "O", "s", std::vector<float>(12, 5.f)});
  PlaneSamples a0 = a;
  a0.columns[0].data[5] = 0;  // relative: NaN where a == 0

  EXPECT_EQ(compare_samples(a, b, CompareMode::Current).columns.size(), 2u);
  EXPECT_EQ(compare_samples(a, b, CompareMode::Pinned).columns[0].data, a.columns[0].data);
  const PlaneSamples d = compare_samples(a, b, CompareMode::Difference);
  ASSERT_EQ(d.columns.size(), 1u);  // only_b: A has no such column
  EXPECT_EQ(d.columns[0].label, "B - A: L");
  EXPECT_EQ(d.columns[0].unit, "m");
  EXPECT_EQ(d.rows, 3);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) {
      const double av = 2 * i + 3 * j + 1, bv = (i == 0 && j == 0) ? 0 : 3 * av;
      EXPECT_DOUBLE_EQ(d.columns[0].data[std::size_t(i * 4 + j)], bv - av) << i << " " << j;
    }
  const PlaneSamples r = compare_samples(a0, b, CompareMode::Relative);
  EXPECT_EQ(r.columns[0].label, "(B - A) / |A|: L");
  EXPECT_EQ(r.columns[0].unit, "");
  EXPECT_DOUBLE_EQ(r.columns[0].data[0], -1.0);
  EXPECT_TRUE(std::isnan(r.columns[0].data[5]));
  EXPECT_DOUBLE_EQ(r.columns[0].data[6], 2.0);  // (3 a - a) / a

  // A profile across the difference: B - A along the line, not B. At i = 1 (x = 0), v from 0
  // to 6 (j = 0 .. 3): b - a = 2 (2 i + 3 j + 1) = 6 + 6 j, bilinear, exact.
  const Profile p = line_profile(d, ProfileLine{0, 0, 0, 6, 4});
  ASSERT_EQ(p.rows.size(), 4u);
  for (int k = 0; k < 4; ++k)
    EXPECT_NEAR(p.rows[std::size_t(k)][std::size_t(p.first_value_column)], 6.0 + 6.0 * k, 1e-12)
        << k;

  PlaneSamples small = plane();
  small.rows = 2;
  small.columns[0].data.resize(8);
  EXPECT_THROW(compare_samples(small, b, CompareMode::Difference), simscope::Error);
}
