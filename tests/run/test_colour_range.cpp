// The automatic colour range (app/run/view/colour_range.hpp): percentiles by numpy's rule,
// checked against a float64 sort done here and against values numpy gives by hand, and the
// min/max, symmetric and log-scale variants.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "view/colour_range.hpp"

namespace simscope::app {
namespace {

/// numpy.percentile(values, p) (method "linear"), from a full float64 sort.
double sorted_percentile(std::vector<float> v, double p) {
  std::vector<double> d(v.begin(), v.end());
  std::sort(d.begin(), d.end());
  const double pos = (double(d.size()) - 1) * p / 100;
  const std::size_t k = std::size_t(pos);
  if (k + 1 >= d.size()) return d[k];
  return d[k] + (pos - double(k)) * (d[k + 1] - d[k]);
}

TEST(ColourRange, PercentileAsNumpy) {
  // numpy.percentile(numpy.arange(1, 101), [0.5, 99.5]) = [1.495, 99.505]
  std::vector<float> v;
  for (int i = 100; i >= 1; --i) v.push_back(float(i));
  auto a = v;
  EXPECT_NEAR(*percentile_of(a, 0.5), 1.495, 1e-12);
  a = v;
  EXPECT_NEAR(*percentile_of(a, 99.5), 99.505, 1e-12);
  a = v;
  EXPECT_EQ(*percentile_of(a, 0), 1.0);
  a = v;
  EXPECT_EQ(*percentile_of(a, 100), 100.0);
  std::vector<float> none;
  EXPECT_FALSE(percentile_of(none, 50).has_value());
  // Random values, ties included, against the sort.
  std::mt19937 gen(7);
  std::uniform_real_distribution<float> u(-3, 5);
  for (int n : {1, 2, 3, 17, 1000, 40001}) {
    std::vector<float> r(static_cast<std::size_t>(n));
    for (float& x : r) x = n == 17 ? std::round(u(gen)) : u(gen);
    for (double p : {0.0, 0.5, 12.5, 50.0, 99.5, 100.0}) {
      auto b = r;
      EXPECT_DOUBLE_EQ(*percentile_of(b, p), sorted_percentile(r, p)) << "n " << n << " p " << p;
    }
  }
}

TEST(ColourRange, OutlierDoesNotStretchThePercentileRange) {
  // 10,000 values in 3..30 and one at 666, as a source beside the plane makes: minmax reaches
  // it, percentile stays with the plane.
  std::vector<float> v;
  for (int i = 0; i < 10000; ++i) v.push_back(3.0f + 27.0f * float(i) / 9999);
  v.push_back(666.0f);
  v.push_back(std::numeric_limits<float>::quiet_NaN());
  v.push_back(std::numeric_limits<float>::infinity());
  const auto mm = colour_range(v, false, false);
  ASSERT_TRUE(mm.has_value());
  EXPECT_EQ(*mm, (std::pair<double, double>{3.0, 666.0}));
  std::vector<float> finite(v.begin(), v.end() - 2);
  const auto pr = colour_range(v, true, false);
  ASSERT_TRUE(pr.has_value());
  EXPECT_DOUBLE_EQ(pr->first, sorted_percentile(finite, 0.5));
  EXPECT_DOUBLE_EQ(pr->second, sorted_percentile(finite, 99.5));
  EXPECT_LT(pr->second, 30.0);
}

TEST(ColourRange, LogScaleCountsPositiveValuesOnly) {
  std::vector<float> v = {-5, 0, 2, 4, 8, 16};
  const auto mm = colour_range(v, false, true);
  ASSERT_TRUE(mm.has_value());
  EXPECT_EQ(*mm, (std::pair<double, double>{2.0, 16.0}));
  const auto pr = colour_range(v, true, true);
  ASSERT_TRUE(pr.has_value());
  EXPECT_DOUBLE_EQ(pr->first, sorted_percentile({2, 4, 8, 16}, 0.5));
  EXPECT_DOUBLE_EQ(pr->second, sorted_percentile({2, 4, 8, 16}, 99.5));
  EXPECT_FALSE(colour_range({-1, 0, NAN}, true, true).has_value());
  EXPECT_FALSE(colour_range({NAN, INFINITY}, true, false).has_value());
  EXPECT_FALSE(colour_range({}, false, false).has_value());
}

TEST(ColourRange, SymmetricAboutZero) {
  std::vector<float> v;
  for (int i = -1000; i <= 1000; ++i) v.push_back(float(i) / 1000);
  v.push_back(-50.0f);  // one outlier
  const auto mm = colour_range(v, false, false, true);
  ASSERT_TRUE(mm.has_value());
  EXPECT_EQ(*mm, (std::pair<double, double>{-50.0, 50.0}));
  std::vector<float> mags;
  for (float x : v) mags.push_back(std::fabs(x));
  const double m = sorted_percentile(mags, 99.5);
  const auto pr = colour_range(v, true, false, true);
  ASSERT_TRUE(pr.has_value());
  EXPECT_DOUBLE_EQ(pr->first, -m);
  EXPECT_DOUBLE_EQ(pr->second, m);
  EXPECT_EQ(*colour_range({0, 0, 0}, true, false, true), (std::pair<double, double>{-1.0, 1.0}));
}

TEST(ColourRange, ConstantValuesWidenAsThePlaneViewDoes) {
  EXPECT_EQ(*colour_range({4, 4, 4}, true, false), (std::pair<double, double>{3.5, 4.5}));
  const auto lg = colour_range({4, 4, -1}, false, true);
  ASSERT_TRUE(lg.has_value());
  EXPECT_DOUBLE_EQ(lg->first, 4 / std::sqrt(10.0));
  EXPECT_DOUBLE_EQ(lg->second, 4 * std::sqrt(10.0));
}

}  // namespace
}  // namespace simscope::app
