// The CUDA oscillators ensemble against the CPU one (the reference back end). Every test skips
// with the CUDA runtime's reason where no device is usable (CPU-only machines and builds).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <thread>

#include "core/backend.hpp"
#include "oscillators/ensemble.hpp"
#include "oscillators/model.hpp"
#include "oscillators/oscillators_internal.hpp"
#include "oscillators/study.hpp"
#include "oscillators/topology.hpp"
#include "test_cuda_skip.hpp"
#include "test_osc_util.hpp"

#ifdef SIMSCOPE_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace simscope::oscillators {
namespace {

double max_abs_diff(const std::vector<double>& a, const std::vector<double>& b) {
  EXPECT_EQ(a.size(), b.size());
  double d = 0;
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    const double v = std::fabs(a[i] - b[i]);
    d = std::max(d, std::isfinite(v) ? v : INFINITY);
  }
  return d;
}

// Reduction groups (Recording::group, studies on more ranks than blocks): the CUDA kernel's
// per-group sums and counts against the CPU's, for groups of 8 over 70 members (the last of 6),
// a member going non-finite, calls of several lengths; and a split study of a CUDA ensemble
// merges to its unsplit study (within 1e-9: the launch plan depends on the members loaded).
TEST(OscCuda, GroupSumsAgreeWithTheCpu) {
  SKIP_WITHOUT_CUDA();
  const int N = 30, K = 70;
  const Topologies t = watts_strogatz(N, 4, 0.2, K, 3);
  State s0 = initial_state("random", N, K, 8);
  s0.x[std::size_t(20) * N] = 1e3;  // member 20 (group 2) goes non-finite
  Recording rec;
  rec.transient = 50, rec.every = 5, rec.group = 8;
  auto gpu = make_ensemble(Backend::Cuda), cpu = make_ensemble(Backend::Cpu);
  gpu->load(t, s0, Precision::Fp64);
  cpu->load(t, s0, Precision::Fp64);
  Series sg, sc;
  for (long n : {3L, 400L, 97L}) {
    gpu->advance(Model{}, 0.01, n, rec, sg);
    cpu->advance(Model{}, 0.01, n, rec, sc);
  }
  ASSERT_EQ(sg.group_msd.size(), sc.group_msd.size());
  ASSERT_EQ(sg.group_msd.size(), sg.size() * 9);
  EXPECT_EQ(sg.group_finite, sc.group_finite);
  EXPECT_LT(max_abs_diff(sg.group_msd, sc.group_msd), 1e-8);
  EXPECT_LT(max_abs_diff(sg.group_order, sc.group_order), 1e-8);
  EXPECT_LT(sg.group_finite[sg.size() * 9 - 7], 8);  // group 2 lost member 20
  // A study on CUDA cut inside a block merges to the unsplit study.
  StudyOptions o;
  o.steps = 300, o.transient = 50, o.every = 6;
  StudyProgress sp;
  const StudyResult whole = run_study_blocks(*gpu, t, s0, o, sp, {});
  std::vector<StudyResult> parts;
  for (const auto& [a, z] : std::vector<std::pair<int, int>>{{0, 16}, {16, 64}, {64, 70}}) {
    auto e = make_ensemble(Backend::Cuda);
    const Topologies ta = watts_strogatz(N, 4, 0.2, z - a, 3, a);
    State sa;
    sa.members = z - a, sa.nodes = N;
    sa.x.assign(s0.x.begin() + a * N, s0.x.begin() + z * N);
    sa.y.assign(s0.y.begin() + a * N, s0.y.begin() + z * N);
    parts.push_back(run_study_range(*e, ta, sa, o, {std::size_t(a), std::size_t(z)}, nullptr, K));
  }
  const StudyResult merged = merge_study_ranges(parts);
  EXPECT_EQ(merged.finite_t, whole.finite_t);
  EXPECT_LT(max_abs_diff(merged.msd_t, whole.msd_t), 1e-9);  // (launch plans differ by K)
  EXPECT_LT(max_abs_diff(merged.order_t, whole.order_t), 1e-9);
}

