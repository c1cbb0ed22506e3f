#pragma once
/// @file Helpers of the oscillators tests (test_osc_*.cpp): a float64 reference integrator built
/// on oscillators::rates(), hand-made topologies, scratch files, Python (numpy/scipy).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "oscillators/model.hpp"
#include "oscillators/topology.hpp"
#include "test_support.hpp"

namespace simscope::oscillators::test {

using simscope::test::error_of;
using simscope::test::run_python;
inline std::filesystem::path tmp_dir() { return simscope::test::scratch_dir(); }

/// Classic RK4 of member k (the textbook form, y + h/6 (k1 + 2 k2 + 2 k3 + k4)) through rates().
inline void rk4_reference(const Topologies& t, int k, const Model& m, double dt, long steps,
                          std::vector<double>& x, std::vector<double>& y) {
  const std::size_t n = x.size();
  std::vector<double> k1x(n), k1y(n), k2x(n), k2y(n), k3x(n), k3y(n), k4x(n), k4y(n), tx(n), ty(n);
  for (long s = 0; s < steps; ++s) {
    rates(t, k, m, x.data(), y.data(), k1x.data(), k1y.data());
    for (std::size_t i = 0; i < n; ++i)
      tx[i] = x[i] + dt / 2 * k1x[i], ty[i] = y[i] + dt / 2 * k1y[i];
    rates(t, k, m, tx.data(), ty.data(), k2x.data(), k2y.data());
    for (std::size_t i = 0; i < n; ++i)
      tx[i] = x[i] + dt / 2 * k2x[i], ty[i] = y[i] + dt / 2 * k2y[i];
    rates(t, k, m, tx.data(), ty.data(), k3x.data(), k3y.data());
    for (std::size_t i = 0; i < n; ++i) tx[i] = x[i] + dt * k3x[i], ty[i] = y[i] + dt * k3y[i];
    rates(t, k, m, tx.data(), ty.data(), k4x.data(), k4y.data());
    for (std::size_t i = 0; i < n; ++i) {
      x[i] += dt / 6 * (k1x[i] + 2 * k2x[i] + 2 * k3x[i] + k4x[i]);
      y[i] += dt / 6 * (k1y[i] + 2 * k2y[i] + 2 * k3y[i] + k4y[i]);
    }
  }
}

/// Member k's x (or y) out of a State.
inline std::vector<double> member(const std::vector<double>& v, int nodes, int k) {
  return std::vector<double>(v.begin() + std::ptrdiff_t(k) * nodes,
                             v.begin() + std::ptrdiff_t(k + 1) * nodes);
}

/// N uncoupled oscillators: a shared graph without edges.
inline Topologies no_edges(int nodes, int members) {
  Topologies t;
  t.nodes = nodes;
  t.members = members;
  t.shared = true;
  t.row_ptr.assign(std::size_t(nodes) + 1, 0);
  return t;
}

inline std::filesystem::path write_text(const std::string& name, const std::string& text) {
  const auto p = tmp_dir() / name;
  std::ofstream f(p, std::ios::binary);
  f << text;
  return p;
}

/// True when SIMSCOPE_PYTHON imports all of `modules` (e.g. "numpy, scipy.integrate").
inline bool python_has(const std::string& modules) { return run_python("import " + modules) == 0; }

}  // namespace simscope::oscillators::test
