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

inline bool all_finite(const Result& r) {
  for (const auto& n : output_names())
    for (float v : output(r, n))
      if (!std::isfinite(v)) return false;
  return true;
}

/// Runs `code` with numpy (as np) under SIMSCOPE_PYTHON; returns its exit status.
inline int run_numpy(const std::string& code) {
  return simscope::test::run_python("import numpy as np\n" + code);
}

inline void write_text(const std::filesystem::path& p, const std::string& text) {
  std::ofstream f(p, std::ios::binary);
  f << text;
}

}  // namespace simscope::field::test
