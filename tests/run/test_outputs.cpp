// Outputs that know where they live (issue 11, item 3), on the CPU: a device-resident output is
// faked with host memory and a counted download function. Checked: no host copy until something
// reads it (export, a view's range, a box mosaic), then exactly one, shared by every copy of the
// result and safe from many threads; a failed download is retried; the plane view image shares
// the output (no copy); the memory lives as long as the result, whatever runs afterwards.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>
#include <thread>
#include <vector>

#include "core/big_vector.hpp"
#include "core/error.hpp"
#include "output/export.hpp"
#include "field/field.hpp"
#include "io/npy.hpp"
#include "output/output_data.hpp"
#include "output/run_manifest.hpp"
#include "workload.hpp"

namespace simscope::app {
namespace {

namespace fs = std::filesystem;

/// Fake device memory: `values` in host memory behind a shared_ptr that counts its frees, and a
/// download that counts its calls (and may be told to fail).
struct FakeDevice {
  std::shared_ptr<std::atomic<int>> downloads = std::make_shared<std::atomic<int>>(0);
  std::shared_ptr<std::atomic<int>> frees = std::make_shared<std::atomic<int>>(0);
  std::shared_ptr<std::atomic<bool>> fail = std::make_shared<std::atomic<bool>>(false);

  OutputData make(const std::vector<float>& values) const {
    auto frees_ = frees;
    std::shared_ptr<const float> mem(new float[values.size()], [frees_](const float* p) {
      delete[] p;
      ++*frees_;
    });
    std::copy(values.begin(), values.end(), const_cast<float*>(mem.get()));
    auto downloads_ = downloads;
    auto fail_ = fail;
    return OutputData::on_device(mem, simscope::io::DType::Float32, values.size(),
                                 [mem, downloads_, fail_](void* dst, std::size_t n) {
                                   ++*downloads_;
                                   if (*fail_) throw Error("fake device: copy failed");
                                   std::copy(mem.get(), mem.get() + n, static_cast<float*>(dst));
                                 });
  }
};

std::vector<float> ramp(std::size_t n, float scale = 1) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = scale * (float(i) - float(n) / 3);
  return v;
}

TEST(OutputData, HostValuesAreThereWithoutADevice) {
  const OutputData d(std::vector<float>{1, 2, 3});
  EXPECT_EQ(d.size(), 3u);
  EXPECT_EQ(d.device(), nullptr);
  EXPECT_TRUE(d.host_ready());
  EXPECT_EQ(d.host(), (std::vector<float>{1, 2, 3}));
  const OutputData none;
  EXPECT_TRUE(none.empty());
  EXPECT_TRUE(none.host().empty());
  EXPECT_EQ(none.device(), nullptr);
}

TEST(OutputData, DeviceValuesDownloadOnceOnFirstUseForEveryCopy) {
  FakeDevice dev;
  const std::vector<float> values = ramp(1000);
  const OutputData d = dev.make(values);
  EXPECT_EQ(d.size(), values.size());
  EXPECT_NE(d.device(), nullptr);
  const OutputData copy = d;  // e.g. a copy of the RunResult
  EXPECT_FALSE(d.host_ready());
  EXPECT_FALSE(copy.host_ready());
  EXPECT_EQ(*dev.downloads, 0) << "nothing read the values yet";
  EXPECT_EQ(copy.host(), values);
  EXPECT_EQ(*dev.downloads, 1);
  EXPECT_TRUE(d.host_ready()) << "copies share the host copy";
  EXPECT_EQ(d.host(), values);
  EXPECT_EQ(&d.host(), &copy.host());
  EXPECT_EQ(*dev.downloads, 1);
  EXPECT_EQ(d.device(), copy.device()) << "the device values stay (the view uploads from them)";
}

TEST(OutputData, ConcurrentReadersShareOneDownload) {
  for (int round = 0; round < 20; ++round) {
    FakeDevice dev;
    const std::vector<float> values = ramp(4096, float(round + 1));
    const OutputData d = dev.make(values);
    std::atomic<int> wrong{0};
    std::vector<std::thread> readers;
    for (int t = 0; t < 8; ++t)
      readers.emplace_back([&] {
        if (d.host() != values) ++wrong;
      });
    for (auto& t : readers) t.join();
    EXPECT_EQ(wrong, 0) << "round " << round;
    EXPECT_EQ(*dev.downloads, 1) << "round " << round;
  }
}

TEST(OutputData, AFailedDownloadThrowsAndIsRetried) {
  FakeDevice dev;
  const std::vector<float> values = ramp(10);
  const OutputData d = dev.make(values);
  *dev.fail = true;
  EXPECT_THROW(
      {
        try {
          d.host();
        } catch (const Error& e) {
          EXPECT_STREQ(e.what(), "fake device: copy failed");
          throw;
        }
      },
      Error);
  EXPECT_FALSE(d.host_ready());
  *dev.fail = false;
  EXPECT_EQ(d.host(), values);
  EXPECT_EQ(*dev.downloads, 2);
}

TEST(OutputData, DeviceDataNeedsMemoryAndADownload) {
  using simscope::io::DType;
  EXPECT_THROW(OutputData::on_device(nullptr, DType::Float32, 4, [](void*, std::size_t) {}),
               Error);
  auto mem = std::make_shared<float>(0.f);
  EXPECT_THROW(OutputData::on_device(mem, DType::Float32, 1, nullptr), Error);
  EXPECT_THROW(OutputData::on_device(mem, DType::Int64, 1, [](void*, std::size_t) {}), Error);
  EXPECT_NO_THROW(OutputData::on_device(nullptr, DType::Float32, 0, nullptr));
}

TEST(OutputData, HeldInTheDtypeGivenAndConvertedOnlyOnRequest) {
  using simscope::io::DType;
  std::vector<double> big{1.0 + 1e-12, -2.5, 1e300};
  const double* mem = big.data();
  OutputData d(std::move(big));
  EXPECT_EQ(d.dtype(), DType::Float64);
  EXPECT_EQ(d.values<double>().data(), mem) << "moved in, not copied";
  EXPECT_THROW(d.values<float>(), Error);
  EXPECT_EQ(d.at(0), 1.0 + 1e-12);
  EXPECT_EQ(d.host(), (std::vector<float>{1.0f, -2.5f, INFINITY}));  // the views' float32
  EXPECT_EQ(d.values<double>().data(), mem) << "host() leaves the held values";
  EXPECT_EQ(d.converted<std::int32_t>(), (std::vector<std::int32_t>{1, -2, INT32_MIN}));
  OutputData copy = d;
  EXPECT_EQ(copy.take<double>().size(), 3u) << "a shared holder gets a copy";
  EXPECT_EQ(d.values<double>().data(), mem);
  std::vector<double> out = d.take<double>();
  EXPECT_EQ(out.data(), mem) << "the only holder moves its values out";
  EXPECT_TRUE(d.empty());
  OutputData status(std::vector<std::uint8_t>{0, 3, 1});
  EXPECT_EQ(status.dtype(), DType::UInt8);
  EXPECT_EQ(status.host(), (std::vector<float>{0, 3, 1}));
}

// Values held in place (a solver's BigVector): read there by held_values() and the export,
// kept alive by their owner while any copy of the data lives; readers of std::vector get an
// equal copy; the data counts as host values, never as device ones.
TEST(OutputData, HeldValuesReadInPlaceAndOwned) {
  using simscope::io::DType;
  auto owner = std::make_shared<const BigVector<float>>(BigVector<float>{1.5f, -2.0f, 3e38f});
  const float* mem = owner->data();
  std::weak_ptr<const BigVector<float>> alive = owner;
  OutputData d = OutputData::held(owner, mem, DType::Float32, 3);
  owner.reset();
  EXPECT_FALSE(alive.expired()) << "the data keeps its owner";
  EXPECT_EQ(d.held_values(), mem);
  EXPECT_NE(d.held_owner(), nullptr);
  EXPECT_TRUE(d.host_ready());
  EXPECT_EQ(d.device_bytes(), nullptr);
  EXPECT_EQ(d.size(), 3u);
  EXPECT_EQ(d.values<float>(), (std::vector<float>{1.5f, -2.0f, 3e38f}));
  EXPECT_NE(d.values<float>().data(), mem) << "a std::vector reader gets a copy";
  EXPECT_EQ(d.held_values(), mem) << "held values stay where they are";
  EXPECT_EQ(d.at(2), double(3e38f));
  OutputArray o;
  o.name = "solution", o.dtype = DType::Float32, o.shape = {3}, o.data = d;
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("simscope_held_" + std::to_string(getpid()) + ".npy"))
                               .string();
  write_output_npy(path, o);
  const io::NpyArray back = io::read_npy(path);
  EXPECT_EQ(back.to_double(), (std::vector<double>{1.5, -2.0, double(3e38f)}));
  std::filesystem::remove(path);
  d = OutputData();
  o.data = OutputData();
  EXPECT_TRUE(alive.expired()) << "released with the last copy";
  EXPECT_THROW(OutputData::held(nullptr, nullptr, DType::Float64, 2), Error);
}

