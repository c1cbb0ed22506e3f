#pragma once
/// @file Offscreen framebuffers and readback, for headless rendering and exports at any size.
#include <cstdint>
#include <vector>

namespace simscope::render {

/// A framebuffer object of width x height pixels: RGBA8 colour and a 24-bit depth renderbuffer.
/// Create, use and destroy it while its GL context is current.
class Offscreen {
 public:
  /// Throws RenderError when width or height is < 1 or above this GL's limits
  /// (GL_MAX_RENDERBUFFER_SIZE, GL_MAX_VIEWPORT_DIMS; the message gives the limit), when allocation
  /// fails (GL_OUT_OF_MEMORY), or when the framebuffer is incomplete.
  Offscreen(int width, int height);
  ~Offscreen();
  Offscreen(const Offscreen&) = delete;
  Offscreen& operator=(const Offscreen&) = delete;

  /// Binds the framebuffer for drawing and reading and sets the viewport to all of it.
  void bind() const;
  /// The colour buffer as width*height*4 RGBA bytes, top row first.
  /// Leaves this framebuffer bound for reading.
  std::vector<uint8_t> read_rgba() const;

  int width() const { return width_; }
  int height() const { return height_; }
  unsigned framebuffer() const { return fbo_; }

 private:
  void release() noexcept;
  int width_ = 0, height_ = 0;
  unsigned fbo_ = 0, color_ = 0, depth_ = 0;
};

/// Reads the window's back buffer, before swap_buffers, as w*h*4 RGBA bytes, top row first.
/// For screenshots. Throws RenderError for sizes < 1 or on GL errors.
std::vector<uint8_t> read_default_framebuffer_rgba(int w, int h);

}  // namespace simscope::render
