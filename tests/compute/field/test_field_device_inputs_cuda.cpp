// The field's inputs in CUDA device memory (Evaluator::evaluate_device, device_inputs.hpp):
// the view checks against the host readers' messages (everywhere), and on a GPU the direct CUDA
// evaluator reading strided float32/float64 device arrays against the same evaluator on the
// host copies of the same values (evaluate()), and the bad-value messages against the host
// path's. The GPU cases skip with the CUDA runtime's reason where no device is usable.
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "core/backend.hpp"
#include "field/device_inputs.hpp"
#include "field/strided_inputs.hpp"
#include "test_cuda_skip.hpp"
#include "test_field_util.hpp"
#include "test_support.hpp"

#ifdef SIMSCOPE_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace simscope::field {
namespace {

DeviceView view(const void* data, io::DType dtype, std::size_t rows, std::size_t cols,
                std::ptrdiff_t rs, std::ptrdiff_t cs, const char* name) {
  DeviceView v;
  v.data = data, v.dtype = dtype, v.shape = {rows, cols}, v.strides = {rs, cs}, v.name = name;
  return v;
}

TEST(FieldDeviceInputs, ViewChecksGiveTheHostReadersMessages) {
  alignas(8) static const double fake[8] = {};  // never read by the checks
  // Columns, dtype and rows: the host readers' own messages, as InputError.
  struct Case {
    io::DType dtype;
    std::size_t rows, cols;
    bool sources;
  };
  for (const Case& c :
       {Case{io::DType::Float64, 5, 2, true}, Case{io::DType::Int32, 5, 4, true},
        Case{io::DType::Float32, 0, 4, true}, Case{io::DType::Float32, 5, 4, false},
        Case{io::DType::UInt8, 5, 3, false}, Case{io::DType::Float64, 0, 3, false}}) {
    const DeviceView v =
        view(fake, c.dtype, c.rows, c.cols, 8, 8, c.sources ? "sources" : "targets");
    const std::string host = test::error_of([&] {
      if (c.sources)
        sources_from_strided(fake, c.dtype, c.rows, c.cols, 8, 8, "sources");
      else
        targets_from_strided(fake, c.dtype, c.rows, c.cols, 8, 8, "targets");
    });
    ASSERT_FALSE(host.empty());
    EXPECT_THROW(c.sources ? check_sources_view(v) : check_targets_view(v), InputError);
    EXPECT_EQ(test::error_of([&] { c.sources ? check_sources_view(v) : check_targets_view(v); }),
              host);
  }
  // Not 2-D, misaligned: the device path's own messages, naming the argument.
  DeviceView flat = view(fake, io::DType::Float64, 5, 4, 32, 8, "sources");
  flat.shape = {20}, flat.strides = {8};
  EXPECT_EQ(test::error_of([&] { check_sources_view(flat); }),
            "sources: (P,4) or (P,3) expected, got (20,) (columns x, y, z[, q])");
  const DeviceView odd =
      view(reinterpret_cast<const char*>(fake) + 4, io::DType::Float64, 2, 3, 24, 8, "targets");
  EXPECT_EQ(test::error_of([&] { check_targets_view(odd); }),
            "targets: device memory not aligned to its 8-byte elements");
  EXPECT_NO_THROW(check_sources_view(view(fake, io::DType::Float64, 2, 4, 32, 8, "sources")));
  EXPECT_NO_THROW(check_targets_view(view(fake, io::DType::Float32, 2, 3, -12, 4, "targets")));
}

TEST(FieldDeviceInputs, BadRowMessageIsTheHostPathsWithItsRow) {
  // Row 7 of a (10, 4) float64 array has a NaN q: the host reader's message names row 7.
  std::vector<double> a(40, 0.5);
  a[7 * 4 + 3] = std::nan("");
  const std::string host = test::error_of(
      [&] { sources_from_strided(a.data(), io::DType::Float64, 10, 4, 32, 8, "sources"); });
  const DeviceView v = view(a.data(), io::DType::Float64, 10, 4, 32, 8, "sources");
  EXPECT_EQ(test::error_of([&] { throw_bad_row(v, 7, a.data() + 28, true); }), host);
  // A target value too large for nothing (targets are fp64): infinity at row 3, column z.
  std::vector<float> t(12, 1.f);
  t[3 * 3 + 2] = std::numeric_limits<float>::infinity();
  const std::string host_t = test::error_of(
      [&] { targets_from_strided(t.data(), io::DType::Float32, 4, 3, 12, 4, "targets"); });
  const DeviceView vt = view(t.data(), io::DType::Float32, 4, 3, 12, 4, "targets");
  EXPECT_EQ(test::error_of([&] { throw_bad_row(vt, 3, t.data() + 9, false); }), host_t);
}

TEST(FieldDeviceInputs, OtherEvaluatorsRefuseDeviceInputs) {
  auto cpu = make_evaluator(Backend::Cpu);
  const DeviceView v;
  Result r;
  EXPECT_THROW(cpu->evaluate_device({}, {}, &v, nullptr, Options{}, r), Error);
}

#ifdef SIMSCOPE_HAVE_CUDA

/// Device memory holding a copy of host bytes (freed at scope end).
struct DeviceCopy {
  void* p = nullptr;
  DeviceCopy(const void* host, std::size_t bytes) {
    EXPECT_EQ(cudaMalloc(&p, bytes), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(p, host, bytes, cudaMemcpyHostToDevice), cudaSuccess);
  }
  ~DeviceCopy() { cudaFree(p); }
};

/// A (rows, cols) matrix stored with `ld` columns per row (a column slice: strides (ld, 1)) or
/// transposed (Fortran order: strides (1, rows)) in T, filled from `value(i, c)`.
template <class T, class F>
std::vector<T> strided(std::size_t rows, std::size_t cols, std::size_t ld, bool fortran, F value) {
  std::vector<T> v(fortran ? rows * cols : rows * ld, T(-7));
  for (std::size_t i = 0; i < rows; ++i)
    for (std::size_t c = 0; c < cols; ++c) v[fortran ? c * rows + i : i * ld + c] = T(value(i, c));
  return v;
}

void expect_same(const Result& dev, const Result& host) {
  ASSERT_EQ(dev.size(), host.size());
  // The same evaluator on the same values: equal to rounding (its fp64 sums are atomic adds in
  // no fixed order), 1e-6 of the largest magnitude.
  EXPECT_LT(test::result_error(dev, host), 1e-6);
  EXPECT_EQ(dev.skipped_coincidences, host.skipped_coincidences);
}

TEST(FieldDeviceInputsCuda, StridedDeviceArraysEqualTheHostPath) {
  SKIP_WITHOUT_CUDA();
  const std::size_t P = 3000, T = 517;
  const Sources ref = test::random_sources(P, 1.0, 11);
  auto src_value = [&](std::size_t i, std::size_t c) {
    return c == 0 ? ref.x[i] : c == 1 ? ref.y[i] : c == 2 ? ref.z[i] : ref.q[i];
  };
  std::mt19937_64 g(5);
  std::uniform_real_distribution<double> u(-1.5, 1.5);
  std::vector<double> tv(3 * T);
  for (double& x : tv) x = u(g);
  auto tgt_value = [&](std::size_t i, std::size_t c) { return tv[3 * i + c]; };

  for (Precision prec : {Precision::Fp32, Precision::Fp64}) {
    // Sources float64 (P,4) C order; targets float32 (T,3) as a slice of a (T,5) array.
    const auto s64 = strided<double>(P, 4, 4, false, src_value);
    const auto t32 = strided<float>(T, 3, 5, false, tgt_value);
    // Sources float32 (P,3) Fortran order (q = 1); targets float64 Fortran order.
    const auto s32 = strided<float>(P, 3, 3, true, src_value);
    const auto t64 = strided<double>(T, 3, 3, true, tgt_value);
    DeviceCopy ds64(s64.data(), s64.size() * 8), dt32(t32.data(), t32.size() * 4);
    DeviceCopy ds32(s32.data(), s32.size() * 4), dt64(t64.data(), t64.size() * 8);
    const DeviceView vs64 = view(ds64.p, io::DType::Float64, P, 4, 32, 8, "sources");
    const DeviceView vt32 = view(dt32.p, io::DType::Float32, T, 3, 20, 4, "targets");
    const DeviceView vs32 = view(ds32.p, io::DType::Float32, P, 3, 4, 4 * P, "sources");
    const DeviceView vt64 = view(dt64.p, io::DType::Float64, T, 3, 8, 8 * T, "targets");
    // The host path on the same values (the readers of the Python module's host arrays).
    const Sources hs64 = sources_from_strided(s64.data(), io::DType::Float64, P, 4, 32, 8, "s");
    const Targets ht32 = targets_from_strided(t32.data(), io::DType::Float32, T, 3, 20, 4, "t");
    const Sources hs32 = sources_from_strided(s32.data(), io::DType::Float32, P, 3, 4, 4 * P, "s");
    const Targets ht64 = targets_from_strided(t64.data(), io::DType::Float64, T, 3, 8, 8 * T, "t");
    Options o;
    o.precision = prec;
    o.eps = 1e-3;
    auto ev = make_evaluator(Backend::Cuda);
    Result host, dev;
    ev->evaluate(hs64, ht32, o, host);
    ev->evaluate_device({}, {}, &vs64, &vt32, o, dev);
    expect_same(dev, host);
    ev->evaluate(hs32, ht64, o, host);
    ev->evaluate_device({}, {}, &vs32, &vt64, o, dev);
    expect_same(dev, host);
    // Mixed: device sources with host targets, host sources with device targets.
    ev->evaluate_device({}, ht64, &vs64, nullptr, o, dev);
    ev->evaluate(hs64, ht64, o, host);
    expect_same(dev, host);
    ev->evaluate_device(hs32, {}, nullptr, &vt32, o, dev);
    ev->evaluate(hs32, ht32, o, host);
    expect_same(dev, host);
    // And against the float64 reference.
    Result exact;
    evaluate_reference(hs32, ht32, o, exact);
    EXPECT_LT(test::result_error(dev, exact), prec == Precision::Fp32 ? 1e-5 : 1e-9);
  }
}

TEST(FieldDeviceInputsCuda, FarTargetsKeepTheLocalOrigin) {
  SKIP_WITHOUT_CUDA();
  // A small plane of targets at x = 1e6 (the origin rule shifts it) from device memory.
  const std::size_t P = 500, T = 64;
  Sources s = test::random_sources(P, 0.01, 3);
  for (float& x : s.x) x += 1e6f;
  std::vector<double> t(3 * T);
  for (std::size_t i = 0; i < T; ++i)
    t[3 * i] = 1e6 + 0.02 + 1e-4 * double(i), t[3 * i + 1] = 1e-3 * double(i % 8), t[3 * i + 2] = 0;
  const Targets ht = targets_from_strided(t.data(), io::DType::Float64, T, 3, 24, 8, "t");
  DeviceCopy dt(t.data(), t.size() * 8);
  const DeviceView vt = view(dt.p, io::DType::Float64, T, 3, 24, 8, "targets");
  Options o;
  auto ev = make_evaluator(Backend::Cuda);
  Result host, dev, exact;
  ev->evaluate(s, ht, o, host);
  ev->evaluate_device(s, {}, nullptr, &vt, o, dev);
  expect_same(dev, host);
  evaluate_reference(s, ht, o, exact);
  EXPECT_LT(test::result_error(dev, exact), 1e-5);
}

TEST(FieldDeviceInputsCuda, BadValuesAndDevicesGiveTheHostMessages) {
  SKIP_WITHOUT_CUDA();
  const std::size_t P = 20;
  std::vector<double> a(4 * P, 0.25);
  a[13 * 4 + 1] = std::numeric_limits<double>::infinity();
  a[17 * 4 + 0] = std::nan("");  // a later row: the first bad one is reported
  DeviceCopy d(a.data(), a.size() * 8);
  const DeviceView v = view(d.p, io::DType::Float64, P, 4, 32, 8, "sources");
  const std::string host = test::error_of(
      [&] { sources_from_strided(a.data(), io::DType::Float64, P, 4, 32, 8, "sources"); });
  Targets t;
  t.x = {0}, t.y = {0}, t.z = {0};
  auto ev = make_evaluator(Backend::Cuda);
  Result r;
  EXPECT_THROW(ev->evaluate_device({}, t, &v, nullptr, Options{}, r), InputError);
  EXPECT_EQ(test::error_of([&] { ev->evaluate_device({}, t, &v, nullptr, Options{}, r); }), host);
  // A value beyond float32 (the sources are fp32).
  std::vector<double> b(4 * P, 0.25);
  b[5 * 4 + 2] = 1e39;
  DeviceCopy db(b.data(), b.size() * 8);
  const DeviceView vb = view(db.p, io::DType::Float64, P, 4, 32, 8, "sources");
  EXPECT_EQ(test::error_of([&] { ev->evaluate_device({}, t, &vb, nullptr, Options{}, r); }),
            test::error_of([&] {
              sources_from_strided(b.data(), io::DType::Float64, P, 4, 32, 8, "sources");
            }));
  // Targets with a NaN.
  std::vector<float> tv(3 * 6, 0.5f);
  tv[4 * 3 + 1] = std::nanf("");
  DeviceCopy dtv(tv.data(), tv.size() * 4);
  const DeviceView vt = view(dtv.p, io::DType::Float32, 6, 3, 12, 4, "targets");
  EXPECT_EQ(test::error_of([&] {
              ev->evaluate_device(test::random_sources(4, 1, 1), {}, nullptr, &vt, Options{}, r);
            }),
            test::error_of([&] {
              targets_from_strided(tv.data(), io::DType::Float32, 6, 3, 12, 4, "targets");
            }));
  // Another device than the evaluator's.
  DeviceView other = view(d.p, io::DType::Float64, P, 4, 32, 8, "sources");
  other.device = ev->device() + 1;
  EXPECT_THROW(ev->evaluate_device({}, t, &other, nullptr, Options{}, r), InputError);
  // After the errors the evaluator still works (and host sources are uploaded again).
  a[13 * 4 + 1] = 0.5, a[17 * 4 + 0] = 0.5;
  DeviceCopy ok(a.data(), a.size() * 8);
  const DeviceView vok = view(ok.p, io::DType::Float64, P, 4, 32, 8, "sources");
  Result back;
  ev->evaluate_device({}, t, &vok, nullptr, Options{}, r);
  ev->evaluate(sources_from_strided(a.data(), io::DType::Float64, P, 4, 32, 8, "s"), t, Options{},
               back);
  expect_same(r, back);
}

#endif  // SIMSCOPE_HAVE_CUDA

}  // namespace
}  // namespace simscope::field