TEST(OutputData, DeviceValuesOfOtherDtypesDownloadInTheirDtype) {
  using simscope::io::DType;
  auto mem = std::shared_ptr<const std::int32_t>(new std::int32_t[3]{7, -1, 1 << 30},
                                                 [](const std::int32_t* p) { delete[] p; });
  int downloads = 0;
  OutputData d = OutputData::on_device(mem, DType::Int32, 3, [&](void* dst, std::size_t n) {
    ++downloads;
    std::copy(mem.get(), mem.get() + n, static_cast<std::int32_t*>(dst));
  });
  EXPECT_EQ(d.device(), nullptr) << "the float view upload takes float32 data only";
  EXPECT_EQ(d.device_bytes(), mem.get());
  EXPECT_EQ(d.values<std::int32_t>(), (std::vector<std::int32_t>{7, -1, 1 << 30}));
  EXPECT_EQ(d.host()[2], float(1 << 30));
  EXPECT_EQ(downloads, 1);
}

TEST(OutputArray, ExportConvertsOnceToTheFilesDtype) {
  using simscope::io::DType;
  const fs::path dir = fs::temp_directory_path() / ("simscope_typed_" + std::to_string(getpid()));
  fs::create_directories(dir);
  OutputArray residual{"residual", "", "", DType::Float32, {3},
                       std::vector<double>{0.1, 1e-40, 3e38 * 10}};
  write_output_npy((dir / "r.npy").string(), residual);
  const simscope::io::NpyArray r = simscope::io::read_npy((dir / "r.npy").string());
  ASSERT_EQ(r.dtype, DType::Float32);
  const auto* f = reinterpret_cast<const float*>(r.data.data());
  EXPECT_EQ(f[0], 0.1f);
  EXPECT_EQ(f[1], float(1e-40));
  EXPECT_TRUE(std::isinf(f[2]));
  OutputArray count{"count", "", "", DType::Int32, {2}, std::vector<std::int32_t>{16777217, -3}};
  write_output_npy((dir / "c.npy").string(), count);
  const simscope::io::NpyArray c = simscope::io::read_npy((dir / "c.npy").string());
  ASSERT_EQ(c.dtype, DType::Int32);
  EXPECT_EQ(reinterpret_cast<const std::int32_t*>(c.data.data())[0], 16777217)
      << "held as int32: exact beyond 2^24";
  fs::remove_all(dir);
}

