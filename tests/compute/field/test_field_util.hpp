#pragma once
/// @file Helpers of the field tests (test_field_*.cpp): random inputs, error measures, numpy.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <string>

#include "core/error.hpp"
#include "field/field.hpp"
#include "test_support.hpp"

namespace simscope::field::test {

using simscope::test::error_of;
inline std::filesystem::path tmp_dir() { return simscope::test::scratch_dir(); }

/// P sources uniform in [-hw, hw]^3 with q in [qmin, qmax] (std::mt19937, not the generators).
inline Sources random_sources(std::size_t P, double hw, unsigned seed, double qmin = -1,
                              double qmax = 1) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<double> u(-hw, hw), uq(qmin, qmax);
  Sources s;
  for (std::size_t j = 0; j < P; ++j) {
    s.x.push_back(float(u(g))), s.y.push_back(float(u(g))), s.z.push_back(float(u(g)));
    s.q.push_back(float(uq(g)));
  }
  return s;
}

/// The targets rounded to fp32: what the fp32 evaluators compute at (field.hpp, Precision), so
/// that a float64 reference of fp32 results sees the same points.
inline Targets rounded(Targets t) {
  for (auto* v : {&t.x, &t.y, &t.z})
    for (double& c : *v) c = double(float(c));
  return t;
}

/// max |a - b| / max |b| over all entries (the error measure for a plane).
inline double plane_error(const std::vector<float>& a, const std::vector<float>& b) {
  EXPECT_EQ(a.size(), b.size());
  double d = 0, m = 0;
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    const double diff = std::fabs(double(a[i]) - double(b[i]));
    d = std::max(d, std::isfinite(diff) ? diff : INFINITY);
    m = std::max(m, std::fabs(double(b[i])));
  }
  return m > 0 ? d / m : d;
}

/// The largest plane_error over the five outputs.
inline double result_error(const Result& a, const Result& ref) {
  double e = 0;
  for (const auto& n : output_names()) e = std::max(e, plane_error(output(a, n), output(ref, n)));
  return e;
}

/// RMS relative error of E over all targets, sqrt(sum |E - E_ref|^2 / sum |E_ref|^2) (the
/// tolerance's measure), from the float outputs.
inline double field_rms(const Result& a, const Result& ref) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    const double d[3] = {double(a.ex[i]) - ref.ex[i], double(a.ey[i]) - ref.ey[i],
                         double(a.ez[i]) - ref.ez[i]};
    num += d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    den += double(ref.ex[i]) * ref.ex[i] + double(ref.ey[i]) * ref.ey[i] +
           double(ref.ez[i]) * ref.ez[i];
  }
  return std::sqrt(num / den);
}
/// The same for the potential.
inline double potential_rms(const Result& a, const Result& ref) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    const double d = double(a.potential[i]) - ref.potential[i];
    num += d * d, den += double(ref.potential[i]) * ref.potential[i];
  }
  return std::sqrt(num / den);
}

/// RMS over targets of the relative error of the field vector, |E - E_ref| / |E_ref|, and of the
/// potential, |phi - phi_ref| / |phi_ref|: the larger of the two.
inline double rms_relative(const Result& a, const Result& ref) {
  EXPECT_EQ(a.ex.size(), ref.ex.size());
  const std::size_t n = std::min(a.ex.size(), ref.ex.size());
  double se = 0, sp = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double dx = double(a.ex[i]) - ref.ex[i], dy = double(a.ey[i]) - ref.ey[i],
                 dz = double(a.ez[i]) - ref.ez[i];
    const double e2 = double(ref.ex[i]) * ref.ex[i] + double(ref.ey[i]) * ref.ey[i] +
                      double(ref.ez[i]) * ref.ez[i];
    se += (dx * dx + dy * dy + dz * dz) / e2;
    const double dp = (double(a.potential[i]) - ref.potential[i]) / ref.potential[i];
    sp += dp * dp;
  }
  const double r = n ? std::sqrt(std::max(se, sp) / double(n)) : 0;
  return std::isfinite(r) ? r : INFINITY;
}

/// issue #10's case: one source (q = 1) at (1e6, 0, 0), targets on the plane x = 1e6 + 0.01
/// (plane=yz, plane.offset=1000000.01, grid.half_width=0.001, grid.size 9: the centre is index
/// 40). With k = 1 the centre's |E| is 1 / (0.01)^2 = 1e4.
struct FarCase {
  Sources sources;
  Targets targets;
};
inline FarCase far_single_source() {
  FarCase c;
  c.sources.x = {1e6f}, c.sources.y = {0}, c.sources.z = {0}, c.sources.q = {1};
  Grid g;
  g.kind = PlaneKind::YZ, g.offset = 1000000.01, g.size = 9, g.half_width = 0.001;
  c.targets = make_targets(g);
  return c;
}

/// 1000 sources (q in [0.5, 1.5]) in a cluster of radius 1 around (1e6, -2e6, 5e5), and a 20 x 20
/// grid of targets 3.3 above its centre (z = 5e5 + 3.3, x and y within 1.95 of the centre,
/// spacing 0.2: none of them exact in fp32, whose spacing there is 0.03 to 0.125). With
/// `coincide`, source 500 and target 210 are moved to the same point (target 210 rounded to fp32:
/// a real coincidence, in fp64 too).
inline FarCase far_cluster(bool coincide = false) {
  FarCase c;
  std::mt19937 g(21);
  std::uniform_real_distribution<double> u(-1, 1), uq(0.5, 1.5);
  for (int j = 0; j < 1000; ++j) {
    c.sources.x.push_back(float(1e6 + u(g))), c.sources.y.push_back(float(-2e6 + u(g)));
    c.sources.z.push_back(float(5e5 + u(g))), c.sources.q.push_back(float(uq(g)));
  }
  for (int i = 0; i < 20; ++i)
    for (int j = 0; j < 20; ++j) {
      c.targets.x.push_back(1e6 - 1.95 + 0.2 * i);
      c.targets.y.push_back(-2e6 - 1.95 + 0.2 * j);
      c.targets.z.push_back(5e5 + 3.3);
    }
  if (coincide) {
    Sources& s = c.sources;
    Targets& t = c.targets;
    s.x[500] = float(t.x[210]), s.y[500] = float(t.y[210]), s.z[500] = float(t.z[210]);
    t.x[210] = s.x[500], t.y[210] = s.y[500], t.z[210] = s.z[500];
  }
  return c;
}

inline bool all_finite(const Result& r) {
  for (const auto& n : output_names())
    for (float v : output(r, n))
      if (!std::isfinite(v)) return false;
  return true;
}

/// Runs `code` with numpy (as np) under SIMSCOPE_PYTHON (test::run_numpy_reference: a failure
/// when it fails, kNoNumpy without numpy); returns its exit status.
inline int run_numpy(const std::string& code) {
  return simscope::test::run_numpy_reference("import numpy as np\n" + code);
}

inline void write_text(const std::filesystem::path& p, const std::string& text) {
  std::ofstream f(p, std::ios::binary);
  f << text;
}

}  // namespace simscope::field::test
