#pragma once
// SKIP_WITHOUT_CUDA(): skips a CUDA test (GTEST_SKIP) with the runtime's reason where no CUDA
// device is usable (no GPU, no driver, or a build without CUDA). tests/gpu/run.sh counts such a
// skip as a failure on the GPU machine.
#include <gtest/gtest.h>

#include "core/backend.hpp"

#define SKIP_WITHOUT_CUDA()                                            \
  do {                                                                 \
    if (!::simscope::cuda_status().usable)                             \
      GTEST_SKIP() << "no CUDA: " << ::simscope::cuda_status().reason; \
  } while (0)