/// A CPU field run whose outputs are then moved to fake device memory (what the CUDA evaluator
/// leaves: field_workload's device_data), with `dev` counting the downloads.
RunResult field_run_on_fake_device(Workload& w, const ParamSet& p, FakeDevice& dev,
                                   std::vector<std::vector<float>>& host_values) {
  RunResult r = w.run(p, Backend::Cpu, RunRequest{}, nullptr);
  host_values.clear();
  for (OutputArray& o : r.outputs) {
    host_values.push_back(o.host());
    o.data = dev.make(o.host());
  }
  return r;
}

TEST(DeviceOutputs, ThePlaneViewSharesTheOutputAndOnlyReadersDownload) {
  const auto w = make_workload("field");
  ParamSet p = w->schema().defaults();
  p.set("sources.count", std::int64_t(50));
  p.set("grid.size", std::int64_t(12));
  FakeDevice dev;
  std::vector<std::vector<float>> values;
  const RunResult r = field_run_on_fake_device(*w, p, dev, values);
  ASSERT_EQ(r.outputs.size(), 5u);

  // |E| on a plane: the image is the output itself, on the device, not copied.
  const ViewImage mag = w->view_image(r, "magnitude");
  EXPECT_EQ(mag.data.device(), r.find("magnitude")->data.device());
  EXPECT_EQ(*dev.downloads, 0) << "showing an output needs no host copy";

  // run.json lists the outputs without reading them.
  const Json manifest = run_manifest(r, "", RenderInfo{});
  EXPECT_EQ(*dev.downloads, 0);

  // A signed component's symmetric range reads its values: that output alone comes down.
  const ViewImage ex = w->view_image(r, "ex");
  EXPECT_EQ(*dev.downloads, 1);
  double m = 0;
  for (float v : values[1]) m = std::max(m, double(std::fabs(v)));
  EXPECT_EQ(ex.range_hi, m);
  EXPECT_EQ(ex.range_lo, -m);
  EXPECT_EQ(ex.data.device(), r.find("ex")->data.device());

  // Export writes every output: each downloaded once (ex already was), values as computed.
  const fs::path dir = fs::path(SIMSCOPE_TEST_TMP) / ("outputs_export_" + std::to_string(getpid()));
  fs::remove_all(dir);
  export_run(r, dir.string(), manifest, nullptr);
  EXPECT_EQ(*dev.downloads, 5);
  for (std::size_t k = 0; k < r.outputs.size(); ++k) {
    const io::NpyArray a = io::read_npy((dir / (r.outputs[k].name + ".npy")).string());
    EXPECT_EQ(a.shape, (std::vector<std::size_t>{12, 12}));
    const std::vector<double> got = a.to_double();
    ASSERT_EQ(got.size(), values[k].size());
    for (std::size_t i = 0; i < got.size(); ++i)
      ASSERT_EQ(got[i], double(values[k][i])) << r.outputs[k].name << " " << i;
  }
  export_run(r, dir.string(), manifest, nullptr);
  EXPECT_EQ(*dev.downloads, 5) << "a second export reuses the host copies";
  fs::remove_all(dir);
}