TEST(OscCuda, MakeEnsembleWithoutDevice) {
  if (cuda_status().usable) GTEST_SKIP() << "a CUDA device is usable here";
  EXPECT_THROW(make_ensemble(Backend::Cuda), Error);
}

struct Case {
  const char* name;
  int nodes, members;
  const char* topology;  // ring | ws | er | file
  Precision precision;
  friend std::ostream& operator<<(std::ostream& o, const Case& c) { return o << c.name; }
};

Topologies make(const Case& c) {
  if (std::string(c.topology) == "ring") return ring(c.nodes, 2, c.members);
  if (std::string(c.topology) == "ws") return watts_strogatz(c.nodes, 6, 0.3, c.members, 4);
  if (std::string(c.topology) == "er") return erdos_renyi(c.nodes, 0.15, c.members, 4);
  // weighted, with a hub above the kernel's register edges (overflow path)
  std::string text;
  for (int j = 1; j < std::min(c.nodes, 12); ++j)
    text += "0 " + std::to_string(j) + " " + std::to_string(0.25 * j) + "\n";
  for (int j = 1; j + 1 < c.nodes; ++j)
    text += std::to_string(j) + " " + std::to_string(j + 1) + " 0.7\n";
  return load_edge_list(test::write_text("cuda_edges.txt", text).string(), c.nodes, c.members);
}

class OscCudaVsCpu : public ::testing::TestWithParam<Case> {};

// Sizes that fill blocks exactly or not, members sharing warps, several warps per member, the
// weighted overflow path, both precisions; the run split into calls and chunks.
TEST_P(OscCudaVsCpu, SameStateAveragesAndSamples) {
  SKIP_WITHOUT_CUDA();
  const Case c = GetParam();
  const Topologies t = make(c);
  const State s0 = initial_state("random", c.nodes, c.members, 17);
  const Model m{1.0, 1.0, 0.2};
  Recording rec;
  rec.transient = 300, rec.every = 7, rec.watch = c.members - 1;
  auto gpu = make_ensemble(Backend::Cuda), cpu = make_ensemble(Backend::Cpu);
  EXPECT_EQ(gpu->backend(), Backend::Cuda);
  gpu->load(t, s0, c.precision);
  cpu->load(t, s0, c.precision);
  Series sg, sc;
  for (long n : {1L, 600L, 1399L}) {
    gpu->advance(m, 0.01, n, rec, sg);
    cpu->advance(m, 0.01, n, rec, sc);
  }
  const bool f64 = c.precision == Precision::Fp64;
  const State a = gpu->state(), b = cpu->state();
  EXPECT_LT(max_abs_diff(a.x, b.x), f64 ? 1e-9 : 2e-3);
  EXPECT_LT(max_abs_diff(a.y, b.y), f64 ? 1e-9 : 2e-3);
  const MemberStats ma = gpu->member_stats(rec.transient), mb = cpu->member_stats(rec.transient);
  EXPECT_EQ(ma.averaged_steps, mb.averaged_steps);
  for (std::size_t k = 0; k < ma.msd_mean.size(); ++k)
    EXPECT_NEAR(ma.msd_mean[k], mb.msd_mean[k], (f64 ? 1e-9 : 1e-3) * (1 + mb.msd_mean[k]));
  ASSERT_EQ(sg.size(), sc.size());
  EXPECT_EQ(sg.step, sc.step);
  EXPECT_LT(max_abs_diff(sg.msd, sc.msd), f64 ? 1e-9 : 1e-3);
  EXPECT_LT(max_abs_diff(sg.order, sc.order), f64 ? 1e-9 : 1e-3);
  EXPECT_LT(max_abs_diff(sg.watch_msd, sc.watch_msd), f64 ? 1e-9 : 1e-3);
  EXPECT_LT(max_abs_diff(sg.watch_order, sc.watch_order), f64 ? 1e-9 : 1e-3);
  EXPECT_EQ(sg.finite, sc.finite);
  const Frame fa = gpu->frame(3), fb = cpu->frame(3);
  ASSERT_EQ(fa.theta_r.size(), fb.theta_r.size());
  ASSERT_NE(fa.device, nullptr);
  for (std::size_t q = 1; q < fa.theta_r.size(); q += 2)
    EXPECT_NEAR(fa.theta_r[q], fb.theta_r[q], f64 ? 1e-5 : 1e-2);
  // The phases too, as angles: a phase near +-pi may come out as +pi on one back end and -pi on
  // the other. An error e in x and y moves the phase by up to about e / r, so the tolerance is
  // the state's (1e-9 fp64 plus the float output's 1e-7 relative rounding of pi; 2e-3 fp32)
  // over r, r floored at 0.05 (an oscillator almost at the origin has no meaningful phase).
  for (std::size_t q = 0; q + 1 < fa.theta_r.size(); q += 2) {
    const double d = std::remainder(double(fa.theta_r[q]) - double(fb.theta_r[q]), 2 * M_PI);
    const double r = std::max(0.05, double(fb.theta_r[q + 1]));
    EXPECT_NEAR(d, 0.0, (f64 ? 1e-6 : 2e-3) / r) << "theta of node " << q / 2;
  }
#ifdef SIMSCOPE_HAVE_CUDA
  std::vector<float> dev(fa.theta_r.size());
  ASSERT_EQ(
      cudaMemcpy(dev.data(), fa.device.get(), dev.size() * sizeof(float), cudaMemcpyDeviceToHost),
      cudaSuccess);
  EXPECT_EQ(dev, fa.theta_r);
#endif
  EXPECT_GT(gpu->peak_device_bytes(), 0);
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, OscCudaVsCpu,
    ::testing::Values(Case{"ring_N100_K1_fp64", 100, 1, "ring", Precision::Fp64},
                      Case{"ws_N100_K37_fp64", 100, 37, "ws", Precision::Fp64},
                      Case{"ws_N100_K300_fp64", 100, 300, "ws", Precision::Fp64},
                      Case{"ws_N100_K300_fp32", 100, 300, "ws", Precision::Fp32},
                      Case{"er_N7_K500_fp64", 7, 500, "er", Precision::Fp64},
                      Case{"ws_N33_K1000_fp64", 33, 1000, "ws", Precision::Fp64},
                      Case{"ws_N700_K3_fp64", 700, 3, "ws", Precision::Fp64},
                      Case{"ws_N2048_K2_fp64", 2048, 2, "ws", Precision::Fp64},
                      Case{"file_N50_K40_fp64", 50, 40, "file", Precision::Fp64},
                      Case{"file_N50_K40_fp32", 50, 40, "file", Precision::Fp32}),
    [](const auto& info) { return std::string(info.param.name); });

