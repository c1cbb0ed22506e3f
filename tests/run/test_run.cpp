// The run layer alone (simscope_run, no Qt/GL/GLFW/ImGui): a field, an lsq and an oscillators
// run end to end into .npy and run.json, checked against independent references (float64
// brute force, the normal equations, atan2 of the exported state), and an edited input file
// reloaded by one workload instance (issue 11, item 7).
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <thread>

#include "job/cache_key.hpp"
#include "core/error.hpp"
#include "output/export.hpp"
#include "field/field.hpp"
#include "field/field_params.hpp"
#include "io/npy.hpp"
#include "output/json.hpp"
#include "output/run_manifest.hpp"
#include "workload.hpp"

namespace simscope::app {
namespace {

namespace fs = std::filesystem;

fs::path scratch(const std::string& name) {
  const fs::path d = fs::path(SIMSCOPE_TEST_TMP) / ("run_" + name + "_" + std::to_string(getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

Json read_json(const fs::path& p) {
  std::ifstream f(p);
  return Json::parse(f);
}

/// Runs `w` on the CPU and exports the result into `dir`; returns the result.
RunResult run_and_export(Workload& w, const ParamSet& p, const fs::path& dir) {
  RunResult r = w.run(p, Backend::Cpu, RunRequest{}, nullptr);
  const Json manifest = run_manifest(r, "", RenderInfo{});
  const auto written = export_run(r, dir.string(), manifest, nullptr);
  EXPECT_EQ(written.size(), r.outputs.size() + 1);
  return r;
}

/// Checks run.json in `dir` against the result: workload, back end, outputs (file, dtype, shape,
/// unit) and parameters; and that no Qt version is claimed.
void check_manifest(const fs::path& dir, const RunResult& r) {
  const Json m = read_json(dir / "run.json");
  EXPECT_EQ(m["workload"], r.workload);
  EXPECT_EQ(m["backend"]["name"], "cpu");
  EXPECT_FALSE(m["simscope"].contains("qt"));
  ASSERT_EQ(m["outputs"].size(), r.outputs.size());
  for (std::size_t k = 0; k < r.outputs.size(); ++k) {
    const Json& o = m["outputs"][k];
    EXPECT_EQ(o["name"], r.outputs[k].name);
    EXPECT_EQ(o["file"], r.outputs[k].name + ".npy");
    EXPECT_EQ(o["dtype"], io::to_string(r.outputs[k].dtype));
    EXPECT_EQ(o["shape"].get<std::vector<std::size_t>>(), r.outputs[k].shape);
    EXPECT_EQ(o["unit"], r.outputs[k].unit);
    EXPECT_TRUE(fs::exists(dir / o["file"].get<std::string>()));
  }
  for (const auto& [name, v] : r.params.values()) {
    ASSERT_TRUE(m["params"].contains(name)) << name;
    if (auto i = std::get_if<std::int64_t>(&v))
      EXPECT_EQ(m["params"][name].get<std::int64_t>(), *i);
    if (auto d = std::get_if<double>(&v)) EXPECT_EQ(m["params"][name].get<double>(), *d);
    if (auto s = std::get_if<std::string>(&v)) EXPECT_EQ(m["params"][name].get<std::string>(), *s);
  }
  EXPECT_EQ(m["warnings"].size(), r.warnings.size());
  // The outputs are the descriptor's, in its order, with its labels and units (a field run by
  // direct sums: all but the last two, the tree method's error view).
  const WorkloadDescriptor& desc = workload_descriptor(r.workload);
  const bool direct_field = r.workload == "field" && r.stats.at("method_tree") == 0;
  ASSERT_EQ(desc.outputs.size(), r.outputs.size() + (direct_field ? 2 : 0));
  for (std::size_t k = 0; k < r.outputs.size(); ++k) {
    EXPECT_EQ(desc.outputs[k].name, r.outputs[k].name);
    EXPECT_EQ(desc.outputs[k].label, r.outputs[k].label);
    EXPECT_EQ(desc.outputs[k].unit, r.outputs[k].unit);
    EXPECT_EQ(desc.outputs[k].dtype, r.outputs[k].dtype);
  }
}

/// Sources (x, y, z, q) as a (P, 4) float64 .npy.
void write_sources(const fs::path& path, const std::vector<double>& xyzq) {
  io::write_npy(path.string(), xyzq.data(), {xyzq.size() / 4, 4});
}

/// |E| and phi at every target of `p`'s grid: float64 brute force over the sources.
void brute_force(const ParamSet& p, const std::vector<double>& s, std::vector<double>& mag,
                 std::vector<double>& phi) {
  const field::Targets t = field::make_targets(field::grid_from(p));
  const double k = p.get_double("k");
  mag.assign(t.size(), 0), phi.assign(t.size(), 0);
  for (std::size_t i = 0; i < t.size(); ++i) {
    double ex = 0, ey = 0, ez = 0, ph = 0;
    for (std::size_t j = 0; j + 3 < s.size(); j += 4) {
      // the sources pass through float32 (field.hpp), so the reference sees them rounded
      const double dx = t.x[i] - double(float(s[j])), dy = t.y[i] - double(float(s[j + 1])),
                   dz = t.z[i] - double(float(s[j + 2])), q = double(float(s[j + 3]));
      const double r = std::sqrt(dx * dx + dy * dy + dz * dz);
      ex += q * dx / (r * r * r), ey += q * dy / (r * r * r), ez += q * dz / (r * r * r);
      ph += q / r;
    }
    mag[i] = k * std::sqrt(ex * ex + ey * ey + ez * ez);
    phi[i] = k * ph;
  }
}

double max_rel(const io::NpyArray& a, const std::vector<double>& ref) {
  const std::vector<double> v = a.to_double();
  EXPECT_EQ(v.size(), ref.size());
  double d = 0, m = 0;
  for (std::size_t i = 0; i < std::min(v.size(), ref.size()); ++i)
    d = std::max(d, std::fabs(v[i] - ref[i])), m = std::max(m, std::fabs(ref[i]));
  return d / m;
}

TEST(RunLayer, FieldRunMatchesFloat64BruteForceAndReloadsAnEditedSourceFile) {
  const fs::path dir = scratch("field");
  const fs::path src = dir / "sources.npy";
  // Sources off the grid's plane (z != 0), so no coincidences.
  std::vector<double> s1 = {0.3, -0.2, 0.4, 1.0, -0.5, 0.6, -0.3, -2.0, 0.1, 0.1, 0.7, 0.5};
  write_sources(src, s1);
  const auto w = make_workload("field");
  ParamSet p = w->schema().defaults();
  p.set("sources.file", src.string());
  p.set("grid.size", std::int64_t(9));
  p.set("precision", std::string("fp64"));
  p.set("k", 2.0);
  const RunResult r1 = run_and_export(*w, p, dir / "out1");
  check_manifest(dir / "out1", r1);
  std::vector<double> mag, phi;
  brute_force(p, s1, mag, phi);
  EXPECT_LT(max_rel(io::read_npy((dir / "out1" / "magnitude.npy").string()), mag), 1e-6);
  EXPECT_LT(max_rel(io::read_npy((dir / "out1" / "potential.npy").string()), phi), 1e-6);
  EXPECT_EQ(read_json(dir / "out1" / "run.json")["stats"]["sources"], 3);

  // The same path, new contents (one source more, so the size changes too): the same workload
  // instance reloads it.
  std::vector<double> s2 = s1;
  for (double v : {-0.6, -0.6, -0.5, 3.0}) s2.push_back(v);
  s2[3] = -1.0;
  write_sources(src, s2);
  const RunResult r2 = run_and_export(*w, p, dir / "out2");
  brute_force(p, s2, mag, phi);
  EXPECT_LT(max_rel(io::read_npy((dir / "out2" / "magnitude.npy").string()), mag), 1e-6);
  EXPECT_LT(max_rel(io::read_npy((dir / "out2" / "potential.npy").string()), phi), 1e-6);
  EXPECT_EQ(r2.stats.at("sources"), 4);

  // Same size, other values, later modification time: reloaded as well.
  std::vector<double> s3 = s2;
  s3[0] = -0.9;
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  write_sources(src, s3);
  run_and_export(*w, p, dir / "out3");
  brute_force(p, s3, mag, phi);
  EXPECT_LT(max_rel(io::read_npy((dir / "out3" / "potential.npy").string()), phi), 1e-6);
}

// The window's field runs (RunRequest::defer_checks, method tree): the result comes without the
// measured error (stat error_pending 1, no rms_rel_error, no error view), follow_up() then
// brings the same result with it; together they equal a headless run of the same parameters
// (outputs bit for bit, the same stats but times). A preview before it leaves the ladder alone.
// Both name the method that ran (stat_texts "method", auto resolved), as run.json does.
TEST(RunLayer, FieldTreeErrorFollowsTheWindowsResult) {
  ParamSet p = make_workload("field")->schema().defaults();
  p.set("sources.count", std::int64_t(20000));
  p.set("sources.distribution", std::string("dipoles"));
  p.set("grid.size", std::int64_t(24));
  p.set("plane.offset", 1000.0);
  p.set("method", std::string("tree"));
  p.set("tree.tolerance", 1e-6);
  const auto headless = make_workload("field");
  const auto window = make_workload("field");
  EXPECT_FALSE(window->follow_up(nullptr));  // nothing ran yet
  RunRequest req;
  for (double z : {1000.0, 0.0, 3000.0}) {
    SCOPED_TRACE("plane.offset " + std::to_string(z));
    p.set("plane.offset", z);
    const RunResult h = headless->run(p, Backend::Cpu, req, nullptr);
    RunRequest win;
    win.defer_checks = true;
    win.preview = true;
    const RunResult pre = window->run(p, Backend::Cpu, win, nullptr);
    EXPECT_EQ(pre.stats.at("error_pending"), 1);
    EXPECT_FALSE(window->follow_up(nullptr));  // a preview's error is never measured
    win.preview = false;
    const RunResult frame = window->run(p, Backend::Cpu, win, nullptr);
    EXPECT_EQ(frame.stats.at("error_pending"), 1);
    EXPECT_EQ(frame.stats.count("rms_rel_error"), 0u);
    EXPECT_FALSE(frame.find("error"));
    const std::optional<RunResult> done = window->follow_up(nullptr);
    ASSERT_TRUE(done);
    EXPECT_FALSE(window->follow_up(nullptr));  // once
    EXPECT_EQ(done->stats.count("error_pending"), 0u);
    ASSERT_TRUE(done->find("error"));
    EXPECT_EQ(done->find("error")->host(), h.find("error")->host());
    EXPECT_EQ(done->find("magnitude")->host(), h.find("magnitude")->host());
    EXPECT_EQ(done->find("potential")->host(), h.find("potential")->host());
    for (const auto& [k, v] : h.stats)
      if (k.find("seconds") == std::string::npos && k.find("per_s") == std::string::npos)
        EXPECT_EQ(done->stats.count(k) ? done->stats.at(k) : -1.0, v) << k;
    // The window's one key more: the tree its preview built (the first plane only).
    EXPECT_EQ(done->stats.size() - done->stats.count("tree_preview_build_seconds"), h.stats.size());
    EXPECT_EQ(done->stats.count("tree_preview_build_seconds"), z == 1000.0 ? 1u : 0u);
    EXPECT_EQ(done->warnings, h.warnings);
    EXPECT_EQ(h.stat_texts.at("method"), "tree");
    EXPECT_EQ(done->stat_texts.at("method"), "tree");
  }
  p.set("method", std::string("auto"));  // 20000 x 576 pairs: direct
  const RunResult a = headless->run(p, Backend::Cpu, req, nullptr);
  EXPECT_EQ(a.stat_texts.at("method"), "direct");
  EXPECT_EQ(a.stats.at("method_tree"), 0);
  Json m = run_manifest(a, "", RenderInfo{});
  EXPECT_EQ(m["stats"]["method"], "direct");
}

TEST(RunLayer, LsqRunMatchesTheNormalEquations) {
  const fs::path dir = scratch("lsq");
  // A cube of M = 5 observations of H x W = 2 x 3 pixels, N = 2 unknowns, no gaps.
  const std::size_t M = 5, H = 2, W = 3, N = 2;
  std::mt19937 g(7);
  std::normal_distribution<double> n01;
  std::vector<double> A(M * N), cube(M * H * W);
  for (double& v : A) v = n01(g);
  for (double& v : cube) v = n01(g);
  io::write_npy((dir / "A.npy").string(), A.data(), {M, N});
  io::write_npy((dir / "cube.npy").string(), cube.data(), {M, H, W});
  const auto w = make_workload("lsq");
  ParamSet p = w->schema().defaults();
  p.set("data.file", (dir / "cube.npy").string());
  p.set("design.file", (dir / "A.npy").string());
  const RunResult r = run_and_export(*w, p, dir / "out");
  check_manifest(dir / "out", r);
  const io::NpyArray x = io::read_npy((dir / "out" / "solution.npy").string());
  ASSERT_EQ(x.shape, (std::vector<std::size_t>{N, H, W}));
  const std::vector<double> xv = x.to_double();
  // (A^T A) x = A^T b per pixel, by Cramer's rule in float64.
  double g00 = 0, g01 = 0, g11 = 0;
  for (std::size_t i = 0; i < M; ++i)
    g00 += A[i * N] * A[i * N], g01 += A[i * N] * A[i * N + 1], g11 += A[i * N + 1] * A[i * N + 1];
  const double det = g00 * g11 - g01 * g01;
  for (std::size_t px = 0; px < H * W; ++px) {
    double b0 = 0, b1 = 0;
    for (std::size_t i = 0; i < M; ++i)
      b0 += A[i * N] * cube[i * H * W + px], b1 += A[i * N + 1] * cube[i * H * W + px];
    EXPECT_NEAR(xv[px], (g11 * b0 - g01 * b1) / det, 1e-10) << px;
    EXPECT_NEAR(xv[H * W + px], (g00 * b1 - g01 * b0) / det, 1e-10) << px;
  }
  const std::vector<double> status =
      io::read_npy((dir / "out" / "status.npy").string()).to_double();
  for (double s : status) EXPECT_EQ(s, 0);
  EXPECT_EQ(read_json(dir / "out" / "run.json")["stats"]["status_ok"], 6);
}

TEST(RunLayer, OscillatorsStudyExportsPhasesOfItsState) {
  const fs::path dir = scratch("osc");
  const auto w = make_workload("oscillators");
  ParamSet p = w->schema().defaults();
  p.set("ensemble.size", std::int64_t(3));
  p.set("network.nodes", std::int64_t(8));
  p.set("integrator.steps", std::int64_t(200));
  p.set("integrator.transient", std::int64_t(50));
  const RunResult r = run_and_export(*w, p, dir / "out");
  check_manifest(dir / "out", r);
  const io::NpyArray st = io::read_npy((dir / "out" / "state.npy").string());
  const io::NpyArray ph = io::read_npy((dir / "out" / "phases.npy").string());
  ASSERT_EQ(st.shape, (std::vector<std::size_t>{3, 8, 2}));
  ASSERT_EQ(ph.shape, (std::vector<std::size_t>{3, 8}));
  const auto s = st.to_double(), f = ph.to_double();
  for (std::size_t q = 0; q < f.size(); ++q) {
    // theta in [0, 2 pi) or (-pi, pi]: compare on the circle
    const double d = std::remainder(f[q] - std::atan2(s[2 * q + 1], s[2 * q]), 2 * M_PI);
    EXPECT_NEAR(d, 0, 1e-12) << q;
  }
  const auto msd = io::read_npy((dir / "out" / "msd.npy").string()).to_double();
  double mean = 0;
  for (double v : msd) mean += v / double(msd.size());
  const Json m = read_json(dir / "out" / "run.json");
  EXPECT_NEAR(m["stats"]["msd_mean"].get<double>(), mean, 1e-12 * std::fabs(mean));
  EXPECT_EQ(m["stats"]["members"], 3);
}

TEST(RunLayer, RunCommandsReadBackTheirNamesAndAnUnknownOneIsRefusedWithTheKnownOnes) {
  for (RunCommand c : {RunCommand::Whole, RunCommand::Study, RunCommand::Live, RunCommand::Step,
                       RunCommand::Reset})
    EXPECT_EQ(parse_run_command(to_string(c)), c);
  EXPECT_STREQ(to_string(RunCommand::Whole), "");
  try {
    parse_run_command("rewind");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "unknown run command 'rewind' (study, live, step, reset)");
  }
}

TEST(RunLayer, OscillatorsLiveStepAdvancesOneStepAndResetReturnsToTheStart) {
  const auto w = make_workload("oscillators");
  ParamSet p = w->schema().defaults();
  p.set("ensemble.size", std::int64_t(2));
  p.set("network.nodes", std::int64_t(8));
  EXPECT_EQ(w->view_kind(p), ViewKind::Custom);
  RunRequest req;
  req.command = RunCommand::Reset;
  EXPECT_EQ(w->run(p, Backend::Cpu, req, nullptr).stats.at("step"), 0);
  req.command = RunCommand::Step;
  EXPECT_EQ(w->run(p, Backend::Cpu, req, nullptr).stats.at("step"), 1);
  EXPECT_EQ(w->run(p, Backend::Cpu, req, nullptr).stats.at("step"), 2);
  req.command = RunCommand::Reset;
  EXPECT_EQ(w->run(p, Backend::Cpu, req, nullptr).stats.at("step"), 0);
  p.set("view", std::string("phases"));
  EXPECT_EQ(w->view_kind(p), ViewKind::Plane);
}

TEST(RunLayer, UnusedSettingsAndCacheKeysComeFromTheSchema) {
  const auto w = make_workload("oscillators");
  ParamSet p = w->schema().defaults();
  p.set("network.file", std::string("edges.txt"));
  const auto warnings = p.schema().unused_warnings(p);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0],
            "network.file is not used: network.topology is 'watts_strogatz' (set "
            "network.topology=file to read the edge list)");
  EXPECT_FALSE(p.schema().used(p, "network.file"));
  // An unused file is no part of the key; a used one is, by size and time.
  EXPECT_EQ(cache_key(p, {"network.topology", "network.file"}), "watts_strogatz|-");
  p.set("network.topology", std::string("file"));
  p.set("network.k", std::int64_t(6));
  EXPECT_EQ(p.schema().unused_warnings(p).at(0),
            "network.topology=file, so network.k is not used (settings of generated networks)");
  EXPECT_EQ(cache_key(p, {"network.file", "network.k"}), "edges.txt@?|-");
}

TEST(RunLayer, TheReasonAParameterIsUnusedComesFromItsRule) {
  // What the window shows on hover over a parameter it draws disabled.
  ParamSet f = make_workload("field")->schema().defaults();
  const Schema& fs = f.schema();
  for (const char* n : {"sources.count", "sources.distribution", "tree.tolerance", "plane"})
    EXPECT_EQ(fs.unused_reason(f, n), "") << n << " is used by default";
  f.set("sources.file", std::string("sources.npy"));
  EXPECT_EQ(fs.unused_reason(f, "sources.count"),
            "not used: sources.file is set (settings of generated sources)");
  EXPECT_EQ(fs.unused_reason(f, "grid.size"), "");
  f.set("method", std::string("direct"));
  EXPECT_EQ(fs.unused_reason(f, "tree.tolerance"), "not used: method=direct (direct sums are exact)");
  EXPECT_FALSE(fs.used(f, "tree.tolerance"));
  ParamSet o = make_workload("oscillators")->schema().defaults();
  EXPECT_EQ(o.schema().unused_reason(o, "network.file"),
            "not used: network.topology is 'watts_strogatz' (set network.topology=file to read "
            "the edge list)");
  ParamSet l = make_workload("lsq")->schema().defaults();
  EXPECT_EQ(l.schema().unused_reason(l, "data.mask").rfind("not used: data.file is not set (", 0),
            0u);
  EXPECT_THROW(fs.unused_reason(f, "no.such"), Error);
  // Every parameter a warning names is one unused_reason gives a reason for, and no other.
  for (const ParamSpec& s : fs.specs())
    EXPECT_EQ(fs.unused_reason(f, s.name).empty(), fs.used(f, s.name)) << s.name;
}

}  // namespace
}  // namespace simscope::app

namespace simscope::app {
namespace {

TEST(RunLayer, AUseRuleNamingNoParameterOfTheSchemaIsRefused) {
  const std::vector<ParamSpec> specs = {
      param_spec("a.file", ParamType::Path, std::string(), 1, 0, "", "a file")};
  using C = ParamCondition;
  EXPECT_THROW(Schema("w", specs, {{{{"a.file", C::Op::Set, ""}}, {"a.seed"}, "why"}}), Error);
  EXPECT_THROW(Schema("w", specs, {{{{"a.mode", C::Op::Set, ""}}, {"a.file"}, "why"}}), Error);
  EXPECT_NO_THROW(Schema("w", specs, {{{{"a.file", C::Op::Set, ""}}, {"a.file"}, "why"}}));
}

}  // namespace
}  // namespace simscope::app