TEST(DeviceOutputs, ABoxMosaicDownloadsItsOutputOnce) {
  const auto w = make_workload("field");
  ParamSet p = w->schema().defaults();
  p.set("sources.count", std::int64_t(20));
  p.set("grid.size", std::int64_t(5));
  p.set("plane", std::string("box"));
  FakeDevice dev;
  std::vector<std::vector<float>> values;
  const RunResult r = field_run_on_fake_device(*w, p, dev, values);
  const ViewImage img = w->view_image(r, "potential");
  EXPECT_EQ(*dev.downloads, 1);
  EXPECT_EQ(img.data.device(), nullptr) << "the mosaic is made on the host";
  ASSERT_EQ(img.rows, 15);
  ASSERT_EQ(img.cols, 10);
  // Face f's sample (i, j) at mosaic (f / 2 * n + i, f % 2 * n + j) (field_view.cpp).
  const std::vector<float>& mosaic = img.data.host();
  for (int f = 0; f < 6; ++f)
    for (int i = 0; i < 5; ++i)
      for (int j = 0; j < 5; ++j)
        ASSERT_EQ(mosaic[std::size_t((f / 2) * 5 + i) * 10 + (f % 2) * 5 + j],
                  values[4][(std::size_t(f) * 5 + i) * 5 + j]);
  w->view_image(r, "potential");
  EXPECT_EQ(*dev.downloads, 1);
}

