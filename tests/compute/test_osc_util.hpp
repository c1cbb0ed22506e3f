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
#include "oscillators/oscillators.hpp"

namespace simscope::oscillators::test {

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

/// The message of the simscope::Error that f throws ("" when it throws none).
inline std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

/// A scratch directory for this process, removed at exit.
inline std::filesystem::path tmp_dir() {
  struct Dir {
    std::filesystem::path path =
        std::filesystem::path(SIMSCOPE_TEST_TMP) / ("osc-" + std::to_string(::getpid()));
    Dir() { std::filesystem::create_directories(path); }
    ~Dir() {
      std::error_code ec;
      std::filesystem::remove_all(path, ec);
    }
  };
  static const Dir dir;
  return dir.path;
}

inline std::filesystem::path write_text(const std::string& name, const std::string& text) {
  const auto p = tmp_dir() / name;
  std::ofstream f(p, std::ios::binary);
  f << text;
  return p;
}

/// Runs Python `code` under SIMSCOPE_PYTHON; returns its exit status and stdout.
inline int run_python(const std::string& code, std::string* out = nullptr) {
  const auto script = tmp_dir() / "script.py";
  const auto output = tmp_dir() / "script.out";
  {
    std::ofstream f(script);
    f << code << "\n";
  }
  const std::string cmd =
      std::string(SIMSCOPE_PYTHON) + " " + script.string() + " > " + output.string();
  const int rc = std::system(cmd.c_str());
  if (out) {
    std::ifstream f(output);
    std::stringstream ss;
    ss << f.rdbuf();
    *out = ss.str();
  }
  return rc;
}

/// True when SIMSCOPE_PYTHON imports all of `modules` (e.g. "numpy, scipy.integrate").
inline bool python_has(const std::string& modules) { return run_python("import " + modules) == 0; }

}  // namespace simscope::oscillators::test
