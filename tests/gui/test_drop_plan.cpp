// What a file dropped onto the window means (app/gui/drop_plan.hpp), and the window's image-size
// field (app/frontend/image_size.hpp).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "drop_plan.hpp"
#include "image_size.hpp"
#include "io/npy.hpp"

namespace fs = std::filesystem;
using simscope::Error;
using simscope::app::DropPlan;
using simscope::app::plan_drop;

namespace {

class DropPlanTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("simscope-drop-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string npy(const std::string& name, std::vector<std::size_t> shape) {
    std::size_t n = 1;
    for (auto s : shape) n *= s;
    const std::vector<float> data(n, 1.f);
    const std::string p = (dir_ / name).string();
    simscope::io::write_npy(p, data.data(), shape);
    return p;
  }
  std::string text(const std::string& name, const std::string& body) {
    const std::string p = (dir_ / name).string();
    std::ofstream(p) << body;
    return p;
  }
  fs::path dir_;
};

std::string message_of(const std::string& path, const std::string& workload) {
  try {
    plan_drop(path, workload);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_F(DropPlanTest, NpyShapeFromTheReadersHeader) {
  // The shape comes from io::read_npy_header: a 1-D array is "(7,)" as numpy prints it.
  EXPECT_NE(message_of(npy("b.npy", {7}), "field").find("has shape (7,)"), std::string::npos);
  EXPECT_NE(message_of(npy("c.npy", {2, 3, 4, 5}), "lsq").find("has shape (2, 3, 4, 5)"),
            std::string::npos);
  const std::string bad = text("bad.npy", "not numpy");
  EXPECT_NE(message_of(bad, "field").find("not a .npy file"), std::string::npos);
}

TEST_F(DropPlanTest, FieldSources) {
  for (std::size_t cols : {3, 4}) {
    const std::string p = npy("s" + std::to_string(cols) + ".npy", {10, cols});
    const DropPlan d = plan_drop(p, "field");
    EXPECT_EQ(d.kind, DropPlan::Kind::Input);
    ASSERT_EQ(d.sets.size(), 1u);
    EXPECT_EQ(d.sets[0].first, "sources.file");
    EXPECT_EQ(d.sets[0].second, p);
  }
  EXPECT_EQ(plan_drop(text("s.csv", "x,y,z\n0,0,0\n"), "field").sets[0].first, "sources.file");
  const std::string m = message_of(npy("w.npy", {10, 5}), "field");
  EXPECT_NE(m.find("w.npy has shape (10, 5)"), std::string::npos) << m;
  EXPECT_NE(m.find("(P, 4)"), std::string::npos) << m;
}

TEST_F(DropPlanTest, LsqCubeAndDesign) {
  EXPECT_EQ(plan_drop(npy("cube.npy", {8, 4, 5}), "lsq").sets[0].first, "data.file");
  EXPECT_EQ(plan_drop(npy("A.npy", {8, 3}), "lsq").sets[0].first, "design.file");
  EXPECT_EQ(plan_drop(text("A.csv", "1 2\n3 4\n"), "lsq").sets[0].first, "design.file");
  const std::string m = message_of(npy("v.npy", {8}), "lsq");
  EXPECT_NE(m.find("has shape (8,)"), std::string::npos) << m;
}

TEST_F(DropPlanTest, OscillatorsStateAndEdgeList) {
  for (auto shape : {std::vector<std::size_t>{6, 2}, std::vector<std::size_t>{3, 6, 2}}) {
    const DropPlan d = plan_drop(npy("state.npy", shape), "oscillators");
    ASSERT_EQ(d.sets.size(), 2u);
    EXPECT_EQ(d.sets[0], (std::pair<std::string, std::string>{"init", "file"}));
    EXPECT_EQ(d.sets[1].first, "init.file");
  }
  const DropPlan e = plan_drop(text("net.txt", "0 1\n1 2\n"), "oscillators");
  ASSERT_EQ(e.sets.size(), 2u);
  EXPECT_EQ(e.sets[0], (std::pair<std::string, std::string>{"network.topology", "file"}));
  EXPECT_EQ(e.sets[1].first, "network.file");
  EXPECT_NE(message_of(npy("x.npy", {6, 3}), "oscillators").find("(N, 2) or (K, N, 2)"),
            std::string::npos);
}

TEST_F(DropPlanTest, PresetsAndRuns) {
  const DropPlan p = plan_drop(
      text("p.json", R"({"simscope_preset": 1, "workload": "lsq", "params": {}})"), "field");
  EXPECT_EQ(p.kind, DropPlan::Kind::Preset);
  EXPECT_EQ(p.workload, "lsq");
  const DropPlan r = plan_drop(
      text("run.json", R"({"workload": "field", "params": {"k": 2}, "outputs": []})"), "lsq");
  EXPECT_EQ(r.kind, DropPlan::Kind::Run);
  EXPECT_EQ(r.workload, "field");
  EXPECT_NE(message_of(text("o.json", R"({"a": 1})"), "field").find("neither a simscope preset"),
            std::string::npos);
  EXPECT_NE(message_of(text("n.json", "{not json"), "field").find("is not JSON"),
            std::string::npos);
}

TEST_F(DropPlanTest, FilesThatFitNothing) {
  const std::string m = message_of(text("photo.png", "x"), "field");
  EXPECT_NE(m.find("cannot use photo.png in field"), std::string::npos) << m;
  EXPECT_NE(m.find(".json preset"), std::string::npos) << m;
  EXPECT_NE(message_of((dir_ / "missing.npy").string(), "field").find("does not exist"),
            std::string::npos);
  EXPECT_NE(message_of(dir_.string(), "field").find("is a folder"), std::string::npos);
  // an edge list means nothing to field
  EXPECT_NE(message_of(text("net.txt", "0 1\n"), "field").find("cannot use net.txt"),
            std::string::npos);
}

TEST(ImageSize, ParsesWxH) {
  EXPECT_EQ(simscope::app::parse_image_size("1920x1080"), (std::pair<int, int>{1920, 1080}));
  EXPECT_EQ(simscope::app::parse_image_size(" 64 X 32 "), (std::pair<int, int>{64, 32}));
  for (const char* bad : {"", "1920", "0x10", "10x-1", "axb", "1x2x3", "2000000x10"}) {
    try {
      simscope::app::parse_image_size(bad);
      ADD_FAILURE() << bad;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("image size expects WxH"), std::string::npos);
      EXPECT_NE(std::string(e.what()).find(std::string("'") + bad + "'"), std::string::npos);
    }
  }
}
