// Work ranges of whole runs (issue 11 item 5, split_merge.hpp): a run split into 1, 2, 3 and 7
// ranges of its independent axis and merged equals the unsplit run bit for bit on the CPU back
// end (field by targets, lsq by pixel rows, oscillators studies by members: outputs, warnings
// and every stat but timings); the ranges and the refused merges.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>

#include "../compute/test_bits.hpp"
#include "core/error.hpp"
#include "field/field.hpp"
#include "field/field_params.hpp"
#include "io/npy.hpp"
#include "oscillators/oscillators_params.hpp"
#include "oscillators/study.hpp"
#include "oscillators/study_checkpoint.hpp"
#include "oscillators/topology.hpp"
#include "ranges/result_codec.hpp"
#include "ranges/split_merge.hpp"
#include "workload.hpp"

namespace simscope::app {
namespace {

namespace fs = std::filesystem;
using test::same_bits;

/// Stats that measure time (or depend on it): not compared.
bool timing_stat(const std::string& k) {
  return k == "pairs_per_s" || k == "pixels_per_s" || k == "osc_steps_per_s";
}

/// `split` equals `whole`: the same outputs (names, dtypes, shapes, bits), warnings and stats.
void expect_same_result(const RunResult& whole, const RunResult& split, const std::string& what) {
  SCOPED_TRACE(what);
  EXPECT_FALSE(split.part.has_value());
  ASSERT_EQ(whole.outputs.size(), split.outputs.size());
  for (std::size_t k = 0; k < whole.outputs.size(); ++k) {
    const OutputArray &a = whole.outputs[k], &b = split.outputs[k];
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.dtype, b.dtype) << a.name;
    EXPECT_EQ(a.shape, b.shape) << a.name;
    EXPECT_EQ(a.data.dtype(), b.data.dtype()) << a.name;
    EXPECT_TRUE(same_bits(a.data.converted<double>(), b.data.converted<double>())) << a.name;
  }
  EXPECT_EQ(whole.warnings, split.warnings);
  for (const auto& [k, v] : whole.stats) {
    if (timing_stat(k)) continue;
    ASSERT_TRUE(split.stats.count(k)) << k;
    EXPECT_EQ(v, split.stats.at(k)) << k;
  }
  EXPECT_EQ(whole.stats.size(), split.stats.size());
}

void expect_splits_equal(const std::string& workload, const ParamSet& p, const RunResult& whole,
                         const std::vector<std::size_t>& counts = {1, 2, 3, 7}) {
  for (std::size_t parts : counts) {
    const auto w = make_workload(workload);  // a fresh instance: no cache shared with `whole`
    const RunResult r = run_split(*w, p, Backend::Cpu, parts);
    expect_same_result(whole, r, workload + " in " + std::to_string(parts) + " ranges");
  }
}

TEST(SplitMerge, FieldSplitByTargetsEqualsTheWholeRun) {
  const auto w = make_workload("field");
  for (const std::string plane : {"xy", "box"}) {
    ParamSet p = w->schema().defaults();
    // A lattice of 27 sources at -1, 0, 1 on each axis and a 5 x 5 grid over [-1, 1]: targets
    // on sources (eps = 0), so the coincidence count and its warning are merged too.
    p.set("sources.distribution", std::string("lattice"));
    p.set("sources.count", std::int64_t(27));
    p.set("grid.size", std::int64_t(5));
    p.set("grid.half_width", 1.0);
    p.set("plane", plane);
    const RunResult whole = w->run(p, Backend::Cpu, RunRequest{}, nullptr);
    ASSERT_GT(whole.stats.at("skipped_coincidences"), 0);
    expect_splits_equal("field", p, whole);
    // Uniform sources, fp32 and fp64, a larger grid (several tiles of targets per range).
    for (const std::string prec : {"fp32", "fp64"}) {
      p.set("sources.distribution", std::string("uniform"));
      p.set("sources.count", std::int64_t(700));
      p.set("grid.size", std::int64_t(37));
      p.set("precision", prec);
      expect_splits_equal("field", p, w->run(p, Backend::Cpu, RunRequest{}, nullptr));
    }
  }
}

// The field's tree method split by targets: each range meets the tolerance (its own measured
// error and its own rung of the ladder, so not bit for bit the whole run), the merged tree
// statistics add the ranges' samples and times and keep the error below the tolerance.
TEST(SplitMerge, FieldTreeSplitMeetsTheToleranceAndMergesItsStats) {
  const auto w = make_workload("field");
  ParamSet p = w->schema().defaults();
  p.set("method", std::string("tree"));
  p.set("sources.distribution", std::string("uniform"));
  p.set("sources.count", std::int64_t(5000));
  p.set("grid.size", std::int64_t(30));
  p.set("precision", std::string("fp64"));
  const RunResult whole = w->run(p, Backend::Cpu, RunRequest{}, nullptr);
  ASSERT_EQ(whole.stats.at("method_tree"), 1);
  ParamSet d = p;
  d.set("method", std::string("direct"));
  const RunResult direct = make_workload("field")->run(d, Backend::Cpu, RunRequest{}, nullptr);
  const auto w3 = make_workload("field");
  const RunResult r = run_split(*w3, p, Backend::Cpu, 3);
  EXPECT_EQ(r.stats.at("method_tree"), 1);
  EXPECT_GT(r.stats.at("error_samples"), whole.stats.at("error_samples") * 0.99);
  EXPECT_LE(r.stats.at("rms_rel_error"), 1e-5);
  EXPECT_GE(r.stats.at("max_rel_error"), 0);
  EXPECT_GT(r.stats.at("tree_eval_seconds"), 0);
  const OutputArray* e = r.find("ex");
  const OutputArray* ref = direct.find("ex");
  ASSERT_TRUE(e && ref);
  ASSERT_EQ(e->data.size(), ref->data.size());
  double num = 0, den = 0;
  for (const char* name : {"ex", "ey", "ez"}) {
    const auto &a = r.find(name)->data.host(), &b = direct.find(name)->data.host();
    for (std::size_t i = 0; i < a.size(); ++i)
      num += (double(a[i]) - b[i]) * (double(a[i]) - b[i]), den += double(b[i]) * b[i];
  }
  EXPECT_LT(std::sqrt(num / den), 1e-5);
  // The error view merged from the ranges' parts: the whole subgrid's shape and targets, and
  // each value the relative error of the merged E against the direct (fp64) run at its target.
  const field::ErrorSubgrid sub = field::error_subgrid(field::grid_from(p), 0, 5000);
  const OutputArray *err = r.find("error"), *xyz = r.find("error_xyz");
  const OutputArray* wxyz = whole.find("error_xyz");
  ASSERT_TRUE(err && xyz && wxyz);
  EXPECT_EQ(err->shape, (std::vector<std::size_t>{std::size_t(sub.m), std::size_t(sub.m)}));
  EXPECT_EQ(xyz->data.values<double>(), wxyz->data.values<double>());
  ASSERT_EQ(err->host().size(), sub.targets.size());
  for (std::size_t k = 0; k < sub.targets.size(); ++k) {
    const std::size_t i = sub.targets[k];
    double d2 = 0, e2 = 0;
    for (const char* name : {"ex", "ey", "ez"}) {
      const double a = r.find(name)->data.host()[i], b = direct.find(name)->data.host()[i];
      d2 += (a - b) * (a - b), e2 += b * b;
    }
    const double want = std::sqrt(d2 / e2);
    EXPECT_NEAR(err->host()[k], want, 2e-7 + 1e-3 * want) << k;
  }
}

TEST(SplitMerge, LsqSplitByPixelRowsEqualsTheWholeRun) {
  const auto w = make_workload("lsq");
  for (const std::string method : {"auto", "normal", "qr"}) {
    ParamSet p = w->schema().defaults();
    p.set("synth.height", std::int64_t(23));
    p.set("synth.width", std::int64_t(9));
    p.set("synth.observations", std::int64_t(12));
    p.set("synth.unknowns", std::int64_t(5));
    p.set("synth.nan_fraction", 0.45);  // pixels of every status
    p.set("method", method);
    const RunResult whole = w->run(p, Backend::Cpu, RunRequest{}, nullptr);
    ASSERT_GT(whole.stats.at("status_underdetermined"), 0);
    expect_splits_equal("lsq", p, whole);
  }
}

/// The headless run of a study: checkpointed (study_checkpoint.hpp), the unsplit reference.
RunResult headless_study(const ParamSet& p, const std::string& name) {
  const fs::path dir = fs::path(SIMSCOPE_TEST_TMP) / ("split_" + name + std::to_string(getpid()));
  fs::remove_all(dir);
  RunRequest request;
  request.checkpoint = std::make_shared<StudyCheckpointRequest>();
  request.checkpoint->dir = (dir / "checkpoint").string();
  const RunResult r = make_workload("oscillators")->run(p, Backend::Cpu, request, nullptr);
  fs::remove_all(dir);
  return r;
}

TEST(SplitMerge, OscillatorsStudySplitByMembersEqualsTheWholeStudy) {
  const auto w = make_workload("oscillators");
  ParamSet p = w->schema().defaults();
  // 450 members in blocks of 64 (study_block_members): 8 blocks, the last of 2 members.
  p.set("ensemble.size", std::int64_t(450));
  p.set("network.nodes", std::int64_t(6));
  p.set("network.k", std::int64_t(2));
  p.set("network.topology", std::string("watts_strogatz"));
  p.set("integrator.steps", std::int64_t(120));
  p.set("integrator.transient", std::int64_t(30));
  p.set("record.every", std::int64_t(10));
  const RunResult whole = headless_study(p, "osc");
  EXPECT_EQ(whole.find("msd_t")->shape, (std::vector<std::size_t>{12}));
  // Up to 7 ranges: whole blocks; 9 to 57 (the study's reduction groups of 8; 60 leaves 3
  // empty): blocks cut between ranges at group boundaries.
  expect_splits_equal("oscillators", p, whole, {1, 2, 3, 7, 9, 13, 57, 60});

  // Members that go non-finite (dt far too large for some initial states): left out of the
  // series and the statistics the same way, their frozen states identical.
  p.set("integrator.dt", 0.3);  // about 130 of the 450 go non-finite
  const RunResult blown = headless_study(p, "osc_blown");
  const double bad = blown.stats.at("nonfinite_members");
  EXPECT_GT(bad, 0);
  EXPECT_LT(bad, 450);
  expect_splits_equal("oscillators", p, blown, {1, 2, 3, 7, 11, 29});
}

/// The study `p` run as the work ranges whose ends are `ends` (after 0), merged.
RunResult run_ranges(const ParamSet& p, const std::vector<std::size_t>& ends) {
  const auto w = make_workload("oscillators");
  std::vector<RunResult> parts;
  std::size_t begin = 0;
  for (std::size_t end : ends) {
    RunRequest q;
    q.range = IndexRange{begin, end};
    parts.push_back(w->run(p, Backend::Cpu, q, nullptr));
    begin = end;
  }
  return w->merge_ranges(std::move(parts));
}

TEST(SplitMerge, OscillatorsRangesCutAtAnyGroupBoundaryEqualTheWholeStudy) {
  // More ranks than blocks (issue 13): ranges end on the reduction groups of a block
  // (study_group_members: ceil(block / 16) rounded up to 8 members), a block's groups on several
  // ranges, and one range over the end of a block and the start of the next.
  const auto w = make_workload("oscillators");
  ParamSet p = w->schema().defaults();
  p.set("ensemble.size", std::int64_t(150));  // blocks of 64, 64, 22; groups of 8
  p.set("network.nodes", std::int64_t(12));
  p.set("network.k", std::int64_t(4));
  p.set("network.topology", std::string("watts_strogatz"));
  p.set("integrator.steps", std::int64_t(90));
  p.set("integrator.transient", std::int64_t(20));
  p.set("record.every", std::int64_t(3));
  EXPECT_EQ(oscillators::study_group_members(150), 8);
  const RunResult whole = headless_study(p, "osc_groups");
  expect_same_result(whole, run_ranges(p, {8, 16, 64, 150}), "groups 0, 1, the rest of block 0");
  expect_same_result(whole, run_ranges(p, {40, 72, 136, 144, 150}), "ranges across blocks");
  expect_same_result(whole, run_ranges(p, {128, 136, 150}), "the last block cut");
  p.set("integrator.dt", 0.3);  // members going non-finite inside cut blocks
  const RunResult blown = headless_study(p, "osc_groups_blown");
  EXPECT_GT(blown.stats.at("nonfinite_members"), 0);
  expect_same_result(blown, run_ranges(p, {24, 48, 56, 104, 150}), "non-finite members");
}

TEST(SplitMerge, OscillatorsRangesBuildOnlyTheirMembersYetEqualTheWhole) {
  // Each range generates only its members' networks and states (make_topologies /
  // make_initial_state from first_member): Erdos-Renyi graphs and an init.file of (K, N, 2).
  const auto w = make_workload("oscillators");
  ParamSet p = w->schema().defaults();
  const std::size_t K = 200, N = 5;  // 4 blocks of 64 (the last of 8)
  std::vector<double> init(K * N * 2);
  for (std::size_t q = 0; q < init.size(); ++q) init[q] = std::sin(0.37 * double(q) + 0.1);
  const fs::path dir = fs::path(SIMSCOPE_TEST_TMP) / ("split_init" + std::to_string(getpid()));
  fs::create_directories(dir);
  io::write_npy((dir / "init.npy").string(), init.data(), {K, N, 2});
  p.set("ensemble.size", std::int64_t(K));
  p.set("network.nodes", std::int64_t(N));
  p.set("network.topology", std::string("erdos_renyi"));
  p.set("network.p", 0.5);
  p.set("init", std::string("file"));
  p.set("init.file", (dir / "init.npy").string());
  p.set("integrator.steps", std::int64_t(60));
  p.set("integrator.transient", std::int64_t(20));
  expect_splits_equal("oscillators", p, headless_study(p, "osc_er"));
  p.set("init", std::string("uniform_phase"));
  p.set("network.topology", std::string("ring"));
  expect_splits_equal("oscillators", p, headless_study(p, "osc_ring"));
  fs::remove_all(dir);
}

TEST(SplitMerge, RangesAreBalancedAndOnGranules) {
  const auto r = split_work({"members", 450, 64}, 3);
  ASSERT_EQ(r.size(), 3u);
  // 8 granules: 3, 3, 2 of them.
  EXPECT_EQ(r[0].begin, 0u);
  EXPECT_EQ(r[0].end, 192u);
  EXPECT_EQ(r[1].end, 384u);
  EXPECT_EQ(r[2].end, 450u);
  const auto many = split_work({"members", 100, 64}, 4);  // 2 granules over 4 ranges
  EXPECT_EQ(many[0].end, 64u);
  EXPECT_EQ(many[1].end, 100u);
  EXPECT_EQ(many[2].begin, 100u);
  EXPECT_EQ(many[3].end, 100u);
  // With finer cuts (the oscillators' groups), more ranges than granules end at the cuts
  // nearest equal shares; as many ranges as granules or fewer still take whole granules.
  WorkAxis fine{"members", 150, 64};
  fine.cuts = oscillators::study_cuts(150);
  EXPECT_EQ(fine.cuts.front(), 0u);
  EXPECT_EQ(fine.cuts.back(), 150u);
  EXPECT_EQ(fine.cuts.size(), 8u + 8u + 3u + 1u);  // 8 + 8 + 3 groups (the last of 6), and K
  const auto three = split_work(fine, 3);
  EXPECT_EQ(three[0].end, 64u);
  EXPECT_EQ(three[1].end, 128u);
  const auto five = split_work(fine, 5);  // shares of 30: cuts 32, 56 (a tie with 64), 88, 120
  ASSERT_EQ(five.size(), 5u);
  EXPECT_EQ(five[0].end, 32u);
  EXPECT_EQ(five[1].end, 56u);
  EXPECT_EQ(five[2].end, 88u);
  EXPECT_EQ(five[3].end, 120u);
  EXPECT_EQ(five[4].end, 150u);
  const auto many_fine = split_work(fine, 25);  // 19 groups: 6 ranges left empty
  std::size_t empty = 0;
  for (std::size_t k = 0; k < many_fine.size(); ++k) {
    if (k) EXPECT_EQ(many_fine[k].begin, many_fine[k - 1].end);
    empty += many_fine[k].begin == many_fine[k].end;
  }
  EXPECT_EQ(empty, 6u);
  EXPECT_EQ(many_fine.back().end, 150u);
  fine.cuts.back() = 149;
  EXPECT_THROW(split_work(fine, 5), Error);
  const auto rows = split_work({"rows", 10, 1}, 3);
  EXPECT_EQ(rows[0].end, 4u);
  EXPECT_EQ(rows[1].end, 7u);
  EXPECT_EQ(rows[2].end, 10u);
  EXPECT_THROW(split_work({"rows", 10, 1}, 0), Error);
  EXPECT_THROW(split_work({}, 2), Error);
}

TEST(SplitMerge, PartsThatDoNotFitAreRefused) {
  const auto w = make_workload("lsq");
  ParamSet p = w->schema().defaults();
  p.set("synth.height", std::int64_t(8));
  p.set("synth.width", std::int64_t(4));
  p.set("synth.unknowns", std::int64_t(3));
  RunRequest a, b;
  a.range = IndexRange{0, 3};
  b.range = IndexRange{4, 8};  // a gap: row 3 is missing
  std::vector<RunResult> parts = {w->run(p, Backend::Cpu, a, nullptr),
                                  w->run(p, Backend::Cpu, b, nullptr)};
  try {
    w->merge_ranges(parts);
    FAIL() << "a gap was merged";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("part 1 covers [4, 8) of 8 rows"), std::string::npos)
        << e.what();
  }
  parts.pop_back();  // ends before the last row
  EXPECT_THROW(w->merge_ranges(parts), Error);
  EXPECT_THROW(w->merge_ranges({w->run(p, Backend::Cpu, RunRequest{}, nullptr)}), Error);
  RunRequest bad;
  bad.range = IndexRange{2, 9};
  try {
    w->run(p, Backend::Cpu, bad, nullptr);
    FAIL() << "a range past the cube was run";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("lsq pixel rows: range [2, 9) is not within [0, 8)"),
              std::string::npos)
        << e.what();
  }
}

