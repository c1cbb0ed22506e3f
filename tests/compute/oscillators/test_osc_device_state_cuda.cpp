// An oscillators initial state in CUDA device memory (Ensemble::load_device,
// osc_device_state.hpp): the view checks against initial_state_from_npy's messages
// (everywhere), and on a GPU the CUDA ensemble loaded from strided float32/float64 device
// arrays against the same ensemble loaded from the host State of the same values (load()):
// the same state before and after integrating, and the non-finite message of the host reader.
// The GPU cases skip with the CUDA runtime's reason where no device is usable.
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "core/backend.hpp"
#include "oscillators/ensemble.hpp"
#include "oscillators/model.hpp"
#include "oscillators/osc_device_state.hpp"
#include "oscillators/topology.hpp"
#include "test_cuda_skip.hpp"
#include "test_osc_util.hpp"
#include "test_support.hpp"

#ifdef SIMSCOPE_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace simscope::oscillators {
namespace {

DeviceView state_view(const void* data, io::DType dtype, std::vector<std::size_t> shape,
                      std::vector<std::ptrdiff_t> strides) {
  DeviceView v;
  v.data = data, v.dtype = dtype, v.shape = std::move(shape), v.strides = std::move(strides);
  v.name = "initial";
  return v;
}

/// initial_state_from_npy's message for an array of `dtype` and `shape` holding `values`
/// (zeros when empty).
std::string host_message(io::DType dtype, std::vector<std::size_t> shape,
                         const std::vector<double>& values, int nodes, int members) {
  io::NpyArray a;
  a.dtype = dtype, a.shape = std::move(shape);
  const std::size_t item = dtype == io::DType::Float32 ? 4 : 8;
  a.data.resize(a.size() * item);
  for (std::size_t k = 0; k < values.size() && item == 8; ++k)
    std::memcpy(a.data.data() + 8 * k, &values[k], 8);
  return test::error_of([&] { initial_state_from_npy(a, "initial", nodes, members); });
}

TEST(OscDeviceState, ViewChecksGiveTheReadersMessages) {
  alignas(8) static const double fake[4] = {};  // never read by the checks
  struct Case {
    io::DType dtype;
    std::vector<std::size_t> shape;
  };
  for (const Case& c : {Case{io::DType::Int32, {8, 2}}, Case{io::DType::Float64, {7, 2}},
                        Case{io::DType::Float32, {3, 8, 2}}, Case{io::DType::Float64, {8, 3}},
                        Case{io::DType::Float64, {2, 8, 2, 1}}}) {
    const DeviceView v =
        state_view(fake, c.dtype, c.shape, std::vector<std::ptrdiff_t>(c.shape.size(), 8));
    const std::string want = host_message(c.dtype, c.shape, {}, 8, 2);
    ASSERT_FALSE(want.empty());
    EXPECT_THROW(check_initial_view(v, 8, 2), InputError);
    EXPECT_EQ(test::error_of([&] { check_initial_view(v, 8, 2); }), want);
  }
  EXPECT_NO_THROW(check_initial_view(state_view(fake, io::DType::Float64, {8, 2}, {16, 8}), 8, 2));
  EXPECT_NO_THROW(
      check_initial_view(state_view(fake, io::DType::Float32, {2, 8, 2}, {4, 8, 64}), 8, 2));
  EXPECT_EQ(test::error_of([&] {
              check_initial_view(state_view(reinterpret_cast<const char*>(fake) + 4,
                                            io::DType::Float64, {8, 2}, {16, 8}),
                                 8, 2);
            }),
            "initial: device memory not aligned to its 8-byte elements");
}

TEST(OscDeviceState, NonFiniteMessageIsTheReaders) {
  for (bool per_member : {false, true}) {
    std::vector<std::size_t> shape =
        per_member ? std::vector<std::size_t>{2, 8, 2} : std::vector<std::size_t>{8, 2};
    std::vector<double> v(per_member ? 32 : 16, 0.5);
    const std::size_t q = per_member ? 27 : 11;
    v[q] = -std::numeric_limits<double>::infinity();
    const DeviceView view = state_view(v.data(), io::DType::Float64, shape, {});
    EXPECT_EQ(test::error_of([&] { throw_nonfinite_initial(view, q, v[q]); }),
              host_message(io::DType::Float64, shape, v, 8, 2));
  }
}

TEST(OscDeviceState, TheCpuEnsembleRefusesADeviceState) {
  auto cpu = make_ensemble(Backend::Cpu);
  EXPECT_THROW(cpu->load_device(test::no_edges(8, 2), DeviceView{}, Precision::Fp64), Error);
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

TEST(OscDeviceStateCuda, DeviceStatesEqualTheHostPath) {
  SKIP_WITHOUT_CUDA();
  const int N = 40, K = 5;
  const Topologies t = ring(N, 4, K);
  const State s = initial_state("random", N, K, 9);
  const Model m{1.0, 1.0, 0.2};
  Recording rec;
  rec.transient = 50, rec.every = 5;
  for (Precision p : {Precision::Fp64, Precision::Fp32}) {
    // (K, N, 2) float64 in C order, and float32 stored (2, K, N) viewed (K, N, 2).
    std::vector<double> c64(2 * std::size_t(N) * K);
    std::vector<float> t32(c64.size());
    for (std::size_t q = 0; q < s.x.size(); ++q) {
      c64[2 * q] = s.x[q], c64[2 * q + 1] = s.y[q];
      t32[q] = float(s.x[q]), t32[s.x.size() + q] = float(s.y[q]);
    }
    State s32 = s;  // the float32 values, for the host load
    for (std::size_t q = 0; q < s.x.size(); ++q) s32.x[q] = t32[q], s32.y[q] = t32[s.x.size() + q];
    DeviceCopy d64(c64.data(), c64.size() * 8), d32(t32.data(), t32.size() * 4);
    const DeviceView v64 =
        state_view(d64.p, io::DType::Float64, {std::size_t(K), std::size_t(N), 2},
                   {std::ptrdiff_t(N) * 16, 16, 8});
    const DeviceView v32 =
        state_view(d32.p, io::DType::Float32, {std::size_t(K), std::size_t(N), 2},
                   {std::ptrdiff_t(N) * 4, 4, std::ptrdiff_t(N) * K * 4});
    // (N, 2) for every member: member 0's values, a view of the first rows of c64.
    State s0 = s;
    for (int k = 0; k < K; ++k)
      for (int i = 0; i < N; ++i)
        s0.x[std::size_t(k) * N + i] = s.x[std::size_t(i)],
                                  s0.y[std::size_t(k) * N + i] = s.y[std::size_t(i)];
    const DeviceView vn = state_view(d64.p, io::DType::Float64, {std::size_t(N), 2}, {16, 8});
    struct Pair {
      const DeviceView* view;
      const State* host;
    };
    for (const Pair& c : {Pair{&v64, &s}, Pair{&v32, &s32}, Pair{&vn, &s0}}) {
      auto a = make_ensemble(Backend::Cuda), b = make_ensemble(Backend::Cuda);
      a->load_device(t, *c.view, p);
      b->load(t, *c.host, p);
      EXPECT_EQ(a->state().x, b->state().x);  // the same conversion: bit-identical
      EXPECT_EQ(a->state().y, b->state().y);
      Series sa, sb;
      a->advance(m, 0.01, 200, rec, sa);
      b->advance(m, 0.01, 200, rec, sb);
      EXPECT_EQ(a->state().x, b->state().x);
      EXPECT_EQ(sa.msd, sb.msd);
    }
  }
}

TEST(OscDeviceStateCuda, NonFiniteValuesAndOtherDevicesGiveTheMessages) {
  SKIP_WITHOUT_CUDA();
  const int N = 8, K = 2;
  const Topologies t = ring(N, 2, K);
  std::vector<double> v(2 * N * K, 0.25);
  v[21] = std::nan("");
  v[30] = std::numeric_limits<double>::infinity();  // later: not reported
  DeviceCopy d(v.data(), v.size() * 8);
  const DeviceView view =
      state_view(d.p, io::DType::Float64, {std::size_t(K), std::size_t(N), 2}, {N * 16, 16, 8});
  auto e = make_ensemble(Backend::Cuda);
  EXPECT_THROW(e->load_device(t, view, Precision::Fp64), InputError);
  EXPECT_EQ(test::error_of([&] { e->load_device(t, view, Precision::Fp64); }),
            host_message(io::DType::Float64, {std::size_t(K), std::size_t(N), 2}, v, N, K));
  DeviceView other = view;
  other.device += 1;
  EXPECT_THROW(e->load_device(t, other, Precision::Fp64), InputError);
  Series s;  // a failed load leaves nothing loaded
  EXPECT_THROW(e->advance(Model{1.0, 1.0, 0.1}, 0.01, 1, Recording{}, s), Error);
}

#endif  // SIMSCOPE_HAVE_CUDA

}  // namespace
}  // namespace simscope::oscillators
