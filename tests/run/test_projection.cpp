// The progress bars' ETA (job/projection.hpp: eta_from_start), against the time per unit of work
// done so far times the work left, counted in whole units as a sweep counts frames.
#include <gtest/gtest.h>

#include "job/projection.hpp"

namespace simscope::app {
namespace {

TEST(EtaFromStart, MeanTimePerFrameTimesFramesLeft) {
  for (int frames : {1, 3, 7, 200})
    for (int done = 1; done < frames; ++done) {
      const double elapsed = 0.37 * done;  // 0.37 s a frame
      const auto eta = eta_from_start(double(done) / frames, elapsed, 0.0);
      ASSERT_TRUE(eta.has_value()) << done << "/" << frames;
      EXPECT_NEAR(*eta, 0.37 * (frames - done), 1e-12) << done << "/" << frames;
    }
}

TEST(EtaFromStart, NoneUntilPastTheThreshold) {
  EXPECT_FALSE(eta_from_start(0.0, 5.0, 0.0));
  EXPECT_FALSE(eta_from_start(0.01, 5.0));  // the window's bars wait for more than 1 %
  EXPECT_FALSE(eta_from_start(-0.5, 5.0, 0.0));
  ASSERT_TRUE(eta_from_start(0.02, 1.0));
  EXPECT_NEAR(*eta_from_start(0.02, 1.0), 49.0, 1e-12);
  EXPECT_DOUBLE_EQ(*eta_from_start(1.0, 8.0), 0.0);
}

}  // namespace
}  // namespace simscope::app
