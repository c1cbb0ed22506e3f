#pragma once
// Skipping a CUDA test. Where no CUDA device is usable (no GPU, no driver, or a build without
// CUDA), a CUDA test skips with the reason, unless SIMSCOPE_REQUIRE_CUDA=1 (set by
// ./simscope.sh test on a machine with a GPU and by tests/gpu/run.sh): then the same place fails
// the test, so that a CUDA path never passes unproven on a GPU machine, however the binary runs.
//   SKIP_WITHOUT_CUDA();               skip (or fail) unless cuda_status().usable
//   CUDA_TEST_SKIP("why: " << detail); skip (or fail) here, with a streamed reason
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

#include "core/backend.hpp"

namespace simscope::test {
/// SIMSCOPE_REQUIRE_CUDA=1 in the environment.
inline bool cuda_required() {
  const char* v = std::getenv("SIMSCOPE_REQUIRE_CUDA");
  return v != nullptr && std::strcmp(v, "1") == 0;
}
}  // namespace simscope::test

#define CUDA_TEST_SKIP(why)                                                       \
  do {                                                                            \
    if (::simscope::test::cuda_required())                                        \
      GTEST_FAIL() << "SIMSCOPE_REQUIRE_CUDA=1, but this CUDA test cannot run: " << why; \
    else                                                                          \
      GTEST_SKIP() << why;                                                        \
  } while (0)

#define SKIP_WITHOUT_CUDA()                                                \
  do {                                                                     \
    if (!::simscope::cuda_status().usable)                                 \
      CUDA_TEST_SKIP("no CUDA: " << ::simscope::cuda_status().reason);     \
  } while (0)