/// Forces the kernel layout (SIMSCOPE_OSC_NPL / SIMSCOPE_OSC_B) while in scope, so that a failed
/// assertion or an exception cannot leave it set for the tests after it in the same process.
struct ForcedLayout {
  ForcedLayout(int npl, int B) {
    setenv("SIMSCOPE_OSC_NPL", std::to_string(npl).c_str(), 1);
    setenv("SIMSCOPE_OSC_B", std::to_string(B).c_str(), 1);
  }
  ~ForcedLayout() {
    unsetenv("SIMSCOPE_OSC_NPL");
    unsetenv("SIMSCOPE_OSC_B");
  }
};

TEST(OscCuda, EveryForcedLayoutAgrees) {
  SKIP_WITHOUT_CUDA();
  // Each kernel against the CPU. N = 61 (odd): every npl leaves a partial last row of nodes;
  // K = 25 with B = 3: a last block with one member; unweighted Watts-Strogatz and the weighted
  // edge list with a hub (uneven degrees, the overflow path), in fp64 and fp32.
  const int N = 61, K = 25;
  for (const char* topo : {"ws", "file"})
    for (Precision prec : {Precision::Fp64, Precision::Fp32}) {
      const Topologies t = std::string(topo) == "ws" ? watts_strogatz(N, 4, 0.2, K, 8)
                                                     : make(Case{"", N, K, "file", prec});
      const State s0 = initial_state("random", N, K, 8);
      const bool f64 = prec == Precision::Fp64;
      // The textbook float64 RK4 (test_osc_util.hpp) as well as the CPU back end: a wrong state
      // then says which of the two back ends is wrong.
      State ref = s0;
      for (int k = 0; k < K; ++k) {
        auto x = test::member(s0.x, N, k), y = test::member(s0.y, N, k);
        test::rk4_reference(t, k, Model{}, 0.01, 500, x, y);
        std::copy(x.begin(), x.end(), ref.x.begin() + std::ptrdiff_t(k) * N);
        std::copy(y.begin(), y.end(), ref.y.begin() + std::ptrdiff_t(k) * N);
      }
      auto cpu = make_ensemble(Backend::Cpu);
      cpu->load(t, s0, prec);
      Series sc;
      cpu->advance(Model{}, 0.01, 500, Recording{100, 10, K - 1}, sc);
      const State b = cpu->state();
      for (int npl : {1, 2, 4, 5, 8})
        for (int B : {1, 3}) {
          const ForcedLayout forced(npl, B);
          auto gpu = make_ensemble(Backend::Cuda);
          gpu->load(t, s0, prec);
          Series sg;
          gpu->advance(Model{}, 0.01, 500, Recording{100, 10, K - 1}, sg);
          const State a = gpu->state();
          const std::string at = std::string(topo) + (f64 ? " fp64" : " fp32") + " npl " +
                                 std::to_string(npl) + " B " + std::to_string(B);
          EXPECT_LT(max_abs_diff(a.x, ref.x), f64 ? 1e-9 : 2e-3) << at << " (reference)";
          EXPECT_LT(max_abs_diff(a.y, ref.y), f64 ? 1e-9 : 2e-3) << at << " (reference)";
          EXPECT_LT(max_abs_diff(a.x, b.x), f64 ? 1e-9 : 2e-3) << at;
          EXPECT_LT(max_abs_diff(a.y, b.y), f64 ? 1e-9 : 2e-3) << at;
          EXPECT_LT(max_abs_diff(sg.msd, sc.msd), f64 ? 1e-9 : 1e-3) << at;
          EXPECT_LT(max_abs_diff(sg.order, sc.order), f64 ? 1e-9 : 1e-3) << at;
          EXPECT_LT(max_abs_diff(sg.watch_msd, sc.watch_msd), f64 ? 1e-9 : 1e-3) << at;
          const MemberStats ma = gpu->member_stats(100), mb = cpu->member_stats(100);
          for (int k = 0; k < K; ++k)
            EXPECT_NEAR(ma.msd_mean[std::size_t(k)], mb.msd_mean[std::size_t(k)],
                        (f64 ? 1e-9 : 1e-3) * (1 + mb.msd_mean[std::size_t(k)]))
                << at << " member " << k;
        }
    }
}

