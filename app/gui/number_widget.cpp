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

double drag_speed(double value, double scale) {
  const double least = std::isfinite(scale) && scale > 0 ? 0.005 * std::abs(scale) : 0.005;
  return std::isfinite(value) ? std::max(least, 0.005 * std::abs(value)) : least;
}

}  // namespace simscope::app::gui
