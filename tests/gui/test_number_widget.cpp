// Which widget a number parameter gets (app/gui/number_widget.hpp), on the field schema's real
// specs, and the relative drag's rate against its closed form.
#include <gtest/gtest.h>

#include <cmath>

#include "field/field.hpp"
#include "field/field_params.hpp"
#include "number_widget.hpp"

using namespace simscope;
using namespace simscope::app::gui;

namespace {
const ParamSpec& spec(const char* name) {
  const ParamSpec* s = field::schema().find(name);
  EXPECT_NE(s, nullptr) << name;
  return *s;
}
}  // namespace

TEST(NumberWidget, BoundsOnlyRangesDragAndShowableRangesSlide) {
  // plane.offset spans +-1e12: a slider pixel would be billions of length units.
  EXPECT_EQ(number_widget(spec("plane.offset")), NumberWidget::Drag);
  EXPECT_TRUE(spec("grid.half_width").log_slider);  // 1e-9 .. 1e12 on a logarithmic slider
  EXPECT_EQ(number_widget(spec("grid.half_width")), NumberWidget::Slider);
  EXPECT_EQ(number_widget(spec("grid.size")), NumberWidget::Slider);       // 2 .. 4096
  EXPECT_EQ(number_widget(spec("tree.tolerance")), NumberWidget::Slider);  // 1e-7 .. 1e-3
  ParamSpec open = spec("k");
  open.min = 1, open.max = 0;  // no range
  EXPECT_EQ(number_widget(open), NumberWidget::Input);
}

TEST(NumberWidget, ADragChangesAValueRelativeToItsSize) {
  // ImGui adds speed x pixels each frame; one pixel per frame for 200 frames from v0 gives
  // v0 * 1.005^200 (= 2.7116 v0) while |v| >= 1, and 200 x 0.005 = 1 from 0.
  for (double v0 : {1000.0, -3.5e6, 2.0}) {
    double v = v0;
    for (int px = 0; px < 200; ++px) v += std::copysign(drag_speed(v), v0);
    EXPECT_NEAR(v / v0, std::pow(1.005, 200), 1e-9) << v0;
  }
  double v = 0;
  for (int px = 0; px < 200; ++px) v += drag_speed(v);
  EXPECT_GT(v, 1.0 - 1e-12);
  EXPECT_LT(v, 1.2);  // 0.005 per pixel until |v| reaches 1, relative after
  EXPECT_EQ(drag_speed(std::nan("")), 0.005);
  // With a scale (plane.offset's: grid.half_width, 995 in the seed preset), 200 pixels from 0
  // move by the scale, then relative: through a cloud as wide as the plane.
  v = 0;
  for (int px = 0; px < 200; ++px) v += drag_speed(v, 995);
  EXPECT_NEAR(v, 995, 1e-9);
  EXPECT_NEAR(drag_speed(-1e4, 995), 50, 1e-12);
  EXPECT_EQ(drag_speed(0, std::nan("")), 0.005);
  EXPECT_EQ(spec("plane.offset").drag_scale, "grid.half_width");
}