TEST(DeviceOutputs, AResultKeepsItsDeviceMemoryAfterLaterRuns) {
  const auto w = make_workload("field");
  ParamSet p = w->schema().defaults();
  p.set("sources.count", std::int64_t(30));
  p.set("grid.size", std::int64_t(8));
  FakeDevice dev;
  std::vector<std::vector<float>> first_values;
  std::optional<RunResult> first = field_run_on_fake_device(*w, p, dev, first_values);
  // Later runs (other sources) and their results come and go.
  for (int seed = 2; seed < 5; ++seed) {
    p.set("sources.seed", std::int64_t(seed));
    FakeDevice later;
    std::vector<std::vector<float>> v;
    { const RunResult r = field_run_on_fake_device(*w, p, later, v); }
    EXPECT_EQ(*later.frees, 5) << "a result's memory goes with it";
  }
  EXPECT_EQ(*dev.frees, 0) << "the first result still holds its outputs";
  const RunResult copy = *first;
  first.reset();
  EXPECT_EQ(*dev.frees, 0) << "a copy shares them";
  for (std::size_t k = 0; k < copy.outputs.size(); ++k)
    EXPECT_EQ(copy.outputs[k].host(), first_values[k]) << copy.outputs[k].name;
  const float* mem = copy.outputs[0].data.device();
  EXPECT_EQ(mem[0], first_values[0][0]) << "the device values are unchanged";
}

TEST(DeviceOutputs, TheCpuFieldEvaluatorWritesHostResults) {
  auto ev = field::make_evaluator(Backend::Cpu);
  EXPECT_FALSE(ev->keep_outputs_on_device(true));
  EXPECT_EQ(ev->device(), -1);
  const auto w = make_workload("field");
  ParamSet p = w->schema().defaults();
  p.set("sources.count", std::int64_t(10));
  p.set("grid.size", std::int64_t(4));
  const RunResult r = w->run(p, Backend::Cpu, RunRequest{}, nullptr);
  for (const OutputArray& o : r.outputs) {
    EXPECT_EQ(o.data.device(), nullptr) << o.name;
    EXPECT_TRUE(o.data.host_ready()) << o.name;
    EXPECT_EQ(o.host().size(), 16u) << o.name;
  }
}

// Issue 11 item 6: the `view` choices of the workloads whose view shows an output are the
// descriptor's outputs, in export order (one list: field::outputs(), lsq::outputs()).
TEST(Descriptor, ViewChoicesAreTheOutputs) {
  for (const std::string name : {"field", "lsq"}) {
    const WorkloadDescriptor& d = workload_descriptor(name);
    const auto w = d.make();
    std::vector<std::string> outputs;
    for (const OutputSpec& o : d.outputs) outputs.push_back(o.name);
    // The field's last output, error_xyz (the tree's error view's coordinates), has no view.
    std::vector<std::string> views = outputs;
    if (name == "field") views.pop_back();
    EXPECT_EQ(w->schema().at(w->view_param()).choices, views) << name;
    // And a run exports exactly those (the field's direct sums: all but the tree's error view,
    // error and error_xyz; its tree method: all).
    ParamSet p = w->schema().defaults();
    if (name == "field")
      p.set("sources.count", std::int64_t(5)), p.set("grid.size", std::int64_t(4));
    if (name == "lsq")
      p.set("synth.height", std::int64_t(3)), p.set("synth.width", std::int64_t(3));
    for (const char* method : {"direct", "tree"}) {
      if (name == "field") p.set("method", std::string(method));
      const RunResult r = w->run(p, Backend::Cpu, RunRequest{}, nullptr);
      std::vector<std::string> exported, want = outputs;
      for (const OutputArray& o : r.outputs) exported.push_back(o.name);
      if (name == "field" && std::string(method) == "direct") want.resize(want.size() - 2);
      EXPECT_EQ(exported, want) << name << " " << method;
      if (name != "field") break;
    }
  }
}

}  // namespace
}  // namespace simscope::app