TEST(OscCuda, NonFiniteMemberBesideFiniteOnesInABlock) {
  SKIP_WITHOUT_CUDA();
  // Three members of 9 nodes per block in one warp (npl 2: P = 5), member 4 (the middle one of
  // the second block) blowing up: its neighbours in the block and warp stay exact, it is left out
  // of the means and flagged, and its own samples are NaN, in both precisions.
  const int N = 9, K = 7, bad = 4;
  const Topologies t = erdos_renyi(N, 0.4, K, 3);
  // (On the limit cycle, dt = 0.05: the other members are far from RK4's stability limit.)
  State s0 = initial_state("uniform_phase", N, K, 5);
  for (int i = 0; i < N; ++i) s0.x[std::size_t(bad * N + i)] = 50.0;
  const Model m{1.0, 1.0, 0.1};
  const Recording rec{20, 5, bad};
  for (Precision prec : {Precision::Fp64, Precision::Fp32}) {
    const bool f64 = prec == Precision::Fp64;
    const ForcedLayout forced(2, 3);
    auto gpu = make_ensemble(Backend::Cuda), cpu = make_ensemble(Backend::Cpu);
    gpu->load(t, s0, prec);
    cpu->load(t, s0, prec);
    Series sg, sc;
    for (long n : {3L, 200L}) {
      gpu->advance(m, 0.05, n, rec, sg);
      cpu->advance(m, 0.05, n, rec, sc);
    }
    const MemberStats ma = gpu->member_stats(rec.transient), mb = cpu->member_stats(rec.transient);
    EXPECT_EQ(ma.failed, mb.failed);
    ASSERT_EQ(ma.failed.size(), std::size_t(K));
    EXPECT_EQ(ma.failed[bad], 1);
    ASSERT_EQ(sg.size(), sc.size());
    EXPECT_EQ(sg.finite, sc.finite);
    for (std::int64_t f : sg.finite) EXPECT_EQ(f, K - 1);
    EXPECT_LT(max_abs_diff(sg.msd, sc.msd), f64 ? 1e-9 : 1e-3);
    EXPECT_LT(max_abs_diff(sg.order, sc.order), f64 ? 1e-9 : 1e-3);
    for (std::size_t j = 0; j < sg.size(); ++j) {
      EXPECT_TRUE(std::isnan(sg.watch_msd[j])) << j;
      EXPECT_TRUE(std::isnan(sg.watch_order[j])) << j;
    }
    const State a = gpu->state(), b = cpu->state();
    for (int k = 0; k < K; ++k) {
      if (k == bad) continue;
      EXPECT_LT(max_abs_diff(test::member(a.x, N, k), test::member(b.x, N, k)), f64 ? 1e-9 : 2e-3)
          << k;
      EXPECT_NEAR(ma.msd_mean[std::size_t(k)], mb.msd_mean[std::size_t(k)],
                  (f64 ? 1e-9 : 1e-3) * (1 + mb.msd_mean[std::size_t(k)]))
          << k;
    }
  }
}

