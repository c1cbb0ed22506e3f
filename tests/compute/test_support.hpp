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

}  // namespace simscope::test
