#pragma once
/// @file Which ImGui widget a number parameter gets, and how fast a drag changes it. A slider
/// over a range a slider can show: up to 1e6 wide, or any range with a logarithmic slider. A
/// relative drag for ranges that only bound a value: plane.offset spans +-1e12, so on a slider
/// of ~300 pixels one pixel would be 7e9 length units. A text field without a range.
#include "params/param_spec.hpp"

namespace simscope::app::gui {

enum class NumberWidget { Slider, Drag, Input };

/// The widget of `spec`, an Int or Float parameter: Slider when its range is no wider than 1e6,
/// or with a logarithmic slider (ParamSpec::log_slider) over a range below 1e13; Drag for a
/// wider range; Input without a range.
NumberWidget number_widget(const ParamSpec& spec);

/// The drag speed at `value`, in value units per pixel of mouse motion: 0.5 % of the larger of
/// |value| and `scale` (ParamSpec::drag_scale's value; 1 without one). So a 200-pixel drag
/// changes a value by about e (2.7x) in magnitude, and a value at 0 moves by `scale` per 200
/// pixels: plane.offset through a cloud as wide as the plane. Ctrl+click or a double click
/// still types a value.
double drag_speed(double value, double scale = 1);

}  // namespace simscope::app::gui
