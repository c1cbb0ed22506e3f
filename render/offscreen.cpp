#include "render/offscreen.hpp"

#include <glad/gl.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>

#include "render/detail/gl_check.hpp"
#include "render/error.hpp"

namespace simscope::render {

using detail::check_gl;

namespace {

/// glReadPixels of the framebuffer bound for reading, rows flipped to top first.
std::vector<uint8_t> read_bound(GLenum buffer, int w, int h) {
  const size_t row = static_cast<size_t>(w) * 4;
  std::vector<uint8_t> pixels(row * static_cast<size_t>(h));
  std::vector<uint8_t> flipped(pixels.size());
  glReadBuffer(buffer);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
  glReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, pixels.data());
  check_gl("glReadPixels");
  for (int y = 0; y < h; ++y) {
    std::memcpy(flipped.data() + static_cast<size_t>(y) * row,
                pixels.data() + static_cast<size_t>(h - 1 - y) * row, row);
  }
  return flipped;
}

}  // namespace

Offscreen::Offscreen(int width, int height) : width_(width), height_(height) {
  detail::require_gl("Offscreen");
  GLint max_rb = 0, max_vp[2] = {0, 0};
  glGetIntegerv(GL_MAX_RENDERBUFFER_SIZE, &max_rb);
  glGetIntegerv(GL_MAX_VIEWPORT_DIMS, max_vp);
  check_gl("querying GL_MAX_RENDERBUFFER_SIZE");
  const std::string size = std::to_string(width) + " x " + std::to_string(height);
  if (width < 1 || height < 1) throw RenderError("offscreen image of " + size + " pixels: empty");
  const int max_w = std::min(max_rb, max_vp[0]), max_h = std::min(max_rb, max_vp[1]);
  if (width > max_w || height > max_h) {
    throw RenderError("offscreen image of " + size + " pixels exceeds this GL's limit of " +
                      std::to_string(max_w) + " x " + std::to_string(max_h) +
                      " (GL_MAX_RENDERBUFFER_SIZE / GL_MAX_VIEWPORT_DIMS); choose a smaller size");
  }
  glCreateFramebuffers(1, &fbo_);
  glCreateRenderbuffers(1, &color_);
  glCreateRenderbuffers(1, &depth_);
  check_gl("creating the offscreen framebuffer");
  glNamedRenderbufferStorage(color_, GL_RGBA8, width, height);
  glNamedRenderbufferStorage(depth_, GL_DEPTH_COMPONENT24, width, height);
  try {
    check_gl(("allocating the " + size + " offscreen image").c_str());
    glNamedFramebufferRenderbuffer(fbo_, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, color_);
    glNamedFramebufferRenderbuffer(fbo_, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, depth_);
    const GLenum status = glCheckNamedFramebufferStatus(fbo_, GL_FRAMEBUFFER);
    check_gl("attaching the offscreen renderbuffers");
    if (status != GL_FRAMEBUFFER_COMPLETE) {
      char code[16];
      std::snprintf(code, sizeof code, "0x%x", status);
      throw RenderError("offscreen framebuffer of " + size + " is incomplete (status " + code +
                        ")");
    }
  } catch (...) {
    release();
    throw;
  }
}

Offscreen::~Offscreen() { release(); }

void Offscreen::release() noexcept {
  if (fbo_ != 0) glDeleteFramebuffers(1, &fbo_);
  if (color_ != 0) glDeleteRenderbuffers(1, &color_);
  if (depth_ != 0) glDeleteRenderbuffers(1, &depth_);
  fbo_ = color_ = depth_ = 0;
}

void Offscreen::bind() const {
  glBindFramebuffer(GL_FRAMEBUFFER, fbo_);
  glViewport(0, 0, width_, height_);
  check_gl("binding the offscreen framebuffer");
}

std::vector<uint8_t> Offscreen::read_rgba() const {
  glBindFramebuffer(GL_READ_FRAMEBUFFER, fbo_);
  check_gl("binding the offscreen framebuffer for reading");
  return read_bound(GL_COLOR_ATTACHMENT0, width_, height_);
}

std::vector<uint8_t> read_default_framebuffer_rgba(int w, int h) {
  detail::require_gl("read_default_framebuffer_rgba");
  if (w < 1 || h < 1) {
    throw RenderError("screenshot of " + std::to_string(w) + " x " + std::to_string(h) +
                      " pixels: empty");
  }
  glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
  check_gl("binding the default framebuffer for reading");
  return read_bound(GL_BACK, w, h);
}

}  // namespace simscope::render