TEST(SplitMerge, AStudyRangeOffTheBlocksIsRefused) {
  const auto w = make_workload("oscillators");
  ParamSet p = w->schema().defaults();
  p.set("ensemble.size", std::int64_t(200));
  p.set("integrator.steps", std::int64_t(20));
  p.set("integrator.transient", std::int64_t(5));
  RunRequest r;
  r.range = IndexRange{10, 64};
  try {
    w->run(p, Backend::Cpu, r, nullptr);
    FAIL() << "a range off the groups was run";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "does not start and end on groups of 8 members within blocks of 64"),
              std::string::npos)
        << e.what();
  }
  r.range = IndexRange{64, 68};  // inside a group
  EXPECT_THROW(w->run(p, Backend::Cpu, r, nullptr), Error);
  EXPECT_THROW(oscillators::split_study_members(0, 2), Error);
  const auto m = oscillators::split_study_members(200, 2);  // blocks of 64: 4 blocks
  EXPECT_EQ(m[0].end, 128u);
  EXPECT_EQ(m[1].end, 200u);
  const auto g = oscillators::split_study_members(200, 6);  // more ranges than blocks: groups
  ASSERT_EQ(g.size(), 6u);
  for (const IndexRange& x : g) EXPECT_EQ(x.end % 8 == 0 || x.end == 200, true) << x.end;
  EXPECT_EQ(g[0].end, 32u);  // 33.3 -> 32
  EXPECT_EQ(g[5].end, 200u);
}