TEST(OscCuda, NonFiniteMembersAndCancel) {
  SKIP_WITHOUT_CUDA();
  const int N = 8, K = 40;
  State s0 = initial_state("uniform_phase", N, K, 1);
  for (int i = 0; i < N; ++i) s0.x[std::size_t(3 * N + i)] = 50.0;
  StudyOptions o;
  o.model = Model{1.0, 1.0, 0.1};
  o.dt = 0.1, o.steps = 400, o.transient = 100, o.every = 10;
  auto gpu = make_ensemble(Backend::Cuda), cpu = make_ensemble(Backend::Cpu);
  const StudyResult a = run_study(*gpu, ring(N, 2, K), s0, o);
  const StudyResult b = run_study(*cpu, ring(N, 2, K), s0, o);
  EXPECT_EQ(a.failed, b.failed);
  EXPECT_EQ(a.failed_count, 1);
  EXPECT_EQ(a.finite_t, b.finite_t);
  EXPECT_NEAR(a.msd_mean, b.msd_mean, 1e-9 * (1 + b.msd_mean));

  // Cancel a long run once its first chunk is done (small, so that it stays quick under
  // compute-sanitizer): the state is that of the CPU after the same steps, and usable.
  const Topologies r = ring(16, 2, 64);
  const State r0 = initial_state("random", 16, 64, 1);
  gpu->load(r, r0, Precision::Fp64);
  Progress p;
  std::thread canceller([&] {
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (p.fraction.load() == 0 && std::chrono::steady_clock::now() < until)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    p.cancel = true;
  });
  Series s;
  // (No time average: msd and R only every 1000 steps, fewer shared-memory accesses to check.)
  const Recording rec{std::int64_t(1) << 40, 1000, -1};
  EXPECT_THROW(gpu->advance(Model{}, 0.01, 1000000000, rec, s, &p), Cancelled);
  canceller.join();
  const std::int64_t done = gpu->steps_done();
  ASSERT_GT(done, 0);
  ASSERT_LT(done, 10000000);
  cpu->load(r, r0, Precision::Fp64);
  Series s2;
  cpu->advance(Model{}, 0.01, done, rec, s2);
  EXPECT_LT(max_abs_diff(gpu->state().x, cpu->state().x), 1e-8);
  EXPECT_EQ(s.step, s2.step);
  EXPECT_NO_THROW(gpu->advance(Model{}, 0.01, 10, Recording{}, s));
}

