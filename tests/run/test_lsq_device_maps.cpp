// lsq's maps kept in device memory (issue 29), on the CPU: a fake solver keeps the CPU solver's
// maps in fake device memory (host memory whose frees are counted) and fake device operations
// count every download (calls and bytes), view image and concatenation. Checked: no download
// until something reads host values, then one per map, shared by every copy; the warnings and
// a view of the residual or of one solution component move nothing to the host; a pixel's
// readout copies single values; results outlive later solves; row ranges merge on the device;
// the values equal the host path's.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "lsq/lsq.hpp"
#include "lsq/lsq_device.hpp"
#include "lsq/lsq_params.hpp"
#include "lsq/lsq_result.hpp"
#include "lsq/lsq_workload.hpp"
#include "workload.hpp"

namespace simscope::app {
namespace {

/// What the fake device saw.
struct Ledger {
  std::atomic<int> downloads{0};
  std::atomic<std::size_t> download_bytes{0};
  std::atomic<int> images{0}, concats{0}, frees{0};
};

/// `bytes` of fake device memory holding `src`, counting its free in `ledger`.
std::shared_ptr<const void> fake_memory(const void* src, std::size_t bytes,
                                        const std::shared_ptr<Ledger>& ledger) {
  auto* p = new unsigned char[bytes > 0 ? bytes : 1];
  if (bytes > 0) std::memcpy(p, src, bytes);
  return std::shared_ptr<const void>(p, [ledger](const void* q) {
    delete[] static_cast<const unsigned char*>(q);
    ++ledger->frees;
  });
}

/// Device operations over fake device memory (host memory), counted in `ledger`.
std::shared_ptr<const LsqDeviceOps> fake_ops(const std::shared_ptr<Ledger>& ledger) {
  auto ops = std::make_shared<LsqDeviceOps>();
  ops->device = 0;
  ops->download = [ledger](void* dst, const void* src, std::size_t bytes) {
    ++ledger->downloads;
    ledger->download_bytes += bytes;
    std::memcpy(dst, src, bytes);
  };
  ops->upright = [ledger](const void* map, io::DType dtype, std::size_t offset, std::size_t H,
                          std::size_t W, double* max_abs) {
    ++ledger->images;
    std::vector<float> img(H * W);
    double m = 0;
    for (std::size_t i = 0; i < W; ++i)
      for (std::size_t j = 0; j < H; ++j) {
        const std::size_t k = offset + (H - 1 - j) * W + i;
        float v = 0;
        switch (dtype) {
          case io::DType::Float64: v = float(static_cast<const double*>(map)[k]); break;
          case io::DType::Int32: v = float(static_cast<const std::int32_t*>(map)[k]); break;
          case io::DType::UInt8: v = float(static_cast<const std::uint8_t*>(map)[k]); break;
          default: v = static_cast<const float*>(map)[k]; break;
        }
        img[i * H + j] = v;
        if (std::isfinite(v)) m = std::max(m, double(std::fabs(v)));
      }
    if (max_abs) *max_abs = m;
    auto mem = fake_memory(img.data(), img.size() * 4, ledger);
    return std::shared_ptr<const float>(mem, static_cast<const float*>(mem.get()));
  };
  ops->concat = [ledger](const std::vector<const void*>& parts,
                         const std::vector<std::size_t>& bytes, std::size_t outer) {
    ++ledger->concats;
    std::size_t block = 0;
    for (std::size_t b : bytes) block += b;
    std::vector<unsigned char> out(block * outer);
    for (std::size_t o = 0; o < outer; ++o) {
      std::size_t at = 0;
      for (std::size_t k = 0; k < parts.size(); ++k) {
        std::memcpy(out.data() + o * block + at,
                    static_cast<const unsigned char*>(parts[k]) + o * bytes[k], bytes[k]);
        at += bytes[k];
      }
    }
    return fake_memory(out.data(), out.size(), ledger);
  };
  return ops;
}

/// The CPU solver whose maps "stay on the device": moved into fake device memory (new memory
/// at every solve, as the CUDA solver does), the Result's vectors emptied.
class FakeDeviceSolver final : public lsq::Solver {
 public:
  explicit FakeDeviceSolver(std::shared_ptr<Ledger> ledger) : ledger_(std::move(ledger)) {}
  Backend backend() const override { return Backend::Cuda; }
  bool keep_outputs_on_device(bool keep) override {
    keep_ = keep;
    return true;
  }
  int device() const override { return 0; }
  std::shared_ptr<const void> device_output(const std::string& name) const override {
    const auto it = maps_.find(name);
    return it == maps_.end() ? nullptr : it->second;
  }
  using Solver::solve;
  void solve(const lsq::Cube& cube, const lsq::Design& design, const IndexRange& rows,
             const lsq::Options& options, lsq::Result& out, Progress* progress) override {
    maps_.clear();
    lsq::Options o = options;
    o.float32_solution = false;  // a device solver fills the float64 solution
    cpu_->solve(cube, design, rows, o, out, progress);
    if (!keep_) return;
    auto keep = [&](const char* name, const auto& v) {
      maps_[name] = fake_memory(v.data(), v.size() * sizeof(v[0]), ledger_);
    };
    if (options.precision == Precision::Fp32) {
      keep("solution", std::vector<float>(out.solution.begin(), out.solution.end()));
    } else {
      keep("solution", out.solution);
    }
    keep("residual", out.residual);
    keep("condition", out.condition);
    keep("count", out.count);
    keep("status", out.status);
    for (double x : out.solution) out.device_inf[0] += std::isinf(float(x));
    for (float x : out.residual) out.device_inf[1] += std::isinf(x);
    out.solution = {}, out.residual = {}, out.condition = {}, out.count = {}, out.status = {};
    out.on_host = false;
  }

