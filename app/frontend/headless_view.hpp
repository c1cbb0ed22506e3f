#pragma once
/// @file The plane view drawn offscreen without a window (EGL) at UI scale 1: headless view.png
/// and the frames of a headless --sweep.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "render/gl_context.hpp"
#include "render/offscreen.hpp"
#include "render/plane_view.hpp"
#include "output/run_manifest.hpp"
#include "workload.hpp"

namespace simscope::app {

/// An EGL context with a width x height framebuffer and a plane view, drawn again for each image.
class HeadlessView {
 public:
  /// Throws render::RenderError when no EGL context can be made or the size is beyond the GL's
  /// limits.
  HeadlessView(int width, int height);

  /// Draws `image` with `settings` over the whole framebuffer, or, with a `caption`, below a strip
  /// of its own that holds the caption (render::draw_caption_strip), so it never covers the
  /// view's title or colorbar. Returns the pixels: width * height * 4 bytes RGBA, top row first.
  /// Throws render::RenderError.
  std::vector<std::uint8_t> draw(const ViewImage& image, const render::ViewSettings& settings,
                                 const std::string& caption = "");
  /// How the last draw showed `output`, as run.json's "render" records it: context, renderer,
  /// upload path, colormap and scale in use, colour range. `seconds` is left 0.
  RenderInfo info(const std::string& output) const;

 private:
  int width_, height_;
  std::unique_ptr<render::GlContext> ctx_;  // first: the others need it current
  render::Offscreen target_;
  render::PlaneView view_;
};

}  // namespace simscope::app