TEST(SplitMerge, AWorkRangesResultSurvivesItsBytes) {
  // What a rank sends rank 0 (result_codec.hpp): decoded, it merges to the same result.
  const auto w = make_workload("oscillators");
  ParamSet p = w->schema().defaults();
  p.set("ensemble.size", std::int64_t(130));
  p.set("network.nodes", std::int64_t(5));
  p.set("integrator.steps", std::int64_t(40));
  p.set("integrator.transient", std::int64_t(10));
  std::vector<RunResult> parts, decoded;
  for (const IndexRange& r : split_work(w->work_axis(p), 2)) {
    RunRequest q;
    q.range = r;
    parts.push_back(w->run(p, Backend::Cpu, q, nullptr));
    const std::string bytes = encode_result(parts.back());
    decoded.push_back(decode_result(bytes, p));
    EXPECT_EQ(decoded.back().part->sums, parts.back().part->sums);
    EXPECT_EQ(decoded.back().part->begin, r.begin);
    // Truncated or with a byte flipped in the trailer: refused, not misread.
    EXPECT_THROW(decode_result(bytes.substr(0, bytes.size() - 3), p), Error);
    std::string bad = bytes;
    bad[bad.size() - 1] ^= 0x5a;
    EXPECT_THROW(decode_result(bad, p), Error);
  }
  expect_same_result(w->merge_ranges(parts), w->merge_ranges(decoded), "decoded parts");
}

}  // namespace
}  // namespace simscope::app
