#pragma once
/// @file A caption over a finished view image.
/// One line of text with text.hpp's markup on a translucent dark backdrop in a left corner, e.g. a
/// sweep frame's "k = 1.5  (frame 3 of 4)".
#include <array>
#include <string>

namespace simscope::render {

/// Which corner. Plane views keep the top left free, their title being top right. The phase view
/// keeps the bottom left free: title top left, legend bottom right.
enum class CaptionCorner { TopLeft, BottomLeft };

/// Draws `text` in a left corner of the current framebuffer's w x h viewport, over its contents.
/// White text at TextRenderer scale max(1, round(2 * ui_scale)) on a black backdrop of alpha 0.6,
/// elided to the viewport's width. Empty text draws nothing. Needs a current GL context; throws
/// RenderError.
void draw_caption(const std::string& text, int w, int h, float ui_scale,
                  CaptionCorner corner = CaptionCorner::TopLeft);

/// Height in pixels of the top strip a TopLeft caption at `ui_scale` covers, margins included.
/// A view drawn below this strip is never covered, so its title and colorbar stay clear.
/// Needs a current GL context; throws RenderError.
int caption_strip_height(float ui_scale);

/// Fills the caption_strip_height(ui_scale) strip at the top of the w x h viewport with `bg`, RGB
/// in [0, 1], and draws `text` there (draw_caption, TopLeft). Empty text draws nothing.
/// Draw the view first, in (0, 0, w, h - caption_strip_height). Throws RenderError.
void draw_caption_strip(const std::string& text, int w, int h, float ui_scale,
                        const std::array<float, 3>& bg);

}  // namespace simscope::render
