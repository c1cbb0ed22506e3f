// FieldStats (app/run/field/field_stats.hpp): the stats read back from a result, and the merge
// rules of target ranges (joined) and source shares (summed), with values worked by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/error.hpp"
#include "field/field_stats.hpp"
#include "workload.hpp"

namespace simscope::app {
namespace {

/// A tree run's stats over `sources` sources and `targets` targets.
FieldStats tree_part(double sources, double targets) {
  FieldStats s;
  s.sources = sources, s.targets = targets;
  s.method_tree = 1, s.method = "tree";
  s.tree_order = 4, s.tree_theta = 0.5;
  return s;
}

TEST(FieldStats, MapsRoundTripAndMissingKeyIsNamed) {
  FieldStats s = tree_part(100, 50);
  s.skipped_coincidences = 2, s.peak_device_bytes = 1024;
  s.error_samples = 9, s.rms_rel_error = 1e-3, s.sources_read_whole = 1;
  RunResult r;
  s.store(r);
  EXPECT_EQ(r.stats.size(), 10u);  // the 4 counts, method_tree, order, theta and 3 set above
  EXPECT_EQ(r.stat_texts.at("method"), "tree");
  EXPECT_EQ(r.stats.count("max_rel_error"), 0u);
  const FieldStats back = FieldStats::from(r);
  EXPECT_EQ(back.to_map(), s.to_map());
  EXPECT_EQ(back.method, "tree");
  r.stats.erase("peak_device_bytes");
  try {
    FieldStats::from(r);
    FAIL() << "expected simscope::Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("peak_device_bytes"), std::string::npos) << e.what();
  }
}

TEST(FieldStats, MergedTargetRangesJoin) {
  FieldStats a = tree_part(100, 50), b = tree_part(100, 30);
  a.skipped_coincidences = 1, a.peak_device_bytes = 1000, a.pairs = 5000;
  a.tree_build_seconds = 0.5, a.tree_eval_seconds = 1.0, a.tree_error_seconds = 0.25;
  a.error_samples = 4, a.rms_rel_error = 0.01, a.max_rel_error = 0.03, a.tolerance_met = 1;
  b.skipped_coincidences = 2, b.peak_device_bytes = 3000;
  b.tree_build_seconds = 0.25, b.tree_eval_seconds = 0.5, b.tree_error_seconds = 0.125;
  b.error_samples = 12, b.rms_rel_error = 0.02, b.max_rel_error = 0.025, b.tolerance_met = 0;
  const FieldStats m = FieldStats::merged_ranges({a, b}, 80);
  EXPECT_EQ(m.sources, 100);  // every range saw every source
  EXPECT_EQ(m.targets, 80);
  EXPECT_EQ(m.skipped_coincidences, 3);
  EXPECT_EQ(m.peak_device_bytes, 3000);
  EXPECT_EQ(m.method, "tree");
  EXPECT_EQ(*m.method_tree, 1);
  EXPECT_EQ(*m.tree_order, 4);
  EXPECT_EQ(*m.tree_build_seconds, 0.75);
  EXPECT_EQ(*m.tree_eval_seconds, 1.5);
  EXPECT_EQ(*m.tree_error_seconds, 0.375);
  EXPECT_EQ(*m.error_samples, 16);
  // sqrt((4 * 0.01^2 + 12 * 0.02^2) / 16) = sqrt(3.25e-4)
  EXPECT_NEAR(*m.rms_rel_error, std::sqrt(3.25e-4), 1e-15);
  EXPECT_EQ(*m.max_rel_error, 0.03);
  EXPECT_EQ(*m.tolerance_met, 0);
  EXPECT_EQ(*m.pairs, 5000);  // the first part's until finish_field_result forms the whole's
}

TEST(FieldStats, MergedSourceSharesSum) {
  // The first share ran the tree on 60 sources; the second is empty (no method ran), with
  // only its direct check's time.
  FieldStats a = tree_part(60, 80), b;
  a.skipped_coincidences = 1, a.peak_device_bytes = 2000, a.pairs = 4800;
  a.tree_build_seconds = 0.5, a.tree_eval_seconds = 1.0, a.tree_error_seconds = 0.25;
  a.error_samples = 0, a.sources_read_whole = 1;
  b.targets = 80, b.peak_device_bytes = 500, b.tree_error_seconds = 0.125;
  const FieldStats m = FieldStats::merged_shares({b, a}, 80);
  EXPECT_EQ(m.sources, 60);
  EXPECT_EQ(m.targets, 80);
  EXPECT_EQ(m.skipped_coincidences, 1);
  EXPECT_EQ(m.peak_device_bytes, 2000);
  EXPECT_EQ(m.method, "tree");  // the first share's that ran one
  EXPECT_EQ(*m.method_tree, 1);
  EXPECT_EQ(*m.tree_order, 4);
  EXPECT_EQ(*m.tree_theta, 0.5);
  EXPECT_EQ(*m.tree_build_seconds, 0.5);
  EXPECT_EQ(*m.tree_eval_seconds, 1.0);
  EXPECT_EQ(*m.tree_error_seconds, 0.375);
  EXPECT_EQ(*m.error_samples, 0);
  EXPECT_FALSE(m.rms_rel_error);
  EXPECT_FALSE(m.tolerance_met);
  EXPECT_FALSE(m.sources_read_whole);  // the merged run warns instead
  EXPECT_FALSE(m.pairs);
}

}  // namespace
}  // namespace simscope::app
