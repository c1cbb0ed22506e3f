// Colorbar ticks: 1-2-5 steps, 5-7 ticks, decades in log scale, labels.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "render/ticks.hpp"

namespace simscope::render {
namespace {

std::vector<std::string> labels(const std::vector<Tick>& ticks) {
  std::vector<std::string> out;
  for (const auto& t : ticks) out.push_back(t.label);
  return out;
}

TEST(Ticks, UnitRange) {
  EXPECT_EQ(labels(colorbar_ticks(0, 1, false)),
            (std::vector<std::string>{"0", "0.2", "0.4", "0.6", "0.8", "1"}));
}

TEST(Ticks, NegativeRangeAndZero) {
  EXPECT_EQ(labels(colorbar_ticks(-3, 3, false)),
            (std::vector<std::string>{"-3", "-2", "-1", "0", "1", "2", "3"}));
}

TEST(Ticks, NoFiveToSevenStepGivesFour) {
  EXPECT_EQ(labels(colorbar_ticks(0, 7, false)), (std::vector<std::string>{"0", "2", "4", "6"}));
}

TEST(Ticks, CountAndStepsOverManyRanges) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> exp10(-12, 12), frac(0.05, 1.0), off(-3, 3);
  for (int k = 0; k < 2000; ++k) {
    const double span = std::pow(10.0, exp10(rng)) * frac(rng) * 10;
    const double lo = off(rng) * span;
    const auto ticks = colorbar_ticks(lo, lo + span, false);
    ASSERT_GE(ticks.size(), 4u) << lo << " .. " << lo + span;
    ASSERT_LE(ticks.size(), 8u) << lo << " .. " << lo + span;
    const double step = ticks[1].value - ticks[0].value;
    const double m = step / std::pow(10.0, std::floor(std::log10(step) + 1e-9));
    EXPECT_TRUE(std::fabs(m - 1) < 1e-6 || std::fabs(m - 2) < 1e-6 || std::fabs(m - 5) < 1e-6 ||
                std::fabs(m - 2.5) < 1e-6)
        << "step " << step;
    for (size_t t = 0; t < ticks.size(); ++t) {
      EXPECT_GE(ticks[t].position, -1e-9);
      EXPECT_LE(ticks[t].position, 1 + 1e-9);
      if (t > 0) EXPECT_NE(ticks[t].label, ticks[t - 1].label) << lo << " .. " << lo + span;
    }
  }
}

TEST(Ticks, FiveToSevenForTypicalRanges) {
  for (double hi : {1.0, 3.0, 6.0, 10.0, 15.0, 42.0, 99.0, 123.0, 0.3, 2.5e6, 0.011}) {
    const auto n = colorbar_ticks(0, hi, false).size();
    EXPECT_GE(n, 5u) << hi;
    EXPECT_LE(n, 7u) << hi;
  }
}

TEST(Ticks, LogDecades) {
  EXPECT_EQ(labels(colorbar_ticks(1e-3, 1e3, true)),
            (std::vector<std::string>{"0.001", "0.01", "0.1", "1", "10", "100", "1000"}));
  EXPECT_EQ(labels(colorbar_ticks(1, 100, true)),
            (std::vector<std::string>{"1", "2", "5", "10", "20", "50", "100"}));
  const auto wide = colorbar_ticks(1e-12, 1e12, true);
  EXPECT_GE(wide.size(), 5u);
  EXPECT_LE(wide.size(), 7u);
  EXPECT_EQ(wide.front().label, "1e-12");
  const auto t = colorbar_ticks(3e-7, 4e-2, true);
  for (const auto& tick : t) {
    EXPECT_NEAR(tick.position,
                (std::log10(tick.value) - std::log10(3e-7)) / (std::log10(4e-2) - std::log10(3e-7)),
                1e-12);
  }
  EXPECT_GE(colorbar_ticks(2, 8, true).size(), 3u);  // narrower than a decade: linear steps
  // Two decades and a bit: 1-2-5 would give 8 ticks, the decades alone 2; 1-3 steps, not the
  // linear fallback (which gave 20 40 60 80, all in the top tenth of a log bar).
  EXPECT_EQ(labels(colorbar_ticks(0.11, 89.8, true)),
            (std::vector<std::string>{"0.3", "1", "3", "10", "30"}));
}

TEST(Ticks, LogMinorTicks) {
  EXPECT_TRUE(colorbar_minor_ticks(0, 1, false).empty());
  // 0.5 .. 2000: labels 1 10 100 1000; minor 0.5..0.9, 2..9, 20..90, 200..900, 2000
  const auto minor = colorbar_minor_ticks(0.5, 2000, true);
  EXPECT_EQ(minor.size(), 5u + 8u + 8u + 8u + 1u);
  for (double p : minor) {
    EXPECT_GE(p, -1e-12);
    EXPECT_LE(p, 1 + 1e-12);
  }
  EXPECT_EQ(colorbar_minor_ticks(1e-12, 1e12, true).size(), 25u - 7u);  // unlabelled decades
}

TEST(Ticks, Labels) {
  EXPECT_EQ(format_tick(1e-5, 1e-5), "1e-5");
  EXPECT_EQ(format_tick(2.5e6, 5e5), "2.5e6");
  EXPECT_EQ(format_tick(1e-10, 0.5), "0");
  EXPECT_EQ(format_tick(0.25, 0.25), "0.25");
  EXPECT_EQ(format_tick(-40, 20), "-40");
  EXPECT_TRUE(colorbar_ticks(1, 1, false).empty());
  EXPECT_TRUE(colorbar_ticks(0, NAN, false).empty());
  EXPECT_TRUE(colorbar_ticks(-1, 1, true).empty());
}

}  // namespace
}  // namespace simscope::render

namespace simscope::render {
namespace {
// One colorbar, one notation: no "5e5" above "50000".
TEST(Ticks, OneNotationPerColorbar) {
  for (const bool log : {true, false}) {
    const std::vector<Tick> t = colorbar_ticks(3611, 5.186e5, log);
    ASSERT_GE(t.size(), 3u);
    for (const Tick& k : t)
      EXPECT_TRUE(k.label == "0" || k.label.find('e') != std::string::npos) << k.label;
  }
  for (const Tick& k : colorbar_ticks(0, 200, false))
    EXPECT_EQ(k.label.find('e'), std::string::npos) << k.label;
  EXPECT_EQ(colorbar_ticks(3611, 5.186e5, true).front().label, "5e3");
}
}  // namespace
}  // namespace simscope::render
