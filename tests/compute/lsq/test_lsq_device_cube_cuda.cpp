// An lsq cube in CUDA device memory (Solver::solve_device, lsq_device_cube.hpp): the view
// checks against the cube loader's messages (everywhere), and on a GPU the CUDA solver reading
// C-order and strided float32/float64 device cubes against the same solver on the host cube
// (solve()), the inf check's message against the loader's, and the host copy that the methods
// solved on the host (svd) need, counted by host_staging_bytes(). The GPU cases skip with the
// CUDA runtime's reason where no device is usable.
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "core/backend.hpp"
#include "lsq/lsq_device_cube.hpp"
#include "test_cuda_skip.hpp"
#include "test_lsq_util.hpp"
#include "test_support.hpp"

#ifdef SIMSCOPE_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace simscope::lsq {
namespace {

using test::name;
using test::opts;
using test::random_cube;
using test::random_design;

DeviceView cube_view(const void* data, io::DType dtype, std::vector<std::size_t> shape,
                     std::vector<std::ptrdiff_t> strides) {
  DeviceView v;
  v.data = data, v.dtype = dtype, v.shape = std::move(shape), v.strides = std::move(strides);
  v.name = "cube";
  return v;
}

TEST(LsqDeviceCube, ViewChecksGiveTheLoadersMessages) {
  alignas(8) static const double fake[4] = {};  // never read by the checks
  // dtype and empty shapes: cube_from_npy's messages on the same array.
  const auto loader = [](io::DType dtype, std::vector<std::size_t> shape) {
    io::NpyArray a;
    a.dtype = dtype, a.shape = shape;
    a.data.resize(a.size() * 8);
    return test::error_of([&] { cube_from_npy(a, "cube"); });
  };
  struct Case {
    io::DType dtype;
    std::vector<std::size_t> shape;
  };
  for (const Case& c : {Case{io::DType::Int32, {2, 3, 4}}, Case{io::DType::Float32, {0, 3, 4}},
                        Case{io::DType::Float64, {4, 5}}, Case{io::DType::Float64, {2, 2, 2, 2}},
                        Case{io::DType::UInt8, {2, 3, 4}}}) {
    const DeviceView v =
        cube_view(fake, c.dtype, c.shape, std::vector<std::ptrdiff_t>(c.shape.size(), 8));
    const std::string want = loader(c.dtype, c.shape);
    ASSERT_FALSE(want.empty());
    EXPECT_THROW(check_cube_view(v), InputError);
    EXPECT_EQ(test::error_of([&] { check_cube_view(v); }), want);
  }
  EXPECT_EQ(test::error_of([&] {
              check_cube_view(cube_view(reinterpret_cast<const char*>(fake) + 2, io::DType::Float32,
                                        {2, 2, 2}, {16, 8, 4}));
            }),
            "cube: device memory not aligned to its 4-byte elements");
  EXPECT_NO_THROW(check_cube_view(cube_view(fake, io::DType::Float64, {2, 3, 4}, {8, 16, 48})));
}

TEST(LsqDeviceCube, InfEntryMessageIsTheLoadersWithItsIndex) {
  std::vector<double> v(2 * 3 * 4, 1.0);
  v[(1 * 3 + 2) * 4 + 1] = -std::numeric_limits<double>::infinity();
  const std::string want =
      test::error_of([&] { borrow_cube(v.data(), io::DType::Float64, 2, 3, 4, "cube"); });
  const DeviceView view = cube_view(v.data(), io::DType::Float64, {2, 3, 4}, {96, 32, 8});
  EXPECT_EQ(test::error_of([&] { throw_inf_entry(view, (1 * 3 + 2) * 4 + 1, &v[21]); }), want);
}

TEST(LsqDeviceCube, TheCpuSolverRefusesADeviceCube) {
  auto cpu = make_solver(Backend::Cpu);
  Result r;
  EXPECT_THROW(cpu->solve_device(DeviceView{}, Design{}, Options{}, r), Error);
  EXPECT_EQ(cpu->host_staging_bytes(), 0);
}

#ifdef SIMSCOPE_HAVE_CUDA

struct DeviceCopy {
  void* p = nullptr;
  DeviceCopy(const void* host, std::size_t bytes) {
    EXPECT_EQ(cudaMalloc(&p, bytes), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(p, host, bytes, cudaMemcpyHostToDevice), cudaSuccess);
  }
  ~DeviceCopy() { cudaFree(p); }
};

/// Same outputs: the same solver on the same values (device vs host input), equal to the GEMMs'
/// rounding (one chunk either way: bit-identical in practice; 1e-12 relative allowed).
void expect_same(const Result& dev, const Result& host) {
  ASSERT_EQ(dev.solution.size(), host.solution.size());
  for (std::size_t k = 0; k < dev.solution.size(); ++k) {
    if (std::isnan(host.solution[k])) {
      EXPECT_TRUE(std::isnan(dev.solution[k])) << k;
      continue;
    }
    EXPECT_NEAR(dev.solution[k], host.solution[k], 1e-12 * (1 + std::fabs(host.solution[k]))) << k;
  }
  EXPECT_EQ(dev.status, host.status);
  EXPECT_EQ(dev.count, host.count);
  for (int s = 0; s < 4; ++s) EXPECT_EQ(dev.status_counts[s], host.status_counts[s]);
}

TEST(LsqDeviceCubeCuda, DeviceCubesEqualTheHostPath) {
  SKIP_WITHOUT_CUDA();
  const Design d = random_design(24, 5, 3);
  const std::size_t H = 13, W = 17, M = 24, P = H * W;
  const Cube host64 = random_cube(d, H, W, 0.2, 4);
  std::vector<float> f32(M * P);
  for (std::size_t k = 0; k < f32.size(); ++k) f32[k] = float(host64.f64()[k]);
  const Cube host32 = make_cube(f32, M, H, W);
  // The float32 cube also as (M, W, H) memory viewed (M, H, W): strides (W H, 1, H) elements.
  std::vector<float> t32(M * P);
  for (std::size_t i = 0; i < M; ++i)
    for (std::size_t h = 0; h < H; ++h)
      for (std::size_t w = 0; w < W; ++w) t32[(i * W + w) * H + h] = f32[(i * H + h) * W + w];
  DeviceCopy d64(host64.f64(), M * P * 8), d32(t32.data(), M * P * 4);
  const DeviceView v64 = cube_view(d64.p, io::DType::Float64, {M, H, W},
                                   {std::ptrdiff_t(P * 8), std::ptrdiff_t(W * 8), 8});
  const DeviceView v32 = cube_view(d32.p, io::DType::Float32, {M, H, W},
                                   {std::ptrdiff_t(P * 4), 4, std::ptrdiff_t(H * 4)});
  auto solver = make_solver(Backend::Cuda);
  for (Method m : {Method::Auto, Method::Normal, Method::Downdate}) {
    for (Precision prec : {Precision::Fp64, Precision::Fp32}) {
      const Options o = opts(m, prec, m == Method::Normal ? 1e-3 : 0);
      Result host, dev;
      solver->solve(host64, d, o, host);
      solver->solve_device(v64, d, o, dev);
      expect_same(dev, host);
      if (dev.host_pixels == 0) EXPECT_EQ(solver->host_staging_bytes(), 0) << name(m);
      solver->solve(host32, d, o, host);
      solver->solve_device(v32, d, o, dev);
      expect_same(dev, host);
    }
  }
  // svd solves its pixels with gaps on the host: one host copy of the cube, counted.
  Result host, dev;
  solver->solve(host64, d, opts(Method::Svd, Precision::Fp64), host);
  solver->solve_device(v64, d, opts(Method::Svd, Precision::Fp64), dev);
  expect_same(dev, host);
  EXPECT_GT(dev.host_pixels, 0u);
  EXPECT_EQ(solver->host_staging_bytes(), double(M * P * 8));
  // And against the independent long-double reference at a few pixels.
  for (std::size_t p : {std::size_t(0), P / 2, P - 1}) {
    if (dev.status[p] != kOk) continue;
    const std::vector<double> ref = test::reference_solution(host64, d, p);
    for (std::size_t k = 0; k < d.n; ++k)
      EXPECT_NEAR(dev.solution[k * P + p], ref[k], 1e-8 * (1 + std::fabs(ref[k]))) << p;
  }
}

TEST(LsqDeviceCubeCuda, InfEntriesAndOtherDevicesGiveTheMessages) {
  SKIP_WITHOUT_CUDA();
  const Design d = random_design(6, 2, 5);
  std::vector<double> v(6 * 4 * 5, 0.5);
  v[(3 * 4 + 1) * 5 + 2] = std::numeric_limits<double>::infinity();
  v[(5 * 4 + 0) * 5 + 0] = -std::numeric_limits<double>::infinity();  // later: not reported
  DeviceCopy dv(v.data(), v.size() * 8);
  const DeviceView view = cube_view(dv.p, io::DType::Float64, {6, 4, 5}, {160, 40, 8});
  auto solver = make_solver(Backend::Cuda);
  Result r;
  EXPECT_THROW(solver->solve_device(view, d, Options{}, r), InputError);
  EXPECT_EQ(test::error_of([&] { solver->solve_device(view, d, Options{}, r); }),
            test::error_of([&] { borrow_cube(v.data(), io::DType::Float64, 6, 4, 5, "cube"); }));
  DeviceView other = view;
  other.device += 1;
  EXPECT_THROW(solver->solve_device(other, d, Options{}, r), InputError);
  // A shape that does not match A: validate()'s message, as for a host cube.
  const Design d7 = random_design(7, 2, 5);
  v[(3 * 4 + 1) * 5 + 2] = 0.5, v[0] = 0.5;
  v[(5 * 4 + 0) * 5 + 0] = 0.5;
  DeviceCopy ok(v.data(), v.size() * 8);
  const DeviceView vok = cube_view(ok.p, io::DType::Float64, {6, 4, 5}, {160, 40, 8});
  EXPECT_EQ(test::error_of([&] { solver->solve_device(vok, d7, Options{}, r); }),
            test::error_of([&] {
              solver->solve(make_cube(std::vector<double>(v), 6, 4, 5), d7, Options{}, r);
            }));
  // Still usable afterwards.
  Result host;
  solver->solve_device(vok, d, Options{}, r);
  solver->solve(make_cube(std::vector<double>(v), 6, 4, 5), d, Options{}, host);
  expect_same(r, host);
}

#endif  // SIMSCOPE_HAVE_CUDA

}  // namespace
}  // namespace simscope::lsq
