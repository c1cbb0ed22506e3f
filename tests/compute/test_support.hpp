#pragma once
// Helpers shared by the compute tests: a scratch directory per test process, the message of a
// simscope::Error, and Python (Debian's /usr/bin/python3 with numpy/scipy) for references.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "core/error.hpp"

namespace simscope::test {

/// A scratch directory of this process (ctest runs tests in parallel processes), removed at exit.
inline std::filesystem::path scratch_dir() {
  struct Dir {
    std::filesystem::path path =
        std::filesystem::path(SIMSCOPE_TEST_TMP) / ("p" + std::to_string(::getpid()));
    Dir() { std::filesystem::create_directories(path); }
    ~Dir() {
      std::error_code ec;
      std::filesystem::remove_all(path, ec);
    }
  };
  static const Dir dir;
  return dir.path;
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

/// Runs Python `code` under SIMSCOPE_PYTHON; returns its exit status and, with `out`, stdout.
inline int run_python(const std::string& code, std::string* out = nullptr) {
  const auto script = scratch_dir() / "script.py";
  const auto output = scratch_dir() / "script.out";
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

/// SIMSCOPE_TEST_SLOWDOWN (at least 1; ./simscope.sh sanitize sets 4): the factor by which
/// wall-clock bounds stretch for instrumented or loaded runs.
inline double slowdown() {
  const char* v = std::getenv("SIMSCOPE_TEST_SLOWDOWN");
  const double f = v ? std::atof(v) : 1.0;
  return f > 1.0 ? f : 1.0;
}

/// run_numpy_reference's status when SIMSCOPE_PYTHON cannot import numpy.
constexpr int kNoNumpy = 77;

/// Runs `code` under SIMSCOPE_PYTHON as a numpy reference script: kNoNumpy, with no failure,
/// when numpy cannot be imported there (the one reason a reference suite may skip); otherwise the
/// script's exit status, with a test failure (ADD_FAILURE, also from SetUpTestSuite) when it is
/// not 0, so that a broken script or a numpy API change never turns a suite into skips.
inline int run_numpy_reference(const std::string& code) {
  static const bool have_numpy = run_python("import numpy") == 0;
  if (!have_numpy) return kNoNumpy;
  const int rc = run_python(code);
  if (rc != 0)
    ADD_FAILURE() << "the numpy reference script failed with status " << rc << " under "
                  << SIMSCOPE_PYTHON << ", which imports numpy (its output: "
                  << (scratch_dir() / "script.out").string() << ")";
  return rc;
}

}  // namespace simscope::test