/// True when a and b hold the same values: equal within `tol` * (1 + |b|) where finite, and
/// non-finite in the same places with the same kind (NaN, +inf, -inf).
bool same_values(const std::vector<double>& a, const std::vector<double>& b, double tol) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::isnan(a[i]) || std::isnan(b[i])) {
      if (std::isnan(a[i]) != std::isnan(b[i])) return false;
    } else if (std::isinf(a[i]) || std::isinf(b[i])) {
      if (a[i] != b[i]) return false;
    } else if (std::fabs(a[i] - b[i]) > tol * (1 + std::fabs(b[i]))) {
      return false;
    }
  }
  return true;
}

TEST(OscCuda, FailedMemberIsFrozenAsOnTheCpu) {
  SKIP_WITHOUT_CUDA();
  // Member 2 blows up in the first call (x = 50 at dt = 0.05); afterwards both back ends skip it
  // (oscillators_cpu.cpp): its state stays what it was when it failed, the same on both (so a
  // state.npy is the same), while its neighbours in the block keep integrating.
  const int N = 9, K = 5, bad = 2;
  const Topologies t = erdos_renyi(N, 0.4, K, 3);
  State s0 = initial_state("uniform_phase", N, K, 5);
  for (int i = 0; i < N; ++i) s0.x[std::size_t(bad * N + i)] = 50.0;
  const Model m{1.0, 1.0, 0.1};
  const Recording rec{20, 5, bad};
  for (Precision prec : {Precision::Fp64, Precision::Fp32}) {
    const bool f64 = prec == Precision::Fp64;
    const ForcedLayout forced(2, 3);  // members 0-2 in one block, 3-4 in the next
    auto gpu = make_ensemble(Backend::Cuda), cpu = make_ensemble(Backend::Cpu);
    gpu->load(t, s0, prec);
    cpu->load(t, s0, prec);
    Series sg, sc;
    gpu->advance(m, 0.05, 30, rec, sg);
    cpu->advance(m, 0.05, 30, rec, sc);
    ASSERT_EQ(gpu->member_stats(0).failed[bad], 1);
    ASSERT_EQ(cpu->member_stats(0).failed[bad], 1);
    const State failed_gpu = gpu->state(), failed_cpu = cpu->state();
    for (long n : {1L, 57L}) {
      gpu->advance(m, 0.05, n, rec, sg);
      cpu->advance(m, 0.05, n, rec, sc);
    }
    const State a = gpu->state(), b = cpu->state();
    const double tol = f64 ? 1e-9 : 2e-3;
    // Frozen: the failed member's state after the later calls is the one it failed with.
    EXPECT_TRUE(same_values(test::member(a.x, N, bad), test::member(failed_gpu.x, N, bad), 0));
    EXPECT_TRUE(same_values(test::member(a.y, N, bad), test::member(failed_gpu.y, N, bad), 0));
    EXPECT_TRUE(same_values(test::member(b.x, N, bad), test::member(failed_cpu.x, N, bad), 0));
    // The same on both back ends, non-finite entries included.
    EXPECT_TRUE(same_values(a.x, b.x, tol));
    EXPECT_TRUE(same_values(a.y, b.y, tol));
    for (std::size_t j = 0; j < sg.size(); ++j) EXPECT_TRUE(std::isnan(sg.watch_msd[j])) << j;
    EXPECT_EQ(sg.finite, sc.finite);
    EXPECT_LT(max_abs_diff(sg.msd, sc.msd), f64 ? 1e-9 : 1e-3);
  }
}

TEST(OscCuda, TooManyNodesIsAClearError) {
  SKIP_WITHOUT_CUDA();
  auto gpu = make_ensemble(Backend::Cuda);
  const std::string m = test::error_of(
      [&] { gpu->load(ring(3000, 2, 1), initial_state("random", 3000, 1, 1), Precision::Fp64); });
  EXPECT_NE(m.find("--backend cpu"), std::string::npos) << m;
}

}  // namespace
}  // namespace simscope::oscillators
