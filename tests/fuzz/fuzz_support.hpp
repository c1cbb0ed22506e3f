#pragma once
/// @file Shared by the harnesses: the input bytes as a file (the readers take paths and compare
/// the claimed sizes with the file's), and the refusal property: a reader either succeeds or
/// throws simscope::Error with a one-line, non-empty message of bounded length; any other
/// exception, or a bad message, aborts so that libFuzzer records the input as a crash.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "core/error.hpp"

namespace simscope::fuzz {

/// A file of this process holding `size` bytes of `data` (rewritten on every call), named
/// simscope_fuzz_<pid><suffix> in $TMPDIR (default /tmp). `suffix` e.g. ".npy".
inline std::string write_input(const std::uint8_t* data, std::size_t size, const char* suffix) {
  const char* dir = std::getenv("TMPDIR");
  const std::string path = std::string(dir && *dir ? dir : "/tmp") + "/simscope_fuzz_" +
                           std::to_string(::getpid()) + suffix;
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f || (size && std::fwrite(data, 1, size, f) != size) || std::fclose(f) != 0) {
    std::perror(path.c_str());
    std::abort();
  }
  return path;
}

/// The longest message we accept: a path, a parameter's known names (unknown_parameter_message
/// lists them all) and a 40-character quote of the input fit; echoing a whole input line does not.
constexpr std::size_t kMaxMessage = 4096;

[[noreturn]] inline void fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "fuzz property violated: %s\n%.2000s\n", what, detail.c_str());
  std::abort();
}

/// Runs `read()`; a simscope::Error must carry a one-line message of at most kMaxMessage bytes.
template <typename F>
void expect_ok_or_error(F&& read) {
  try {
    read();
  } catch (const simscope::Error& e) {
    const std::string m = e.what();
    if (m.empty()) fail("simscope::Error with an empty message", "");
    if (m.size() > kMaxMessage) fail("message longer than kMaxMessage", m);
    if (m.find('\n') != std::string::npos || m.find('\r') != std::string::npos)
      fail("message of more than one line", m);
  } catch (const std::exception& e) {
    fail("an exception other than simscope::Error escaped", e.what());
  } catch (...) {
    fail("a non-std exception escaped", "");
  }
}

/// Aborts unless `cond`: a property of a successful read (e.g. its size) failed.
inline void check(bool cond, const char* what) {
  if (!cond) fail(what, "");
}

}  // namespace simscope::fuzz
