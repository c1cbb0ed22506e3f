#pragma once
// Shared helpers of the render tests: a fixture with a headless EGL context, pixel access and
// comparisons against colours computed on the CPU.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "render/error.hpp"
#include "render/gl_context.hpp"

namespace simscope::render::test {

/// Creates a headless context per test; skips the test (with EGL's reason) when there is none,
/// or fails it when SIMSCOPE_REQUIRE_EGL=1 (set by .ci/run: Mesa's llvmpipe is installed there,
/// so a context that cannot be made is a defect, not a missing GPU).
class RenderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    try {
      context_ = create_context("egl");
    } catch (const RenderError& e) {
      const char* req = std::getenv("SIMSCOPE_REQUIRE_EGL");
      if (req != nullptr && std::string(req) == "1")
        GTEST_FAIL() << "SIMSCOPE_REQUIRE_EGL=1, but no headless EGL context: " << e.what();
      GTEST_SKIP() << "no headless EGL context: " << e.what();
    }
  }
  void TearDown() override { context_.reset(); }
  std::unique_ptr<GlContext> context_;
};

/// An RGBA8 image read back with read_rgba() (top row first).
struct Image {
  int w = 0, h = 0;
  std::vector<uint8_t> rgba;
  /// Pixel at framebuffer position (x, y), origin bottom-left.
  std::array<int, 3> at(int x, int y) const {
    const size_t k = (static_cast<size_t>(h - 1 - y) * w + x) * 4;
    return {rgba[k], rgba[k + 1], rgba[k + 2]};
  }
};

inline std::array<int, 3> to_rgb8(const std::array<float, 3>& c) {
  return {static_cast<int>(std::lround(c[0] * 255)), static_cast<int>(std::lround(c[1] * 255)),
          static_cast<int>(std::lround(c[2] * 255))};
}

inline int max_diff(const std::array<int, 3>& a, const std::array<int, 3>& b) {
  int d = 0;
  for (int c = 0; c < 3; ++c) d = std::max(d, std::abs(a[c] - b[c]));
  return d;
}

/// Writes the image as PNG next to the test binary (stb_image_write); returns the path.
std::string save_png(const Image& image, const std::string& name);

}  // namespace simscope::render::test