 private:
  std::shared_ptr<Ledger> ledger_;
  std::unique_ptr<lsq::Solver> cpu_ = lsq::make_solver(Backend::Cpu);
  std::map<std::string, std::shared_ptr<const void>> maps_;
  bool keep_ = false;
};

/// A small problem with gaps (all four statuses: a row without observations, one column with
/// fewer rows than unknowns).
lsq::Synth problem(std::size_t h = 12, std::size_t w = 9) {
  lsq::SynthSpec s;
  s.height = h, s.width = w, s.m = 20, s.n = 4, s.nan_fraction = 0.3, s.seed = 5;
  lsq::Synth p = lsq::generate(s);
  float* c = reinterpret_cast<float*>(p.cube.bytes.data());
  for (std::size_t i = 0; i < p.cube.m; ++i) {
    c[i * p.cube.pixels() + 0] = NAN;                                // pixel 0: all missing
    if (i >= 2) c[i * p.cube.pixels() + 1] = NAN;                    // pixel 1: 2 < N rows
  }
  return p;
}

/// A RunResult as the workload's: params of the lsq schema, CUDA back end.
RunResult lsq_run(lsq::Solver& solver, const lsq::Synth& p, const lsq::Options& o,
                  const std::shared_ptr<const LsqDeviceOps>& ops,
                  const IndexRange& rows = IndexRange::all()) {
  RunResult r;
  r.workload = "lsq";
  r.params = lsq::schema().defaults();
  r.params.set("precision", std::string(o.precision == Precision::Fp32 ? "fp32" : "fp64"));
  r.backend = solver.backend();
  auto res = std::make_shared<lsq::Result>();
  solver.solve(p.cube, p.design, rows, o, *res);
  fill_lsq_result(r, *res, o, p.cube.m, 0, &solver, ops);
  add_lsq_result_warnings(r);
  auto pl = std::make_shared<LsqPayload>();
  pl->problem = std::make_shared<const lsq::Synth>(p);
  pl->result = res;
  pl->options = o;
  pl->backend = r.backend;
  pl->device_ops = res->on_host ? nullptr : ops;
  if (!res->on_host) pl->device_inf = res->device_inf;
  r.payload = pl;
  return r;
}

/// The same solve on the host path (the CPU solver, host outputs).
RunResult host_run(const lsq::Synth& p, const lsq::Options& o,
                   const IndexRange& rows = IndexRange::all()) {
  auto cpu = lsq::make_solver(Backend::Cpu);
  return lsq_run(*cpu, p, o, nullptr, rows);
}

template <class T>
void expect_same(const OutputData& a, const OutputData& b, const std::string& what) {
  ASSERT_EQ(a.dtype(), b.dtype()) << what;
  const auto& x = a.values<T>();
  const auto& y = b.values<T>();
  ASSERT_EQ(x.size(), y.size()) << what;
  for (std::size_t i = 0; i < x.size(); ++i)
    if (!(x[i] == y[i] || (std::isnan(double(x[i])) && std::isnan(double(y[i])))))
      FAIL() << what << " differs at " << i << ": " << double(x[i]) << " vs " << double(y[i]);
}

void expect_same_outputs(const RunResult& dev, const RunResult& host) {
  expect_same<double>(dev.find("solution")->data, host.find("solution")->data, "solution");
  expect_same<float>(dev.find("residual")->data, host.find("residual")->data, "residual");
  expect_same<float>(dev.find("condition")->data, host.find("condition")->data, "condition");
  expect_same<std::int32_t>(dev.find("count")->data, host.find("count")->data, "count");
  expect_same<std::uint8_t>(dev.find("status")->data, host.find("status")->data, "status");
}

TEST(LsqDeviceMaps, KeptMapsDownloadOnlyWhenReadOncePerMap) {
  auto ledger = std::make_shared<Ledger>();
  FakeDeviceSolver solver(ledger);
  ASSERT_TRUE(solver.keep_outputs_on_device(true));
  const lsq::Synth p = problem();
  const lsq::Options o;
  const RunResult r = lsq_run(solver, p, o, fake_ops(ledger));
  for (const char* name : {"solution", "residual", "condition", "count", "status"}) {
    const OutputArray* out = r.find(name);
    ASSERT_NE(out, nullptr) << name;
    EXPECT_TRUE(device_only(out->data)) << name;
  }
  EXPECT_EQ(r.find("solution")->data.dtype(), io::DType::Float64);
  EXPECT_EQ(r.find("count")->data.dtype(), io::DType::Int32);
  EXPECT_EQ(r.find("status")->data.dtype(), io::DType::UInt8);
  // The warnings (statuses from the stats, inf counts from the device) moved nothing.
  EXPECT_EQ(ledger->downloads, 0);
  const RunResult host = host_run(p, o);
  EXPECT_EQ(r.warnings, host.warnings);
  EXPECT_FALSE(r.warnings.empty());  // all-missing and underdetermined pixels
  // A copy of the result shares the maps: one download per map, whoever reads first.
  const RunResult copy = r;
  const std::size_t P = p.cube.pixels();
  EXPECT_EQ(copy.find("residual")->data.values<float>().size(), P);
  EXPECT_EQ(ledger->downloads, 1);
  EXPECT_EQ(ledger->download_bytes, P * 4);
  EXPECT_TRUE(r.find("residual")->data.host_ready());
  r.find("residual")->data.values<float>();
  EXPECT_EQ(ledger->downloads, 1);
  expect_same_outputs(r, host);
  EXPECT_EQ(ledger->downloads, 5);  // each map once
  EXPECT_EQ(ledger->download_bytes, P * (4 * 8 + 4 + 4 + 4 + 1));
}

TEST(LsqDeviceMaps, Fp32SolutionIsFloat32OnTheDevice) {
  auto ledger = std::make_shared<Ledger>();
  FakeDeviceSolver solver(ledger);
  solver.keep_outputs_on_device(true);
  const lsq::Synth p = problem();
  lsq::Options o;
  o.precision = Precision::Fp32;
  const RunResult r = lsq_run(solver, p, o, fake_ops(ledger));
  const OutputArray* s = r.find("solution");
  EXPECT_EQ(s->data.dtype(), io::DType::Float32);
  EXPECT_EQ(s->dtype, io::DType::Float32);
  expect_same<float>(s->data, host_run(p, o).find("solution")->data, "solution");
}

TEST(LsqDeviceMaps, ResidualViewAndPixelReadoutCopyNoMapToTheHost) {
  auto ledger = std::make_shared<Ledger>();
  FakeDeviceSolver solver(ledger);
  solver.keep_outputs_on_device(true);
  const lsq::Synth p = problem();
  const lsq::Options o;
  RunResult r = lsq_run(solver, p, o, fake_ops(ledger));
  const RunResult host = host_run(p, o);
  const auto w = make_workload("lsq");
  // The residual view: an image made on the device, uploaded from there (interop).
  std::size_t view_bytes = 1;
  for (const char* view : {"residual", "status", "solution"}) {
    r.params.set("view.component", std::int64_t(2));
    const int before = ledger->downloads;
    const std::size_t bytes_before = ledger->download_bytes;
    const ViewImage img = w->view_image(r, view);
    if (std::string(view) == "residual") view_bytes = ledger->download_bytes - bytes_before;
    EXPECT_NE(img.data.device(), nullptr) << view;
    EXPECT_EQ(ledger->downloads, before) << view;  // bytes moved device -> host for the view: 0
    EXPECT_FALSE(r.find(view)->data.host_ready()) << view;
    RunResult hr = host;
    hr.params.set("view.component", std::int64_t(2));
    const ViewImage ref = w->view_image(hr, view);
    EXPECT_EQ(img.rows, ref.rows);
    EXPECT_EQ(img.cols, ref.cols);
    EXPECT_EQ(img.range_lo, ref.range_lo) << view;  // the solution's symmetric range
    EXPECT_EQ(img.range_hi, ref.range_hi) << view;
    expect_same<float>(img.data, ref.data, view);  // downloads the image only (the test's read)
  }
  EXPECT_EQ(ledger->images, 3);
  // Issue 29's closing figure: bytes device -> host for this run shown as its residual map,
  // before (every chunk's outputs into pinned staging: 8N + 14 bytes a pixel) and now (the
  // fake device's count for the view: no map; the CUDA solver also reads 2 bytes a pixel of
  // statuses and kinds).
  EXPECT_EQ(view_bytes, 0u);
  std::printf("[ info ] residual view of %zu pixels, N = %zu: before %zu bytes, now %zu\n",
              p.cube.pixels(), p.design.n, p.cube.pixels() * (8 * p.design.n + 14), view_bytes);
  // A pixel's readout (the window's probe and inspector): single values, no map copied.
  ledger->downloads = 0, ledger->download_bytes = 0;
  const LsqMaps maps = lsq_maps(r);
  ASSERT_NE(maps.ops, nullptr);
  const LsqMaps hmaps = lsq_maps(host);
  const std::size_t P = p.cube.pixels(), q = 17;
  for (std::size_t k = 0; k < maps.n; ++k)
    EXPECT_EQ(maps.at(*maps.solution, k * P + q), hmaps.at(*hmaps.solution, k * P + q));
  EXPECT_EQ(maps.at(*maps.count, q), hmaps.at(*hmaps.count, q));
  EXPECT_EQ(maps.at(*maps.status, 0), double(lsq::kAllMissing));
  EXPECT_EQ(ledger->download_bytes, maps.n * 8 + 4 + 1);
  EXPECT_FALSE(r.find("solution")->data.host_ready());
  EXPECT_FALSE(w->describe_sample(r, 3, 4).empty());
  EXPECT_EQ(w->describe_sample(r, 3, 4), w->describe_sample(host, 3, 4));
  EXPECT_FALSE(r.find("count")->data.host_ready());
}

TEST(LsqDeviceMaps, AResultOutlivesLaterSolves) {
  auto ledger = std::make_shared<Ledger>();
  FakeDeviceSolver solver(ledger);
  solver.keep_outputs_on_device(true);
  const auto ops = fake_ops(ledger);
  const lsq::Synth a = problem(), b = problem(7, 5);
  const lsq::Options o;
  std::optional<RunResult> first = lsq_run(solver, a, o, ops);
  const RunResult second = lsq_run(solver, b, o, ops);
  const RunResult third = lsq_run(solver, a, o, ops);
  EXPECT_EQ(ledger->frees, 0);  // every map is held by a result (the solver let go of the old)
  expect_same_outputs(*first, host_run(a, o));
  expect_same_outputs(second, host_run(b, o));
  first.reset();
  EXPECT_EQ(ledger->frees, 5);  // the first result's five maps, when it went
  expect_same_outputs(third, host_run(a, o));
}

TEST(LsqDeviceMaps, RowRangesMergeOnTheDevice) {
  auto ledger = std::make_shared<Ledger>();
  FakeDeviceSolver solver(ledger);
  solver.keep_outputs_on_device(true);
  const auto ops = fake_ops(ledger);
  const lsq::Synth p = problem();
  const lsq::Options o;
  const auto w = make_workload("lsq");
  std::vector<RunResult> parts;
  for (const IndexRange& rows : {IndexRange{0, 5}, IndexRange{5, 6}, IndexRange{6, 12}}) {
    RunResult r = lsq_run(solver, p, o, ops, rows);
    r.part = RangePart{"rows", rows.begin, rows.end, p.cube.height, {}};
    parts.push_back(std::move(r));
  }
  const RunResult merged = w->merge_ranges(parts);
  EXPECT_EQ(ledger->concats, 5);
  EXPECT_EQ(ledger->downloads, 0);
  for (const OutputArray& out : merged.outputs) EXPECT_TRUE(device_only(out.data)) << out.name;
  const RunResult host = host_run(p, o);
  EXPECT_EQ(merged.warnings, host.warnings);
  EXPECT_EQ(merged.find("solution")->shape, host.find("solution")->shape);
  expect_same_outputs(merged, host);
  // Parts held on the host (another process's, decoded) merge there as before.
  std::vector<RunResult> mixed = parts;
  mixed[1] = host_run(p, o, IndexRange{5, 6});
  mixed[1].part = parts[1].part;
  ledger->concats = 0;
  const RunResult m2 = w->merge_ranges(mixed);
  EXPECT_EQ(ledger->concats, 0);
  expect_same_outputs(m2, host);
}

TEST(LsqDeviceMaps, MapsThatDoNotFitComeBackToTheHost) {
  // The CUDA solver's fallback: on_host with a note; the outputs are host vectors.
  const lsq::Synth p = problem();
  auto cpu = lsq::make_solver(Backend::Cpu);
  lsq::Result res;
  cpu->solve(p.cube, p.design, lsq::Options{}, res);
  res.device_note = "lsq (CUDA): the maps kept on the device would take ...";
  RunResult r;
  r.workload = "lsq";
  r.params = lsq::schema().defaults();
  fill_lsq_result(r, res, lsq::Options{}, p.cube.m, 0, cpu.get(), nullptr);
  for (const OutputArray& out : r.outputs) EXPECT_EQ(out.data.device_bytes(), nullptr);
  EXPECT_EQ(r.payload, nullptr);
  EXPECT_EQ(r.stats.count("device_solution_inf"), 0u);
  // Device maps without a solver holding them are refused.
  lsq::Result dev;
  dev.on_host = false;
  RunResult r2;
  r2.workload = "lsq";
  r2.params = lsq::schema().defaults();
  EXPECT_THROW(fill_lsq_result(r2, dev, lsq::Options{}, 1, 0), Error);
}

TEST(LsqDeviceMaps, KeptBytesAreStated) {
  EXPECT_EQ(lsq::device_maps_bytes(50, 256 * 256), 256.0 * 256 * (50 * 8 + 13));
}

}  // namespace
}  // namespace simscope::app
