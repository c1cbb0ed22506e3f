// Offscreen framebuffers: readback order, sizes beyond the GL limits.
#include <glad/gl.h>
#include <gtest/gtest.h>

#include <string>

#include "render/error.hpp"
#include "render/offscreen.hpp"
#include "render_test_support.hpp"

namespace simscope::render {
namespace {

using test::RenderTest;

TEST_F(RenderTest, OffscreenReadsTopRowFirst) {
  Offscreen fb(7, 5);
  fb.bind();
  glClearColor(0, 0, 1, 1);
  glClear(GL_COLOR_BUFFER_BIT);
  glEnable(GL_SCISSOR_TEST);
  glScissor(0, 4, 7, 1);  // the top row (origin bottom-left) red
  glClearColor(1, 0, 0, 1);
  glClear(GL_COLOR_BUFFER_BIT);
  glDisable(GL_SCISSOR_TEST);
  const auto px = fb.read_rgba();
  ASSERT_EQ(px.size(), 7u * 5u * 4u);
  EXPECT_EQ(px[0], 255);  // first row read = top row = red
  EXPECT_EQ(px[2], 0);
  EXPECT_EQ(px[px.size() - 4], 0);  // last row = bottom = blue
  EXPECT_EQ(px[px.size() - 2], 255);
  EXPECT_EQ(px[3], 255);
}

TEST_F(RenderTest, OffscreenSizeErrors) {
  EXPECT_THROW(Offscreen(0, 10), RenderError);
  EXPECT_THROW(Offscreen(10, -1), RenderError);
  GLint max_rb = 0;
  glGetIntegerv(GL_MAX_RENDERBUFFER_SIZE, &max_rb);
  try {
    Offscreen too_big(max_rb + 1, 4);
    FAIL() << "no exception";
  } catch (const RenderError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("GL_MAX_RENDERBUFFER_SIZE"), std::string::npos) << msg;
    EXPECT_NE(msg.find(std::to_string(max_rb)), std::string::npos) << msg;
  }
}

TEST_F(RenderTest, OffscreenLargeExport) {
  Offscreen fb(4096, 3072);  // beyond any window: exports at any resolution
  fb.bind();
  glClearColor(0, 1, 0, 1);
  glClear(GL_COLOR_BUFFER_BIT);
  const auto px = fb.read_rgba();
  ASSERT_EQ(px.size(), 4096u * 3072u * 4u);
  EXPECT_EQ(px[1], 255);
  EXPECT_EQ(px[px.size() - 3], 255);
}

}  // namespace
}  // namespace simscope::render
