// A workload's annotations of its image (the run layer's ImageAnnotations) reach the plane view's
// settings whole (to_render_settings, app/frontend/view_settings.cpp): the aspect, both axis
// titles with their ranges, and every region label with its texts.
#include <gtest/gtest.h>

#include "view/view_schema.hpp"
#include "view_settings.hpp"

namespace simscope::app {
namespace {

TEST(ViewAnnotations, ReachThePlaneViewWhole) {
  ViewImage image;
  image.rows = 2, image.cols = 3;
  image.annotations.aspect = ImageAspect::Fill;
  image.annotations.axis_i = {"member k", true, 0.0, 148.0};
  image.annotations.axis_j = {"each face (right, up): -1.5 ... 1.5", false, 2.5, -0.25};
  RegionLabel face;
  face.u0 = 1.0 / 3, face.v0 = 0.5, face.u1 = 2.0 / 3, face.v1 = 1;
  face.texts = {"+y face, y = 0.3: x right, z up", "+y (x, z)", "+y"};
  image.annotations.regions = {RegionLabel{}, face};

  const render::ViewSettings s = to_render_settings(view_schema().defaults(), image);
  const render::PlaneAnnotations& a = s.annotations;
  EXPECT_EQ(a.aspect, render::Aspect::Fill);
  EXPECT_EQ(a.axis_i.name, "member k");
  EXPECT_TRUE(a.axis_i.show_range);
  EXPECT_EQ(a.axis_i.first, 0.0);
  EXPECT_EQ(a.axis_i.last, 148.0);
  EXPECT_EQ(a.axis_j.name, "each face (right, up): -1.5 ... 1.5");
  EXPECT_FALSE(a.axis_j.show_range);
  EXPECT_EQ(a.axis_j.first, 2.5);
  EXPECT_EQ(a.axis_j.last, -0.25);
  ASSERT_EQ(a.regions.size(), 2u);
  EXPECT_EQ(a.regions[0].u0, 0.0);  // a default label: the whole image, no text
  EXPECT_EQ(a.regions[0].v1, 1.0);
  EXPECT_TRUE(a.regions[0].texts.empty());
  EXPECT_EQ(a.regions[1].u0, 1.0 / 3);
  EXPECT_EQ(a.regions[1].v0, 0.5);
  EXPECT_EQ(a.regions[1].u1, 2.0 / 3);
  EXPECT_EQ(a.regions[1].v1, 1.0);
  EXPECT_EQ(a.regions[1].texts, face.texts);

  image.annotations = ImageAnnotations{};  // none: square pixels, no titles, no labels
  const render::PlaneAnnotations none =
      to_render_settings(view_schema().defaults(), image).annotations;
  EXPECT_EQ(none.aspect, render::Aspect::Square);
  EXPECT_FALSE(none.has_axis_titles());
  EXPECT_TRUE(none.regions.empty());
}

}  // namespace
}  // namespace simscope::app
