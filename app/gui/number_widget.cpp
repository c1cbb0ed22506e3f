#include "number_widget.hpp"

#include <algorithm>
#include <cmath>

namespace simscope::app::gui {

NumberWidget number_widget(const ParamSpec& s) {
  if (!s.has_range()) return NumberWidget::Input;
  const double width = s.max - s.min;
  if (width <= 1e6 || (s.log_slider && width < 1e13)) return NumberWidget::Slider;
  return NumberWidget::Drag;
}

double drag_speed(double value) {
  return std::isfinite(value) ? std::max(0.005, 0.005 * std::abs(value)) : 0.005;
}

}  // namespace simscope::app::gui
