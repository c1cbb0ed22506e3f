// What the front ends ask of a workload through its WorkloadDescriptor instead of testing its
// name (docs/dev/adding-a-workload.md): the field tree's status line and screenshot texts, the
// checkpoint a headless run keeps, --estimate and the progress line's work.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "field/field_status.hpp"
#include "job/checkpoint.hpp"
#include "oscillators/study_checkpoint.hpp"
#include "workload.hpp"

namespace simscope::app {
namespace {

/// A field result with the tree method's stats as a full run reports them.
RunResult tree_result() {
  RunResult r;
  r.workload = "field";
  r.stats = {
      {"rms_rel_error", 1.2e-6},     {"max_rel_error", 3.5e-6}, {"tree_build_seconds", 0.012},
      {"tree_eval_seconds", 0.0304}, {"tree_order", 4},         {"tree_theta", 0.55}};
  return r;
}

TEST(DescriptorHooks, FieldStatusTextWordsTheTree) {
  const WorkloadDescriptor& d = workload_descriptor("field");
  ASSERT_TRUE(d.status_text);
  RunResult r = tree_result();
  EXPECT_EQ(d.status_text(r),
            "tree build 12 ms, eval 30 ms, sample error 1.2e-06 rms, 3.5e-06 max");
  r.stats["tree_build_seconds"] = 0;  // a kept tree
  EXPECT_EQ(d.status_text(r), "tree kept, eval 30 ms, sample error 1.2e-06 rms, 3.5e-06 max");
  r.stats["tree_preview_build_seconds"] = 0.0071;  // built by the run's own preview
  EXPECT_EQ(d.status_text(r).substr(0, 27), "tree build 7 ms (preview), ");
  r.stats.erase("rms_rel_error");
  r.stats["error_pending"] = 1;
  EXPECT_EQ(d.status_text(r), "tree build 7 ms (preview), eval 30 ms, error \u2026 measuring");
  r.preview = true;
  EXPECT_EQ(d.status_text(r), "tree build 7 ms (preview), eval 30 ms, error \u2026 (preview)");
  RunResult direct;  // no tree: no line
  direct.workload = "field";
  direct.stats = {{"pairs", 100}};
  EXPECT_EQ(d.status_text(direct), "");
}

TEST(DescriptorHooks, FieldScreenshotTextsCarryTheStatusAndTheRule) {
  const WorkloadDescriptor& d = workload_descriptor("field");
  ASSERT_TRUE(d.screenshot_texts);
  const RunResult r = tree_result();
  const auto text = d.screenshot_texts(r);
  ASSERT_EQ(text.size(), 2u);
  EXPECT_EQ(text.at("tree_status"), d.status_text(r));
  EXPECT_EQ(text.at("tree_rule"), "order 4, theta 0.55");
  RunResult direct;
  direct.workload = "field";
  EXPECT_TRUE(d.screenshot_texts(direct).empty());
}

TEST(DescriptorHooks, FieldSubgridCheckIsNamedApartFromTheErrorSample) {
  // A 3 x 3 subgrid's per-target errors and targets (error, error_xyz): its lines say what they
  // are (subgrid, not the error sample of "Last run"), the median and max of these 9 values.
  const WorkloadDescriptor& d = workload_descriptor("field");
  RunResult r = tree_result();
  const std::vector<float> e = {4e-6f, 1e-6f, 9e-6f, 2e-6f, 3e-5f, 5e-6f, 7e-6f, 6e-6f, 8e-6f};
  std::vector<double> xyz;
  for (int k = 0; k < 9; ++k) xyz.insert(xyz.end(), {0.5 * (k % 3), 0.25 * (k / 3), -1.0});
  r.outputs.push_back({"error", "error", "", io::DType::Float32, {3, 3}, std::vector<float>(e)});
  r.outputs.push_back({"error_xyz", "", "", io::DType::Float64, {3, 3, 3}, std::move(xyz)});
  // The median of the 9 is the 5th smallest, 6e-6; the max 3e-5, at k = 4: x 0.5, y 0.25.
  EXPECT_EQ(d.screenshot_texts(r).at("subgrid_check"),
            "subgrid check: 3 x 3 targets\n"
            "subgrid median error: 6.0e-6 relative\n"
            "subgrid max error: 3.0e-5 relative\n"
            "subgrid max at: x=0.5 y=0.25 z=-1\n");
  const std::vector<StatLine> lines = field_subgrid_check(r);
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_NE(lines[0].definition.find("apart from the error sample"), std::string::npos);
  EXPECT_NE(lines[2].definition.find("|E_tree - E_direct| / |E_direct|"), std::string::npos);
  // Without the error outputs (a direct run, or a tree run without them): none.
  EXPECT_TRUE(field_subgrid_check(tree_result()).empty());
}

TEST(DescriptorHooks, ALiveOscillatorsFrameIsFirstFullOncePlotsDrawACurve) {
  // The window's --screenshot and --frames wait for it: the live view's frames (5 steps each,
  // a sample every 10 steps) count once R(t) and msd(t) hold 10 samples, at step 100.
  const WorkloadDescriptor& d = workload_descriptor("oscillators");
  ASSERT_TRUE(d.first_full);
  const auto w = make_workload("oscillators");
  ParamSet p = w->schema().defaults();
  p.set("ensemble.size", std::int64_t(2));
  p.set("network.nodes", std::int64_t(12));
  RunRequest live;
  live.command = RunCommand::Live;
  int first = 0;
  for (int frame = 1; frame <= 30 && !first; ++frame) {
    const RunResult r = w->run(p, Backend::Cpu, live, nullptr);
    ASSERT_EQ(r.stats.at("step"), 5.0 * frame);
    ASSERT_EQ(r.find("order_t")->shape.at(0), std::size_t(5 * frame / 10));
    if (d.first_full(r)) first = frame;
  }
  EXPECT_EQ(first, 20);
  // A long record.every: 200 frames' steps do (8 samples at 125 steps a sample).
  RunResult r;
  r.workload = "oscillators";
  r.params = p;
  r.stats = {{"live_members", 2}, {"step", 995}};
  r.outputs.push_back({"order_t", "", "", io::DType::Float64, {7}, std::vector<double>(7, 0.5)});
  EXPECT_FALSE(d.first_full(r));
  r.stats["step"] = 1000;
  EXPECT_TRUE(d.first_full(r));
  // A study's result (no live stats) always is; the other workloads have no such rule.
  p.set("integrator.steps", std::int64_t(40));
  p.set("integrator.transient", std::int64_t(10));
  EXPECT_TRUE(d.first_full(w->run(p, Backend::Cpu, RunRequest{}, nullptr)));
  EXPECT_FALSE(workload_descriptor("field").first_full);
  EXPECT_FALSE(workload_descriptor("lsq").first_full);
}

TEST(DescriptorHooks, OnlyTheWorkloadsThatNeedThemHaveHooks) {
  for (const char* name : {"lsq", "oscillators"}) {
    const WorkloadDescriptor& d = workload_descriptor(name);
    EXPECT_FALSE(d.status_text) << name;
    EXPECT_FALSE(d.screenshot_texts) << name;
  }
  for (const char* name : {"field", "lsq"}) {
    const WorkloadDescriptor& d = workload_descriptor(name);
    EXPECT_FALSE(d.open_checkpoint) << name;
    EXPECT_FALSE(d.estimate) << name;
    EXPECT_FALSE(d.work) << name;
  }
  EXPECT_EQ(find_workload_descriptor("nosuch"), nullptr);
  EXPECT_EQ(find_workload_descriptor("lsq"), &workload_descriptor("lsq"));
}

TEST(DescriptorHooks, OscillatorsWorkIsMembersNodesSteps) {
  const WorkloadDescriptor& d = workload_descriptor("oscillators");
  ASSERT_TRUE(d.work);
  ParamSet p = d.make()->schema().defaults();
  p.set("ensemble.size", std::int64_t(96));
  p.set("network.nodes", std::int64_t(50));
  p.set("integrator.steps", std::int64_t(1000));
  EXPECT_EQ(d.work(p), 96.0 * 50 * 1000);
  EXPECT_EQ(d.work_unit, "osc-steps");
}

TEST(DescriptorHooks, CheckpointsOpenThroughTheDescriptor) {
  namespace fs = std::filesystem;
  const std::string out = std::string(SIMSCOPE_TEST_TMP) + "/descriptor_checkpoint";
  fs::remove_all(out);
  // A workload that keeps none: no request, and --resume refused naming the ones that do.
  const ParamSet field = make_workload("field")->schema().defaults();
  EXPECT_EQ(open_checkpoint("field", field, Backend::Cpu, out, false, 60), nullptr);
  try {
    open_checkpoint("field", field, Backend::Cpu, out, true, 60);
    FAIL() << "--resume with the field was not refused";
  } catch (const CheckpointRefused& e) {
    EXPECT_STREQ(e.what(),
                 "--resume continues an interrupted oscillators study; workload field keeps no "
                 "checkpoint");
  }
  // The oscillators' study: a request of its own type in OUT/checkpoint, nothing written yet.
  const ParamSet osc = make_workload("oscillators")->schema().defaults();
  const auto ck = open_checkpoint("oscillators", osc, Backend::Cpu, out, false, 7);
  ASSERT_NE(ck, nullptr);
  EXPECT_NE(dynamic_cast<StudyCheckpointRequest*>(ck.get()), nullptr);
  EXPECT_EQ(ck->dir, checkpoint_dir(out));
  EXPECT_FALSE(ck->resume);
  EXPECT_EQ(ck->interval_s, 7);
  EXPECT_FALSE(ck->saved_nothing());  // no folder yet: nothing to remove
  EXPECT_EQ(interrupted_message("SIGINT", ck.get()),
            "interrupted by SIGINT before the first checkpoint; no outputs written (nothing to "
            "resume)");
  EXPECT_EQ(interrupted_message("SIGTERM", nullptr), "interrupted by SIGTERM; no outputs written");
  // Made ready for ranks: a new folder with a header and no progress, which a failed run drops.
  EXPECT_TRUE(ck->prepare_for_ranks(osc, Backend::Cpu));
  EXPECT_TRUE(ck->saved_nothing());
  EXPECT_FALSE(ck->prepare_for_ranks(osc, Backend::Cpu));  // found this time
  remove_checkpoint(ck->dir);
  EXPECT_FALSE(fs::exists(ck->dir));
  fs::remove_all(out);
}

}  // namespace
}  // namespace simscope::app
