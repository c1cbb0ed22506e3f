#include "headless_view.hpp"

#include <algorithm>
#include <tuple>

#include "render/caption.hpp"
#include "view_upload.hpp"

namespace simscope::app {

HeadlessView::HeadlessView(int width, int height)
    : width_(width),
      height_(height),
      ctx_(render::create_context("egl")),
      target_(width, height) {}

std::vector<std::uint8_t> HeadlessView::draw(const ViewImage& image,
                                             const render::ViewSettings& settings,
                                             const std::string& caption) {
  target_.bind();
  view_.set_settings(settings);
  upload_image(view_, image);
  if (caption.empty()) {
    view_.draw(0, 0, width_, height_);
  } else {
    const int strip = render::caption_strip_height(1);
    view_.draw(0, 0, width_, std::max(1, height_ - strip));
    render::draw_caption_strip(caption, width_, height_, 1, view_.background());
  }
  return target_.read_rgba();
}

RenderInfo HeadlessView::info(const std::string& output) const {
  RenderInfo info;
  info.context = ctx_->backend_name();
  info.renderer = ctx_->renderer();
  info.upload_path = view_.upload_path();
  info.output = output;
  info.colormap = view_.settings().colormap;
  info.scale = view_.settings().log_scale ? "log" : "linear";
  std::tie(info.range_lo, info.range_hi) = view_.range();
  return info;
}

}  // namespace simscope::app
