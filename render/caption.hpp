#pragma once
/// @file A caption over a finished view image: one line of text (text.hpp's markup) on a
/// translucent dark backdrop in the top-left corner, e.g. the swept parameter's value on each
/// frame of a sweep ("k = 1.5  (frame 3 of 4)").
#include <array>
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

/// The height in pixels of the strip along the top of a viewport that a TopLeft caption of
/// `ui_scale` covers, with its margin above and as much below. A view drawn in the viewport's
/// height minus this (its top edge at the strip) is never covered by the caption: its title and
/// colorbar stay clear at any size. Needs a current GL context; throws RenderError.
int caption_strip_height(float ui_scale);

/// Fills the caption_strip_height(ui_scale) strip along the top of the w x h viewport with `bg`
/// (RGB in [0, 1]) and draws `text` there (draw_caption, TopLeft); nothing for empty text. Draw
/// the view below it first, in (0, 0, w, h - caption_strip_height). Throws RenderError.
void draw_caption_strip(const std::string& text, int w, int h, float ui_scale,
                        const std::array<float, 3>& bg);

}  // namespace simscope::render
