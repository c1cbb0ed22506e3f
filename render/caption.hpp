#pragma once
/// @file A caption over a finished view image: one line of text (text.hpp's markup) on a
/// translucent dark backdrop in the top-left corner, e.g. the swept parameter's value on each
/// frame of a sweep ("k = 1.5  (frame 3 of 4)").
#include <string>

namespace simscope::render {

/// Which corner: the top left is free in plane views (their title is at the top right), the
/// bottom left in the phase view (its title is at the top left, its legend at the bottom right).
enum class CaptionCorner { TopLeft, BottomLeft };

/// Draws `text` in a left corner of the current framebuffer's w x h viewport, over what is
/// there: white text of TextRenderer scale max(1, round(2 * ui_scale)) on a black backdrop of
/// alpha 0.6, elided to the viewport's width. Empty text: nothing. Needs a current GL context;
/// throws RenderError.
void draw_caption(const std::string& text, int w, int h, float ui_scale,
                  CaptionCorner corner = CaptionCorner::TopLeft);

}  // namespace simscope::render
