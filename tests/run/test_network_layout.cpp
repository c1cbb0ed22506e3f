// The phase view's node positions (app/run/oscillators/network_layout.hpp).
#include "oscillators/network_layout.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "oscillators/topology.hpp"

namespace simscope::app {
namespace {

using oscillators::Topologies;
using oscillators::watts_strogatz;

TEST(NetworkLayout, CircleStartsAtTheTopAndSpringFitsTheSquareDeterministically) {
  const auto c = circle_layout(4);
  ASSERT_EQ(c.size(), 8u);
  EXPECT_NEAR(c[0], 0, 1e-6);
  EXPECT_NEAR(c[1], 1, 1e-6);   // node 0 at the top
  EXPECT_NEAR(c[2], -1, 1e-6);  // then counter-clockwise
  const Topologies t = watts_strogatz(50, 4, 0.2, 2, 1);
  const auto s = spring_layout(t, 1);
  ASSERT_EQ(s.size(), 100u);
  float lo = 1e9f, hi = -1e9f;
  for (float v : s) lo = std::min(lo, v), hi = std::max(hi, v);
  EXPECT_GE(lo, -1.0001f);
  EXPECT_LE(hi, 1.0001f);
  EXPECT_GT(hi - lo, 1.5f);
  EXPECT_EQ(s, spring_layout(t, 1));  // deterministic
}

}  // namespace
}  // namespace simscope::app
