// Study checkpoints on disk (study_checkpoint.hpp): what is written reads back bit for bit, a
// write that crashed half-way leaves the previous checkpoint readable, a changed parameter is
// named, broken checkpoints are refused with the file's name.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "../compute/test_bits.hpp"
#include "core/error.hpp"
#include "oscillators/ensemble.hpp"
#include "oscillators/model.hpp"
#include "oscillators/oscillators_params.hpp"
#include "oscillators/study.hpp"
#include "oscillators/topology.hpp"
#include "oscillators/study_checkpoint.hpp"
#include "study_checkpoint_v3.hpp"

namespace simscope::app {
namespace {

namespace osc = simscope::oscillators;
namespace fs = std::filesystem;

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

using simscope::test::same_bits;

/// Removes the scratch folders when the tests end.
class ScratchCleanup : public ::testing::Environment {
 public:
  void TearDown() override {
    fs::remove_all(fs::temp_directory_path() / ("simscope-ckpt-" + std::to_string(::getpid())));
  }
};
const auto* const kCleanup = ::testing::AddGlobalTestEnvironment(new ScratchCleanup);

fs::path scratch(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("simscope-ckpt-" + std::to_string(::getpid())) /
                     name / "checkpoint";
  fs::remove_all(d.parent_path());
  return d;
}

/// A study with a non-finite member, stopped at its `at`-th save: the progress saved then
/// (a finished block, a block under way with samples) and the parameters.
struct Stopped {
  ParamSet params = osc::schema().defaults();
  osc::StudyProgress sp;
  explicit Stopped(int at) {
    params.set_from_string("ensemble.size", "150");
    params.set_from_string("network.nodes", "12");
    params.set_from_string("integrator.steps", "700");
    params.set_from_string("integrator.transient", "100");
    params.set_from_string("record.every", "9");
    const osc::Topologies t = osc::make_topologies(params);
    osc::State s0 = osc::make_initial_state(params);
    s0.x[std::size_t(3) * 12] = 1e3;  // member 3 goes non-finite
    auto e = osc::make_ensemble(Backend::Cpu);
    Progress progress;
    int saves = 0;
    osc::StudyCheckpointing cp;
    cp.interval_s = 1e-9;
    cp.save = [&](const osc::StudyProgress& now) {
      sp = now;
      if (++saves == at) progress.cancel = true;
    };
    osc::StudyProgress run;
    try {
      osc::run_study_blocks(*e, t, s0, osc::study_options_from(params), run, cp, &progress);
    } catch (const Cancelled&) {
    }
  }
};

void expect_same(const osc::StudyProgress& a, const osc::StudyProgress& b) {
  EXPECT_EQ(a.members, b.members);
  EXPECT_EQ(a.nodes, b.nodes);
  EXPECT_EQ(a.samples, b.samples);
  EXPECT_EQ(a.block, b.block);
  EXPECT_EQ(a.blocks_done, b.blocks_done);
  EXPECT_TRUE(same_bits(a.msd, b.msd));
  EXPECT_EQ(a.failed, b.failed);
  EXPECT_EQ(a.final_state.members, b.final_state.members);
  EXPECT_TRUE(same_bits(a.final_state.x, b.final_state.x));
  EXPECT_TRUE(same_bits(a.final_state.y, b.final_state.y));
  EXPECT_TRUE(same_bits(a.msd_sum, b.msd_sum));
  EXPECT_TRUE(same_bits(a.order_sum, b.order_sum));
  EXPECT_EQ(a.finite, b.finite);
  EXPECT_EQ(a.partial, b.partial);
  EXPECT_EQ(a.snapshot.step, b.snapshot.step);
  EXPECT_TRUE(same_bits(a.snapshot.state.x, b.snapshot.state.x));
  EXPECT_TRUE(same_bits(a.snapshot.state.y, b.snapshot.state.y));
  EXPECT_TRUE(same_bits(a.snapshot.total, b.snapshot.total));
  EXPECT_TRUE(same_bits(a.snapshot.window, b.snapshot.window));
  EXPECT_EQ(a.snapshot.failed, b.snapshot.failed);
  // The block under way's samples: its reduction groups' sums (what its series are made of)
  // bit for bit; the means are recomputed from them (only their length is used).
  EXPECT_FALSE(a.series.group_msd.empty());
  EXPECT_TRUE(same_bits(a.series.group_msd, b.series.group_msd));
  EXPECT_TRUE(same_bits(a.series.group_order, b.series.group_order));
  EXPECT_EQ(a.series.group_finite, b.series.group_finite);
  EXPECT_EQ(a.series.msd.size(), b.series.msd.size());
  EXPECT_EQ(a.series.finite, b.series.finite);
  EXPECT_EQ(a.seconds, b.seconds);
}

TEST(StudyCheckpoint, ReadsBackBitForBit) {
  const Stopped s(11);  // block 0 done (9 saves: 8 segment ends, its end), block 1 under way
  ASSERT_EQ(s.sp.blocks_done, 1);
  ASSERT_TRUE(s.sp.partial);
  ASSERT_GT(s.sp.snapshot.step, 0);
  ASSERT_TRUE(std::isnan(s.sp.msd[3]));  // the failed member's NaNs travel too
  const std::string dir = scratch("roundtrip").string();
  test::StudyCheckpointV3Writer w(dir, "oscillators", s.params, Backend::Cpu);
  w.write(s.sp);
  const auto h = read_checkpoint_header(dir);
  ASSERT_TRUE(h.has_value());
  EXPECT_EQ(h->generation, 1);
  EXPECT_EQ(h->backend, "cpu");
  EXPECT_EQ(h->params.at("ensemble.size"), "150");
  EXPECT_TRUE(h->partial);
  EXPECT_EQ(h->partial_step, s.sp.snapshot.step);
  expect_same(s.sp, read_study_checkpoint(dir, *h));
  check_resumable(*h, "oscillators", s.params, Backend::Cpu, dir);  // the same: accepted
}

TEST(StudyCheckpoint, ACrashedWriteLeavesThePreviousOne) {
  const Stopped first(2), later(12);
  const std::string dir = scratch("crash").string();
  {
    test::StudyCheckpointV3Writer w(dir, "oscillators", first.params, Backend::Cpu);
    w.write(first.sp);
  }
  // A later write that died before its checkpoint.json: its files (complete or not) are there.
  const auto touch = [&](const std::string& name, const std::string& text) {
    std::ofstream(fs::path(dir) / name) << text;
  };
  touch("g000002.sums.npy", "garbage");
  touch("g000002.partial_state.npy.tmp", "half");
  touch("block_00000.msd.npy.tmp", "half");
  touch("checkpoint.json.tmp", "{");
  auto h = read_checkpoint_header(dir);
  ASSERT_TRUE(h.has_value());
  EXPECT_EQ(h->generation, 1);
  expect_same(first.sp, read_study_checkpoint(dir, *h));
  // Resuming from it and writing again: the next generation, the strays gone.
  test::StudyCheckpointV3Writer w(dir, "oscillators", later.params, Backend::Cpu, &*h);
  w.write(later.sp);
  h = read_checkpoint_header(dir);
  EXPECT_EQ(h->generation, 2);
  expect_same(later.sp, read_study_checkpoint(dir, *h));
  for (const auto& f : fs::directory_iterator(dir)) {
    const std::string n = f.path().filename().string();
    EXPECT_FALSE(n.size() > 4 && n.substr(n.size() - 4) == ".tmp") << n;
    EXPECT_FALSE(n.rfind("g000001.", 0) == 0) << n;
  }
}

TEST(StudyCheckpoint, ChangedParametersAreNamed) {
  const Stopped s(2);
  const std::string dir = scratch("params").string();
  test::StudyCheckpointV3Writer(dir, "oscillators", s.params, Backend::Cpu).write(s.sp);
  const auto h = read_checkpoint_header(dir);
  ASSERT_TRUE(h.has_value());
  ParamSet p = s.params;
  p.set_from_string("model.c", "1.5");
  EXPECT_NE(error_of([&] {
              check_resumable(*h, "oscillators", p, Backend::Cpu, dir);
            }).find("--resume: model.c is 1.5 here but 1 in the checkpoint " + dir),
            std::string::npos);
  p = s.params;
  p.set_from_string("init.seed", "7");
  EXPECT_NE(error_of([&] {
              check_resumable(*h, "oscillators", p, Backend::Cpu, dir);
            }).find("init.seed is 7 here but 1"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              check_resumable(*h, "oscillators", s.params, Backend::Cuda, dir);
            }).find("--backend is cuda here but cpu"),
            std::string::npos);
  EXPECT_THROW(check_resumable(*h, "oscillators", p, Backend::Cpu, dir), CheckpointRefused);
  // What does not change a study's results may differ.
  p = s.params;
  p.set_from_string("view", "phases");
  p.set_from_string("live.history", "50");
  check_resumable(*h, "oscillators", p, Backend::Cpu, dir);
}

TEST(StudyCheckpoint, AnEditedInputFileIsRefused) {
  const Stopped s(2);
  const std::string dir = scratch("files").string();
  const std::string edges = (fs::path(dir).parent_path() / "edges.txt").string();
  fs::create_directories(fs::path(edges).parent_path());
  std::ofstream(edges) << "0 1\n1 2\n";
  ParamSet p = s.params;
  p.set_from_string("network.topology", "file");
  p.set_from_string("network.file", edges);
  test::StudyCheckpointV3Writer(dir, "oscillators", p, Backend::Cpu).write(s.sp);
  const auto h = read_checkpoint_header(dir);
  ASSERT_TRUE(h.has_value());
  ASSERT_EQ(h->files.count("network.file"), 1u);
  check_resumable(*h, "oscillators", p, Backend::Cpu, dir);  // the same file: resumable
  std::ofstream(edges, std::ios::app) << "2 3\n";            // edited: another size
  EXPECT_NE(error_of([&] { check_resumable(*h, "oscillators", p, Backend::Cpu, dir); })
                .find("--resume: the file network.file = " + edges +
                      " was changed since the "
                      "checkpoint was written"),
            std::string::npos);
}

TEST(StudyCheckpoint, BrokenCheckpointsAreRefusedNamingTheFile) {
  const std::string dir = scratch("broken").string();
  EXPECT_FALSE(read_checkpoint_header(dir).has_value());  // none yet
  const Stopped s(11);
  test::StudyCheckpointV3Writer(dir, "oscillators", s.params, Backend::Cpu).write(s.sp);
  const auto h = read_checkpoint_header(dir);
  ASSERT_TRUE(h.has_value());
  // A missing block file, a file of the wrong shape.
  fs::rename(fs::path(dir) / "block_00000.state.npy", fs::path(dir) / "moved.npy");
  EXPECT_NE(error_of([&] {
              read_study_checkpoint(dir, *h);
            }).find("block_00000.state.npy: missing from the checkpoint"),
            std::string::npos);
  fs::copy_file(fs::path(dir) / "block_00000.msd.npy", fs::path(dir) / "block_00000.state.npy");
  EXPECT_NE(error_of([&] { read_study_checkpoint(dir, *h); }).find("expected float64 (64, 12, 2)"),
            std::string::npos);
  // Not a checkpoint, another version.
  const std::string json = (fs::path(dir) / "checkpoint.json").string();
  std::ofstream(json) << "{\"format\": \"something else\"}";
  EXPECT_NE(error_of([&] { read_checkpoint_header(dir); }).find("not a simscope study checkpoint"),
            std::string::npos);
  std::ofstream(json) << "{\"format\": \"simscope study checkpoint\", \"version\": 9}";
  EXPECT_NE(error_of([&] { read_checkpoint_header(dir); }).find("checkpoint version 9"),
            std::string::npos);
  // Versions 1 and 2 (series summed per block, before the reduction groups): refused, saying so.
  for (int v : {1, 2}) {
    std::ofstream(json) << "{\"format\": \"simscope study checkpoint\", \"version\": " << v << "}";
    const std::string e = error_of([&] { read_checkpoint_header(dir); });
    EXPECT_NE(
        e.find("checkpoint version " + std::to_string(v) + " was written by an earlier simscope"),
        std::string::npos)
        << e;
    EXPECT_NE(e.find("remove the folder to start over"), std::string::npos) << e;
  }
  // Version 4: read as version 5 for 64 members or more (the same files and groups); refused,
  // naming it, below 64 (then summed per 8 members, now per member), and so is version 3.
  const auto header_json = [](int v, int members) {
    return "{\"format\": \"simscope study checkpoint\", \"version\": " + std::to_string(v) +
           ", \"members\": " + std::to_string(members) +
           ", \"nodes\": 10, \"block\": 64, \"samples\": 3}";
  };
  std::ofstream(json) << header_json(4, 64);
  const auto v4 = read_checkpoint_header(dir);
  ASSERT_TRUE(v4.has_value());
  EXPECT_EQ(v4->version, kCheckpointVersionWritten);
  EXPECT_EQ(kCheckpointVersionWritten, 5);
  for (int v : {3, 4}) {
    std::ofstream(json) << header_json(v, 63);
    const std::string e = error_of([&] { read_checkpoint_header(dir); });
    EXPECT_NE(e.find("checkpoint version " + std::to_string(v) + " of a study of 63 members"),
              std::string::npos)
        << e;
    EXPECT_NE(e.find("remove the folder to start over"), std::string::npos) << e;
  }
  std::ofstream(json) << header_json(5, 6);
  EXPECT_EQ(read_checkpoint_header(dir)->members, 6);
  remove_checkpoint(dir);
  EXPECT_FALSE(fs::exists(dir));
}

}  // namespace
}  // namespace simscope::app
