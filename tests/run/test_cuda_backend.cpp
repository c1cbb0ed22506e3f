// The run layer's adapters on the CUDA back end (issue 25 item 6), each against the CPU back
// end's run of the same parameters: the field's outputs left in device memory and downloaded on
// the first host() read; a held result unchanged by later runs of the same workload
// (keep-on-device: the evaluator must not reuse memory a result still holds); work ranges run on
// CUDA and merged (field by targets and by sources, lsq by pixel rows, oscillators by members);
// lsq's methods that run on the host under CUDA (method_on_host); the oscillators' live state
// kept on the device; lsq's maps kept on the device (issue 29: views, held results, ranges
// merged there). Without a usable device every test skips (fails under
// SIMSCOPE_REQUIRE_CUDA=1: test_cuda_skip.hpp), so tests/gpu/run.sh's "run layer" step proves
// these paths on a GPU.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>

#include "../compute/test_cuda_skip.hpp"
#include "core/backend.hpp"
#include "lsq/lsq.hpp"
#include "lsq/lsq_params.hpp"
#include "ranges/split_merge.hpp"
#include "oscillators/study_checkpoint.hpp"
#include "workload.hpp"

namespace simscope::app {
namespace {

namespace fs = std::filesystem;

/// The values of output `o` in double precision (downloaded from the device if they live there).
std::vector<double> values(const OutputArray& o) { return o.data.converted<double>(); }

/// max |a - b| / max |b| over the entries where b is finite; a must be NaN where b is (lsq's
/// all-missing pixels). Infinity on a shape mismatch or a NaN where b has a number.
double rel_error(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return INFINITY;
  double d = 0, m = 0;
  for (std::size_t i = 0; i < b.size(); ++i) {
    if (std::isnan(b[i])) {
      if (!std::isnan(a[i])) return INFINITY;
      continue;
    }
    const double diff = std::fabs(a[i] - b[i]);
    d = std::max(d, std::isfinite(diff) ? diff : INFINITY);
    m = std::max(m, std::fabs(b[i]));
  }
  return m > 0 ? d / m : d;
}

/// `got` has `ref`'s outputs (names, dtypes, shapes) and each within `tol` (rel_error), except
/// those named in `skip`.
void expect_close(const RunResult& got, const RunResult& ref, double tol, const std::string& what,
                  const std::vector<std::string>& skip = {}) {
  SCOPED_TRACE(what);
  ASSERT_EQ(got.outputs.size(), ref.outputs.size());
  for (std::size_t k = 0; k < ref.outputs.size(); ++k) {
    const OutputArray &a = got.outputs[k], &b = ref.outputs[k];
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.dtype, b.dtype) << b.name;
    EXPECT_EQ(a.shape, b.shape) << b.name;
    if (std::find(skip.begin(), skip.end(), b.name) != skip.end()) continue;
    EXPECT_LE(rel_error(values(a), values(b)), tol) << b.name;
  }
  EXPECT_EQ(got.warnings, ref.warnings);
}

ParamSet field_params(const std::string& precision, std::int64_t seed) {
  ParamSet p = make_workload("field")->schema().defaults();
  p.set("sources.count", std::int64_t(3000));
  p.set("sources.seed", seed);
  p.set("grid.size", std::int64_t(41));  // not a multiple of a tile or a block's targets
  p.set("precision", precision);
  p.set("method", std::string("direct"));
  return p;
}

// fp32 results of random-sign sources: each back end within ~1.8e-6 of float64 relative to the
// plane's maximum (test_field_cuda.cpp, kFp32Tol); fp64: 1e-6 leaves room over the GPU's fp64
// sums and still fails on a lost tile or a wrong sign.
constexpr double kFieldFp32Tol = 5e-6;
constexpr double kFieldFp64Tol = 1e-6;

TEST(CudaBackend, FieldOutputsStayOnTheDeviceUntilReadAndEqualTheCpu) {
  SKIP_WITHOUT_CUDA();
  for (const std::string prec : {"fp32", "fp64"}) {
    for (const std::string plane : {"xy", "box"}) {
      SCOPED_TRACE(prec + " " + plane);
      ParamSet p = field_params(prec, 3);
      p.set("plane", plane);
      const auto gpu = make_workload("field");
      const RunResult g = gpu->run(p, Backend::Cuda, RunRequest{}, nullptr);
      EXPECT_EQ(g.backend, Backend::Cuda);
      // The view's outputs live on the device, with no host copy until something reads them.
      const OutputArray* mag = g.find("magnitude");
      ASSERT_NE(mag, nullptr);
      EXPECT_NE(mag->data.device(), nullptr);
      EXPECT_FALSE(mag->data.host_ready());
      const RunResult c = make_workload("field")->run(p, Backend::Cpu, RunRequest{}, nullptr);
      expect_close(g, c, prec == "fp32" ? kFieldFp32Tol : kFieldFp64Tol, "CUDA against CPU");
      EXPECT_TRUE(mag->data.host_ready());
      EXPECT_EQ(g.stats.at("skipped_coincidences"), c.stats.at("skipped_coincidences"));
      EXPECT_GT(g.stats.at("peak_device_bytes"), 0);
    }
  }
}

TEST(CudaBackend, AHeldFieldResultIsUnchangedByLaterRuns) {
  SKIP_WITHOUT_CUDA();
  // The GUI holds the shown result while the next runs compute: the evaluator must leave the
  // memory that result holds alone (output_data.hpp) and allocate anew.
  const auto w = make_workload("field");
  const ParamSet p1 = field_params("fp32", 1), p2 = field_params("fp32", 2);
  const RunResult first = w->run(p1, Backend::Cuda, RunRequest{}, nullptr);
  const float* held = first.find("magnitude")->data.device();
  ASSERT_NE(held, nullptr);
  RunResult second = w->run(p2, Backend::Cuda, RunRequest{}, nullptr);
  EXPECT_NE(second.find("magnitude")->data.device(), held);
  second = w->run(p2, Backend::Cuda, RunRequest{}, nullptr);  // and once more, the first freed
  const auto cpu = make_workload("field");
  expect_close(first, cpu->run(p1, Backend::Cpu, RunRequest{}, nullptr), kFieldFp32Tol,
               "the held first result, read after two later runs");
  expect_close(second, cpu->run(p2, Backend::Cpu, RunRequest{}, nullptr), kFieldFp32Tol,
               "the last result");
}

TEST(CudaBackend, FieldRangesOnCudaMergeToTheWholeRun) {
  SKIP_WITHOUT_CUDA();
  for (const std::string prec : {"fp32", "fp64"}) {
    SCOPED_TRACE(prec);
    const ParamSet p = field_params(prec, 5);
    const double tol = prec == "fp32" ? kFieldFp32Tol : kFieldFp64Tol;
    const RunResult whole = make_workload("field")->run(p, Backend::Cuda, RunRequest{}, nullptr);
    for (std::size_t parts : {2, 7}) {
      const auto w = make_workload("field");
      expect_close(run_split(*w, p, Backend::Cuda, parts), whole, tol,
                   std::to_string(parts) + " target ranges");
      // By sources: the device's fp64 share sums added on the host (field_merge.cpp), the
      // same sums in another order.
      const auto s = make_workload("field");
      expect_close(run_split(*s, p, Backend::Cuda, parts, nullptr, "sources"), whole, tol,
                   std::to_string(parts) + " source shares");
    }
  }
}

TEST(CudaBackend, FieldTreeOnCudaKeepsItsTolerance) {
  SKIP_WITHOUT_CUDA();
  ParamSet p = field_params("fp32", 7);
  p.set("sources.count", std::int64_t(20000));
  p.set("method", std::string("tree"));
  p.set("tree.tolerance", 1e-4);
  const RunResult g = make_workload("field")->run(p, Backend::Cuda, RunRequest{}, nullptr);
  ASSERT_NE(g.find("error"), nullptr);
  EXPECT_EQ(g.stats.at("tolerance_met"), 1);
  // The whole plane's RMS relative error of E against the CPU's fp64 direct sums: the promise
  // (README: tree.tolerance bounds it), measured on every target rather than the run's sample.
  ParamSet d = p;
  d.set("method", std::string("direct"));
  d.set("precision", std::string("fp64"));
  const RunResult c = make_workload("field")->run(d, Backend::Cpu, RunRequest{}, nullptr);
  double num = 0, den = 0;
  const auto &gx = g.find("ex")->host(), &gy = g.find("ey")->host(), &gz = g.find("ez")->host();
  const auto &cx = c.find("ex")->host(), &cy = c.find("ey")->host(), &cz = c.find("ez")->host();
  for (std::size_t i = 0; i < cx.size(); ++i) {
    const double dx = double(gx[i]) - cx[i], dy = double(gy[i]) - cy[i], dz = double(gz[i]) - cz[i];
    num += dx * dx + dy * dy + dz * dz;
    den += double(cx[i]) * cx[i] + double(cy[i]) * cy[i] + double(cz[i]) * cz[i];
  }
  EXPECT_LE(std::sqrt(num / den), 1e-4);
}

ParamSet lsq_params(const std::string& method, const std::string& precision) {
  ParamSet p = make_workload("lsq")->schema().defaults();
  p.set("synth.height", std::int64_t(23));
  p.set("synth.width", std::int64_t(37));
  p.set("synth.observations", std::int64_t(12));
  p.set("synth.unknowns", std::int64_t(5));
  p.set("synth.nan_fraction", 0.45);  // pixels of every status
  p.set("method", method);
  p.set("precision", precision);
  return p;
}

/// lsq on CUDA against the CPU: counts and statuses equal, solutions within `tol` (relative to
/// the largest), residuals within 1e-4 (1 + r), condition estimates within 1e3x (Hager's
/// estimate may take another path where pixels take the downdate or minimum-norm paths:
/// test_lsq_cuda.cpp bounds them there, per pixel, at the compute level).
void expect_lsq_close(const RunResult& g, const RunResult& c, double tol, const std::string& what) {
  SCOPED_TRACE(what);
  for (const char* name : {"count", "status"})
    EXPECT_EQ(values(*g.find(name)), values(*c.find(name))) << name;
  EXPECT_LE(rel_error(values(*g.find("solution")), values(*c.find("solution"))), tol);
  const auto gr = values(*g.find("residual")), cr = values(*c.find("residual"));
  const auto gc = values(*g.find("condition")), cc = values(*c.find("condition"));
  ASSERT_EQ(gr.size(), cr.size());
  ASSERT_EQ(gc.size(), cc.size());
  for (std::size_t i = 0; i < cr.size(); ++i) {
    if (std::isnan(cr[i])) {
      EXPECT_TRUE(std::isnan(gr[i]) && std::isnan(gc[i])) << i;
      continue;
    }
    EXPECT_NEAR(gr[i], cr[i], 1e-4 * (1 + cr[i])) << i;
    if (std::isfinite(cc[i]) && cc[i] > 0) {
      EXPECT_GE(gc[i] / cc[i], 1e-3) << i;
      EXPECT_LE(gc[i] / cc[i], 1e3) << i;
    }
  }
  for (const char* s : {"status_ok", "status_underdetermined", "status_rank_deficient",
                        "status_all_missing", "design_rank"})
    EXPECT_EQ(g.stats.at(s), c.stats.at(s)) << s;
}

TEST(CudaBackend, LsqOnCudaEqualsTheCpuAndSaysWhereItsMethodRan) {
  SKIP_WITHOUT_CUDA();
  for (const std::string method : {"auto", "normal", "qr", "svd", "downdate"}) {
    for (const std::string prec : {"fp32", "fp64"}) {
      SCOPED_TRACE(method + " " + prec);
      const ParamSet p = lsq_params(method, prec);
      const RunResult g = make_workload("lsq")->run(p, Backend::Cuda, RunRequest{}, nullptr);
      const RunResult c = make_workload("lsq")->run(p, Backend::Cpu, RunRequest{}, nullptr);
      EXPECT_EQ(g.backend, Backend::Cuda);
      const bool on_host = lsq::method_runs_on(lsq::options_from(p).method, Backend::Cuda) ==
                           Backend::Cpu;
      EXPECT_EQ(g.stats.at("method_on_host"), on_host ? 1 : 0);
      EXPECT_EQ(c.stats.at("method_on_host"), 0);
      // fp32 auto: the pixels with gaps are float64 solves on both, rounded to float32; the
      // CPU sums gap-free pixels' float32 solutions from float32 products (docs/lsq.md: tested
      // <= 1e-6), the CUDA solver rounds its float64 ones.
      const double tol = prec == "fp64" ? 1e-9 : method == "auto" ? 1e-6 : 1e-4;
      expect_lsq_close(g, c, tol, "CUDA against CPU");
    }
  }
}

TEST(CudaBackend, LsqRowRangesOnCudaMergeToTheWholeRun) {
  SKIP_WITHOUT_CUDA();
  for (const std::string method : {"auto", "normal"}) {
    SCOPED_TRACE(method);
    const ParamSet p = lsq_params(method, "fp64");
    const RunResult whole = make_workload("lsq")->run(p, Backend::Cuda, RunRequest{}, nullptr);
    for (std::size_t parts : {2, 5}) {
      const auto w = make_workload("lsq");
      const RunResult split = run_split(*w, p, Backend::Cuda, parts);
      expect_lsq_close(split, whole, 1e-12, std::to_string(parts) + " row ranges");
    }
  }
}

/// Issue 29: lsq's maps stay on the device on CUDA. A run shown as its residual map moves no
/// map to the host: the outputs are device memory, the view's image is made there and its
/// values equal the host path's image (the CPU run's, within the CUDA tolerances); the warnings
/// come without a download; the solution is never copied to the host (host_ready stays false);
/// export-style reads download each map once, equal to the CPU's.
TEST(CudaBackend, LsqMapsStayOnTheDeviceAndTheResidualViewMovesNoMap) {
  SKIP_WITHOUT_CUDA();
  for (const std::string method : {"auto", "qr"}) {  // qr: every pixel with gaps host-solved
    for (const std::string prec : {"fp32", "fp64"}) {
      SCOPED_TRACE(method + " " + prec);
      ParamSet p = lsq_params(method, prec);
      p.set("view", std::string("residual"));
      const auto w = make_workload("lsq");
      const RunResult g = w->run(p, Backend::Cuda, RunRequest{}, nullptr);
      const RunResult c = make_workload("lsq")->run(p, Backend::Cpu, RunRequest{}, nullptr);
      for (const OutputArray& o : g.outputs) {
        EXPECT_NE(o.data.device_bytes(), nullptr) << o.name;
        EXPECT_FALSE(o.data.host_ready()) << o.name;
      }
      EXPECT_EQ(g.warnings, c.warnings);
      const ViewImage img = w->view_image(g, "residual");
      ASSERT_NE(img.data.device(), nullptr);  // drawn through interop
      EXPECT_FALSE(g.find("solution")->data.host_ready());
      EXPECT_FALSE(g.find("residual")->data.host_ready());
      const ViewImage ref = make_workload("lsq")->view_image(c, "residual");
      const auto gi = img.data.converted<double>(), ci = ref.data.converted<double>();
      ASSERT_EQ(gi.size(), ci.size());
      for (std::size_t i = 0; i < ci.size(); ++i)
        if (std::isnan(ci[i])) EXPECT_TRUE(std::isnan(gi[i])) << i;
        else EXPECT_NEAR(gi[i], ci[i], 1e-4 * (1 + ci[i])) << i;
      // One component of the solution: its image on the device, the cube never downloaded.
      const ViewImage x = w->view_image(g, "solution");
      EXPECT_NE(x.data.device(), nullptr);
      EXPECT_EQ(x.range_lo, -x.range_hi);
      EXPECT_FALSE(g.find("solution")->data.host_ready());
      // fp32 auto: the pixels with gaps are float64 solves on both, rounded to float32; the
      // CPU sums gap-free pixels' float32 solutions from float32 products (docs/lsq.md: tested
      // <= 1e-6), the CUDA solver rounds its float64 ones.
      const double tol = prec == "fp64" ? 1e-9 : method == "auto" ? 1e-6 : 1e-4;
      expect_lsq_close(g, c, tol, "device maps against CPU");
    }
  }
}

/// A held lsq result's device maps are unchanged by later runs (new maps each solve).
TEST(CudaBackend, AHeldLsqResultIsUnchangedByLaterRuns) {
  SKIP_WITHOUT_CUDA();
  const auto w = make_workload("lsq");
  ParamSet p = lsq_params("auto", "fp64");
  const RunResult first = w->run(p, Backend::Cuda, RunRequest{}, nullptr);
  const RunResult again = make_workload("lsq")->run(p, Backend::Cuda, RunRequest{}, nullptr);
  p.set("lambda", 0.5);
  const RunResult other = w->run(p, Backend::Cuda, RunRequest{}, nullptr);
  p.set("synth.seed", std::int64_t(9));
  w->run(p, Backend::Cuda, RunRequest{}, nullptr);
  for (const OutputArray& o : first.outputs) EXPECT_FALSE(o.data.host_ready()) << o.name;
  expect_lsq_close(first, again, 1e-12, "held result after later runs");
  EXPECT_GT(rel_error(values(*other.find("solution")), values(*first.find("solution"))), 0);
}

/// Row ranges of one process merge on the device (no map downloaded) and equal the whole run.
TEST(CudaBackend, LsqRowRangesMergeOnTheDevice) {
  SKIP_WITHOUT_CUDA();
  const ParamSet p = lsq_params("auto", "fp64");
  const RunResult whole = make_workload("lsq")->run(p, Backend::Cuda, RunRequest{}, nullptr);
  const auto w = make_workload("lsq");
  std::vector<RunResult> parts;
  for (const IndexRange& rows : {IndexRange{0, 9}, IndexRange{9, 10}, IndexRange{10, 23}}) {
    RunRequest req;
    req.range = rows;
    req.axis = "rows";
    parts.push_back(w->run(p, Backend::Cuda, req, nullptr));
  }
  const RunResult merged = w->merge_ranges(parts);
  for (const OutputArray& o : merged.outputs) {
    EXPECT_NE(o.data.device_bytes(), nullptr) << o.name;
    EXPECT_FALSE(o.data.host_ready()) << o.name;
  }
  for (const RunResult& part : parts)
    for (const OutputArray& o : part.outputs) EXPECT_FALSE(o.data.host_ready()) << o.name;
  EXPECT_EQ(merged.warnings, whole.warnings);
  expect_lsq_close(merged, whole, 1e-12, "merged on the device");
}

ParamSet osc_params() {
  ParamSet p = make_workload("oscillators")->schema().defaults();
  p.set("ensemble.size", std::int64_t(150));  // blocks of 64, 64, 22
  p.set("network.nodes", std::int64_t(12));
  p.set("network.k", std::int64_t(4));
  p.set("network.topology", std::string("watts_strogatz"));
  p.set("integrator.steps", std::int64_t(90));
  p.set("integrator.transient", std::int64_t(20));
  p.set("record.every", std::int64_t(3));
  p.set("precision", std::string("fp64"));
  return p;
}

/// A headless study on `backend` with its checkpoint in a scratch folder (removed after).
RunResult study(const ParamSet& p, Backend backend, const std::string& name) {
  const fs::path dir =
      fs::path(SIMSCOPE_TEST_TMP) / ("cuda_" + name + std::to_string(getpid()));
  fs::remove_all(dir);
  RunRequest request;
  request.checkpoint = std::make_shared<StudyCheckpointRequest>();
  request.checkpoint->dir = (dir / "checkpoint").string();
  const RunResult r = make_workload("oscillators")->run(p, backend, request, nullptr);
  fs::remove_all(dir);
  return r;
}

// fp64 RK4 over 90 steps: the two back ends' states differ by a few ulps per step (the device's
// FMA contraction), far below 1e-9 of the values; phases wrap at +-pi, so the state is compared
// instead of them.
constexpr double kOscFp64Tol = 1e-9;

TEST(CudaBackend, OscillatorStudyOnCudaEqualsTheCpuAndMergesByMembers) {
  SKIP_WITHOUT_CUDA();
  const ParamSet p = osc_params();
  const RunResult g = study(p, Backend::Cuda, "study");
  EXPECT_EQ(g.backend, Backend::Cuda);
  expect_close(g, study(p, Backend::Cpu, "study_cpu"), kOscFp64Tol, "CUDA against CPU",
               {"phases"});
  for (std::size_t parts : {2, 9}) {
    const auto w = make_workload("oscillators");
    expect_close(run_split(*w, p, Backend::Cuda, parts), g, kOscFp64Tol,
                 std::to_string(parts) + " member ranges", {"phases"});
  }
}

TEST(CudaBackend, OscillatorLiveStateAdvancesOnTheDeviceAsOnTheCpu) {
  SKIP_WITHOUT_CUDA();
  ParamSet p = osc_params();
  p.set("live.steps_per_frame", std::int64_t(25));
  const auto g = make_workload("oscillators"), c = make_workload("oscillators");
  RunRequest reset, live;
  reset.command = RunCommand::Reset, live.command = RunCommand::Live;
  g->run(p, Backend::Cuda, reset, nullptr);
  c->run(p, Backend::Cpu, reset, nullptr);
  RunResult rg, rc;
  for (int frame = 0; frame < 4; ++frame) {  // the state kept between runs: 100 steps in all
    rg = g->run(p, Backend::Cuda, live, nullptr);
    rc = c->run(p, Backend::Cpu, live, nullptr);
  }
  EXPECT_EQ(rg.backend, Backend::Cuda);
  expect_close(rg, rc, kOscFp64Tol, "after 4 frames of 25 steps", {"phases"});
}

}  // namespace
}  // namespace simscope::app
