// The field of added source shares (share_sums.hpp): a share's direct fp64 sums at chosen
// targets against a float64 brute force written here from field.hpp's formulas, shares' sums
// adding up to the whole set's, an evaluation's sums (kept fp64 or widened fp32 outputs), and the
// error measured on added sums against hand-computed values.
#include <cmath>
#include <vector>

#include "field/share_sums.hpp"
#include "test_field_util.hpp"

namespace simscope::field {
namespace {

using test::random_sources;

/// E and phi of `s` at (x, y, z) in float64: k sum q (y_j - x) / (r^2 + eps^2)^(3/2) and
/// k sum q / sqrt(r^2 + eps^2), field.hpp's definition.
std::vector<double> brute(const Sources& s, double x, double y, double z, double k, double eps) {
  std::vector<double> v(4, 0.0);
  for (std::size_t j = 0; j < s.size(); ++j) {
    const double dx = double(s.x[j]) - x, dy = double(s.y[j]) - y, dz = double(s.z[j]) - z;
    const double r2 = dx * dx + dy * dy + dz * dz + eps * eps;
    const double q = double(s.q[j]);
    v[0] += k * q * dx / (r2 * std::sqrt(r2));
    v[1] += k * q * dy / (r2 * std::sqrt(r2));
    v[2] += k * q * dz / (r2 * std::sqrt(r2));
    v[3] += k * q / std::sqrt(r2);
  }
  return v;
}

Targets line_targets(std::size_t n) {
  Targets t;
  for (std::size_t i = 0; i < n; ++i)
    t.x.push_back(-2.0 + 0.37 * double(i)), t.y.push_back(0.5),
        t.z.push_back(1.5 - 0.1 * double(i));
  return t;
}

Sources slice(const Sources& s, std::size_t b, std::size_t e) {
  Sources o;
  for (std::size_t j = b; j < e; ++j)
    o.x.push_back(s.x[j]), o.y.push_back(s.y[j]), o.z.push_back(s.z[j]), o.q.push_back(s.q[j]);
  return o;
}

TEST(FieldShareSums, DirectSumsAtChosenTargetsMatchFloat64BruteForce) {
  const Sources s = random_sources(700, 1.0, 3);
  const Targets t = line_targets(12);
  const std::vector<std::size_t> at = {0, 5, 11, 5};
  Options o;
  o.k = 2.5, o.eps = 0.01;
  o.precision = Precision::Fp32;  // taken as fp64
  const std::vector<double> got = direct_sums_at(s, t, at, o);
  ASSERT_EQ(got.size(), 4 * at.size());
  for (std::size_t n = 0; n < at.size(); ++n) {
    const std::vector<double> want = brute(s, t.x[at[n]], t.y[at[n]], t.z[at[n]], o.k, o.eps);
    const double scale = std::hypot(want[0], want[1], want[2]);
    for (int c = 0; c < 3; ++c) EXPECT_NEAR(got[4 * n + c], want[c], 1e-12 * scale) << n << c;
    EXPECT_NEAR(got[4 * n + 3], want[3], 1e-12 * std::fabs(want[3])) << n;
  }
}

TEST(FieldShareSums, EmptyShareOrNoTargetsGivesZeros) {
  const Targets t = line_targets(4);
  EXPECT_EQ(direct_sums_at(Sources{}, t, {1, 2}, Options{}), std::vector<double>(8, 0.0));
  EXPECT_TRUE(direct_sums_at(random_sources(10, 1.0, 1), t, {}, Options{}).empty());
}

TEST(FieldShareSums, SharesAddUpToTheWholeSetAndTheirErrorIsZero) {
  const Sources s = random_sources(900, 1.0, 8);
  const Targets t = line_targets(10);
  std::vector<std::size_t> all(t.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  Options o;
  o.eps = 0.02;
  const std::vector<double> whole = direct_sums_at(s, t, all, o);
  std::vector<double> added(whole.size(), 0.0);
  for (auto [b, e] : {std::pair<std::size_t, std::size_t>{0, 250}, {250, 251}, {251, 900}}) {
    const std::vector<double> part = direct_sums_at(slice(s, b, e), t, all, o);
    for (std::size_t i = 0; i < added.size(); ++i) added[i] += part[i];
  }
  for (std::size_t i = 0; i < whole.size(); ++i)
    EXPECT_NEAR(added[i], whole[i], 1e-12 * std::fabs(whole[i]) + 1e-300) << i;
  // The direct sums at a subgrid of the added field: no error.
  Result r;
  const std::vector<std::size_t> sub = {1, 4, 9};
  measure_added_error(added, direct_sums_at(s, t, sub, o), sub, r);
  EXPECT_EQ(r.tree.error_samples, 3u);
  EXPECT_LT(r.tree.rms_rel_error, 1e-12);
  EXPECT_LT(r.tree.max_rel_error, 1e-12);
}

TEST(FieldShareSums, MeasuredErrorOfAddedSumsAgainstHandValues) {
  // Two targets: E = (3, 0, 4) and (0, 1, 0); direct sums at target 0 only: (3, 0, 3.5).
  const std::vector<double> sums = {3, 0, 4, 7, 0, 1, 0, -1};
  const std::vector<double> direct = {3, 0, 3.5, 7};
  Result r;
  measure_added_error(sums, direct, {0}, r);
  ASSERT_EQ(r.target_errors.size(), 1u);
  const double rel = 0.5 / std::hypot(3.0, 3.5);
  EXPECT_NEAR(r.target_errors[0], rel, 1e-7);
  EXPECT_DOUBLE_EQ(r.tree.max_rel_error, rel);
  // sqrt(mean over the sample |dE|^2 / mean over all targets |E|^2) = sqrt(0.25 / (26 / 2)).
  EXPECT_DOUBLE_EQ(r.tree.rms_rel_error, std::sqrt(0.25 / 13.0));
  EXPECT_THROW(measure_added_error(sums, {1, 2, 3}, {0}, r), Error);
}

TEST(FieldShareSums, SumsOfAnEvaluationAreItsFp64SumsElseItsWidenedOutputs) {
  Result kept;
  kept.magnitude = {1.f, 2.f};
  kept.ex = kept.ey = kept.ez = kept.potential = {0.f, 0.f};
  kept.sums64 = {0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8};
  EXPECT_EQ(sums_of(kept), (std::vector<double>{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8}));
  Result fp32;
  fp32.magnitude = {1.f, 2.f};
  fp32.ex = {0.1f, -1.f}, fp32.ey = {0.2f, 2.f}, fp32.ez = {0.3f, 3.f};
  fp32.potential = {0.4f, 4.f};
  EXPECT_EQ(sums_of(fp32), (std::vector<double>{double(0.1f), double(0.2f), double(0.3f),
                                               double(0.4f), -1, 2, 3, 4}));
}

}  // namespace
}  // namespace simscope::field
