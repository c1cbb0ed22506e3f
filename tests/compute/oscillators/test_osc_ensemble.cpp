// The oscillators observables and the CPU ensemble's bookkeeping: msd and R on hand-made states,
// time averages and samples against a float64 recomputation, chunk independence, non-finite
// members, cancellation, initial states and files, studies, the CUDA launch plan.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <thread>

#include "io/npy.hpp"
#include "oscillators/ensemble.hpp"
#include "oscillators/model.hpp"
#include "oscillators/oscillators_internal.hpp"
#include "oscillators/study.hpp"
#include "oscillators/topology.hpp"
#include "test_osc_util.hpp"

namespace simscope::oscillators {
namespace {

using test::error_of;

TEST(OscObservables, MsdAndOrderOnHandMadeStates) {
  // msd = (1/N) sum (x - mean)^2
  const double x1[] = {1, 2, 3, 4};
  EXPECT_DOUBLE_EQ(mean_square_deviation(x1, 4), 1.25);
  const double same[] = {0.3, 0.3, 0.3};
  EXPECT_DOUBLE_EQ(mean_square_deviation(same, 3), 0.0);
  // R: all in phase -> 1 (whatever the amplitudes); two opposite -> 0; four at right angles -> 0;
  // three at 0 and one at pi/2 -> |3 + i| / 4.
  const double ax[] = {1, 2, 0.5}, ay[] = {1, 2, 0.5};
  EXPECT_NEAR(order_parameter(ax, ay, 3), 1.0, 1e-15);
  const double bx[] = {1, -3}, by[] = {0, 0};
  EXPECT_NEAR(order_parameter(bx, by, 2), 0.0, 1e-15);
  const double cx[] = {1, 0, -1, 0}, cy[] = {0, 2, 0, -0.1};
  EXPECT_NEAR(order_parameter(cx, cy, 4), 0.0, 1e-15);
  const double dx[] = {1, 2, 3, 0}, dy[] = {0, 0, 0, 5};
  EXPECT_NEAR(order_parameter(dx, dy, 4), std::sqrt(10.0) / 4, 1e-15);
  // z = 0 counts as theta = 0.
  const double ex[] = {0, 1}, ey[] = {0, 0};
  EXPECT_NEAR(order_parameter(ex, ey, 2), 1.0, 1e-15);
  EXPECT_DOUBLE_EQ(phase(0, 0), 0.0);
  EXPECT_DOUBLE_EQ(phase(-1, 0), 3.141592653589793);
}

/// Integrates with the reference integrator step by step, recomputing msd and R in float64.
struct Expected {
  std::vector<double> msd_mean;        // per member
  std::vector<double> msd_t, order_t;  // ensemble means at the samples
};
Expected recompute(const Topologies& t, const State& s0, const Model& m, double dt, long steps,
                   long transient, long every) {
  const int N = t.nodes, K = t.members;
  Expected e;
  e.msd_mean.assign(std::size_t(K), 0);
  e.msd_t.assign(std::size_t(steps / every), 0);
  e.order_t.assign(std::size_t(steps / every), 0);
  for (int k = 0; k < K; ++k) {
    auto x = test::member(s0.x, N, k), y = test::member(s0.y, N, k);
    for (long g = 1; g <= steps; ++g) {
      test::rk4_reference(t, k, m, dt, 1, x, y);
      const double msd = mean_square_deviation(x.data(), N);
      if (g > transient) e.msd_mean[std::size_t(k)] += msd / double(steps - transient);
      if (g % every == 0) {
        e.msd_t[std::size_t(g / every - 1)] += msd / K;
        e.order_t[std::size_t(g / every - 1)] += order_parameter(x.data(), y.data(), N) / K;
      }
    }
  }
  return e;
}

TEST(OscEnsemble, TimeAverageAndSamplesMatchRecomputation) {
  const int N = 30, K = 4;
  const Model m{1.0, 1.0, 0.4};
  const Topologies t = watts_strogatz(N, 4, 0.2, K, 5);
  const State s0 = initial_state("random", N, K, 6);
  const long steps = 3000, transient = 700, every = 7;
  const Expected ex = recompute(t, s0, m, 0.01, steps, transient, every);

  StudyOptions o;
  o.model = m, o.dt = 0.01, o.steps = steps, o.transient = transient, o.every = every;
  auto e = make_ensemble(Backend::Cpu);
  const StudyResult r = run_study(*e, t, s0, o);
  ASSERT_EQ(r.msd.size(), std::size_t(K));
  ASSERT_EQ(r.msd_t.size(), std::size_t(steps / every));
  for (int k = 0; k < K; ++k)
    EXPECT_NEAR(r.msd[std::size_t(k)], ex.msd_mean[std::size_t(k)],
                1e-11 * ex.msd_mean[std::size_t(k)]);
  for (std::size_t j = 0; j < r.msd_t.size(); ++j) {
    EXPECT_NEAR(r.msd_t[j], ex.msd_t[j], 1e-11 * (1 + ex.msd_t[j])) << "sample " << j;
    EXPECT_NEAR(r.order_t[j], ex.order_t[j], 1e-11) << "sample " << j;
    EXPECT_EQ(r.finite_t[j], K);
  }
  double mean = 0;
  for (double v : ex.msd_mean) mean += v / K;
  EXPECT_NEAR(r.msd_mean, mean, 1e-11 * mean);
  double ss = 0;
  for (double v : ex.msd_mean) ss += (v - mean) * (v - mean);
  EXPECT_NEAR(r.msd_sem, std::sqrt(ss / (K - 1)) / std::sqrt(double(K)), 1e-9 * r.msd_sem);
  EXPECT_EQ(r.valid, K);
  EXPECT_EQ(r.failed_count, 0);
  EXPECT_EQ(r.final_state.x.size(), std::size_t(N * K));
}

TEST(OscEnsemble, MembersWithRingAndEllTablesMatchTheReference) {
  // Watts-Strogatz members of degree 4 get ring + correction tables or ELL tables depending on
  // their rewiring; a thread integrates members of both kinds one after the other (its scratch
  // arrays are reused), in any thread count.
  const int N = 61, K = 25;
  const Topologies t = watts_strogatz(N, 4, 0.2, K, 8);
  const State s0 = initial_state("random", N, K, 8);
  for (Precision prec : {Precision::Fp64, Precision::Fp32}) {
    auto e = make_ensemble(Backend::Cpu);
    e->load(t, s0, prec);
    Series s;
    e->advance(Model{}, 0.01, 50, Recording{}, s);
    const State a = e->state();
    for (int k = 0; k < K; ++k) {
      auto x = test::member(s0.x, N, k), y = test::member(s0.y, N, k);
      test::rk4_reference(t, k, Model{}, 0.01, 50, x, y);
      double d = 0;
      for (int i = 0; i < N; ++i)
        d = std::max({d, std::fabs(a.x[std::size_t(k * N + i)] - x[std::size_t(i)]),
                      std::fabs(a.y[std::size_t(k * N + i)] - y[std::size_t(i)])});
      EXPECT_LT(d, prec == Precision::Fp64 ? 1e-12 : 1e-4) << "member " << k;
    }
  }
}

TEST(OscEnsemble, ChunkingDoesNotChangeResults) {
  // One call, many calls of odd lengths: bit-identical state, averages and samples.
  const int N = 20, K = 3;
  const Model m{1.0, 0.5, 0.3};
  const Topologies t = ring(N, 4, K);
  const State s0 = initial_state("uniform_phase", N, K, 2);
  Recording rec;
  rec.transient = 1500, rec.every = 5, rec.watch = 1;
  auto a = make_ensemble(Backend::Cpu), b = make_ensemble(Backend::Cpu);
  a->load(t, s0, Precision::Fp64);
  b->load(t, s0, Precision::Fp64);
  Series sa, sb;
  a->advance(m, 0.01, 5000, rec, sa);
  for (long n : {1, 2, 1023, 1024, 1025, 7, 918, 1000}) b->advance(m, 0.01, n, rec, sb);
  ASSERT_EQ(b->steps_done(), 5000);
  EXPECT_EQ(a->state().x, b->state().x);
  EXPECT_EQ(a->member_stats(rec.transient).msd_mean, b->member_stats(rec.transient).msd_mean);
  EXPECT_EQ(sa.msd, sb.msd);
  EXPECT_EQ(sa.order, sb.order);
  EXPECT_EQ(sa.step, sb.step);
  EXPECT_EQ(sa.watch_msd, sb.watch_msd);
  ASSERT_EQ(sa.size(), 1000u);
  EXPECT_EQ(sa.step.front(), 5);
  EXPECT_EQ(sa.step.back(), 5000);
  EXPECT_EQ(sa.watch_order.size(), 1000u);
}

TEST(OscEnsemble, NonFiniteMembersAreFlaggedExcludedAndCounted) {
  // Member 1 starts far out (|z| = 50): with dt = 0.1 its RK4 blows up, the others (on the limit
  // cycle) stay finite. The study goes on; member 1 is NaN in msd and left out of the means.
  const int N = 8, K = 4;
  State s0 = initial_state("uniform_phase", N, K, 1);
  for (int i = 0; i < N; ++i) s0.x[std::size_t(N + i)] = 50.0;
  StudyOptions o;
  o.model = Model{1.0, 1.0, 0.1};
  o.dt = 0.1, o.steps = 400, o.transient = 100, o.every = 10;
  auto e = make_ensemble(Backend::Cpu);
  const StudyResult r = run_study(*e, ring(N, 2, K), s0, o);
  EXPECT_EQ(r.failed_count, 1);
  EXPECT_EQ(r.failed[1], 1);
  EXPECT_TRUE(std::isnan(r.msd[1]));
  EXPECT_EQ(r.valid, 3);
  for (int k : {0, 2, 3}) EXPECT_TRUE(std::isfinite(r.msd[std::size_t(k)]));
  EXPECT_TRUE(std::isfinite(r.msd_mean));
  for (std::size_t j = 0; j < r.msd_t.size(); ++j) {
    EXPECT_TRUE(std::isfinite(r.msd_t[j])) << j;
    EXPECT_GE(r.finite_t[j], 3);
  }
  EXPECT_EQ(r.finite_t.back(), 3);
}

TEST(OscEnsemble, CancelLeavesAConsistentState) {
  const Topologies t = ring(100, 2, 64);
  const State s0 = initial_state("random", 100, 64, 1);
  auto e = make_ensemble(Backend::Cpu);
  e->load(t, s0, Precision::Fp64);
  Progress p;
  std::thread canceller([&] {  // once the run has made progress (60 s at most), not after a sleep
    for (int i = 0; i < 60000 && p.fraction.load() <= 0; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    p.cancel = true;
  });
  Series s;
  EXPECT_THROW(e->advance(Model{}, 0.01, 100000000, Recording{}, s, &p), Cancelled);
  canceller.join();
  const std::int64_t done = e->steps_done();
  EXPECT_GT(done, 0);
  EXPECT_LT(done, 100000000);
  // Going on from there equals the reference from the start.
  e->advance(Model{}, 0.01, 10, Recording{}, s);
  auto x = test::member(s0.x, 100, 5), y = test::member(s0.y, 100, 5);
  test::rk4_reference(t, 5, Model{}, 0.01, done + 10, x, y);
  const State f = e->state();
  for (int i = 0; i < 100; ++i) EXPECT_NEAR(f.x[std::size_t(5 * 100 + i)], x[std::size_t(i)], 1e-9);
}

TEST(OscEnsemble, ArgumentChecks) {
  auto e = make_ensemble(Backend::Cpu);
  Series s;
  EXPECT_FALSE(error_of([&] { e->advance(Model{}, 0.01, 1, Recording{}, s); }).empty());
  e->load(ring(5, 2, 2), initial_state("random", 5, 2, 1), Precision::Fp64);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_NE(error_of([&] { e->advance(Model{}, nan, 1, Recording{}, s); }).find("integrator.dt"),
            std::string::npos);
  EXPECT_NE(error_of([&] { e->advance(Model{}, -0.1, 1, Recording{}, s); }).find("integrator.dt"),
            std::string::npos);
  Recording bad;
  bad.every = 0;
  EXPECT_NE(error_of([&] { e->advance(Model{}, 0.1, 1, bad, s); }).find("record.every"),
            std::string::npos);
  // A state that does not match the networks; a non-finite initial value.
  EXPECT_FALSE(error_of([&] {
                 e->load(ring(5, 2, 2), initial_state("random", 6, 2, 1), Precision::Fp64);
               }).empty());
  State s1 = initial_state("random", 5, 2, 1);
  s1.y[3] = nan;
  EXPECT_NE(error_of([&] { e->load(ring(5, 2, 2), s1, Precision::Fp64); }).find("not finite"),
            std::string::npos);
  StudyOptions o;
  o.steps = 100, o.transient = 100;
  EXPECT_NE(error_of([&] { validate(o); }).find("integrator.transient"), std::string::npos);
  o.transient = 0, o.every = 0;
  EXPECT_NE(error_of([&] { validate(o); }).find("record.every"), std::string::npos);
  o.every = 1, o.steps = 200000000;
  EXPECT_NE(error_of([&] { validate(o); }).find("samples"), std::string::npos);
  o.steps = 100, o.dt = nan;
  EXPECT_NE(error_of([&] { validate(o); }).find("integrator.dt"), std::string::npos);
}

TEST(OscEnsemble, Fp32StaysCloseToFp64) {
  const int N = 50, K = 2;
  const Topologies t = watts_strogatz(N, 4, 0.1, K, 9);
  const State s0 = initial_state("uniform_phase", N, K, 9);
  StudyOptions o;
  o.steps = 2000, o.transient = 500, o.every = 50;
  auto e = make_ensemble(Backend::Cpu);
  const StudyResult a = run_study(*e, t, s0, o);
  o.precision = Precision::Fp32;
  const StudyResult b = run_study(*e, t, s0, o);
  for (int k = 0; k < K; ++k)
    EXPECT_NEAR(b.msd[std::size_t(k)], a.msd[std::size_t(k)], 1e-4 * (1 + a.msd[std::size_t(k)]));
}

TEST(OscEnsemble, FrameHoldsPhasesAndAmplitudes) {
  auto e = make_ensemble(Backend::Cpu);
  State s;
  s.members = 2, s.nodes = 2, s.x = {1, 0, -2, 0}, s.y = {0, 3, 0, 0};
  e->load(test::no_edges(2, 2), s, Precision::Fp64);
  const Frame f = e->frame(5);
  EXPECT_EQ(f.members, 2);
  ASSERT_EQ(f.theta_r.size(), 8u);
  EXPECT_FLOAT_EQ(f.theta_r[0], 0.f);
  EXPECT_FLOAT_EQ(f.theta_r[1], 1.f);
  EXPECT_FLOAT_EQ(f.theta_r[2], float(3.141592653589793 / 2));
  EXPECT_FLOAT_EQ(f.theta_r[3], 3.f);
  EXPECT_FLOAT_EQ(f.theta_r[4], float(3.141592653589793));
  EXPECT_FLOAT_EQ(f.theta_r[5], 2.f);
  EXPECT_FLOAT_EQ(f.theta_r[6], 0.f);
  EXPECT_FLOAT_EQ(f.theta_r[7], 0.f);
  EXPECT_EQ(f.device, nullptr);
}

TEST(OscStates, GeneratedInitialStates) {
  const State a = initial_state("random", 10, 5, 3), b = initial_state("random", 10, 2, 3);
  EXPECT_EQ(test::member(a.x, 10, 1), test::member(b.x, 10, 1));  // independent of K
  EXPECT_NE(test::member(a.x, 10, 0), test::member(a.x, 10, 1));
  const State u = initial_state("uniform_phase", 10, 3, 3);
  for (std::size_t q = 0; q < u.x.size(); ++q) EXPECT_NEAR(std::hypot(u.x[q], u.y[q]), 1.0, 1e-15);
  EXPECT_FALSE(error_of([] { initial_state("zero", 3, 1, 1); }).empty());
}

TEST(OscStates, InitialStateFiles) {
  const auto dir = test::tmp_dir();
  // (N, 2) for every member, float32
  std::vector<float> f = {1, 2, 3, 4, 5, 6};
  io::write_npy((dir / "n2.npy").string(), f.data(), {3, 2});
  const State a = load_initial_state((dir / "n2.npy").string(), 3, 2);
  EXPECT_EQ(a.x, (std::vector<double>{1, 3, 5, 1, 3, 5}));
  EXPECT_EQ(a.y, (std::vector<double>{2, 4, 6, 2, 4, 6}));
  // (K, N, 2), float64
  std::vector<double> d(2 * 3 * 2);
  for (std::size_t q = 0; q < d.size(); ++q) d[q] = double(q);
  io::write_npy((dir / "kn2.npy").string(), d.data(), {2, 3, 2});
  const State b = load_initial_state((dir / "kn2.npy").string(), 3, 2);
  EXPECT_EQ(b.x, (std::vector<double>{0, 2, 4, 6, 8, 10}));
  EXPECT_EQ(b.y, (std::vector<double>{1, 3, 5, 7, 9, 11}));
  // Wrong shapes name both expected forms; NaN names its index.
  const std::string m = error_of([&] { load_initial_state((dir / "kn2.npy").string(), 4, 2); });
  EXPECT_NE(m.find("(2, 3, 2)"), std::string::npos) << m;
  EXPECT_NE(m.find("(4, 2)"), std::string::npos) << m;
  d[7] = std::numeric_limits<double>::quiet_NaN();
  io::write_npy((dir / "nan.npy").string(), d.data(), {2, 3, 2});
  const std::string mn = error_of([&] { load_initial_state((dir / "nan.npy").string(), 3, 2); });
  EXPECT_NE(mn.find("[1, 0, 1]"), std::string::npos) << mn;
  EXPECT_NE(error_of([] { load_initial_state("/nonexistent/s.npy", 3, 2); }).find("s.npy"),
            std::string::npos);
}

TEST(OscLaunchPlan, ChoosesValidLayouts) {
  using detail::choose_plan;
  // The study's shape: 100 nodes, many members, 132 SMs (H200): nearly every thread slot used.
  const auto p = choose_plan(100, 100000, 132, 8);
  EXPECT_GE(p.utilization, 0.95);
  EXPECT_LE(p.threads, detail::max_threads_for_npl(p.npl));
  EXPECT_EQ(p.threads % 32, 0);
  EXPECT_GE(p.P * p.npl, 100);
  EXPECT_EQ(p.blocks, (100000 + p.B - 1) / p.B);
  // One member: one block, one node per thread.
  const auto q = choose_plan(100, 1, 132, 8);
  EXPECT_EQ(q.B, 1);
  EXPECT_EQ(q.npl, 1);
  EXPECT_EQ(q.threads, 128);
  // Every size up to the limit has a plan that fits.
  for (int N : {1, 2, 3, 31, 32, 33, 97, 257, 1000, 1500, 2048})
    for (int K : {1, 64, 300, 100000}) {
      const auto r = choose_plan(N, K, 132, 8);
      EXPECT_LE(r.threads, detail::max_threads_for_npl(r.npl)) << N << " " << K;
      EXPECT_GE(r.P * r.npl, N);
      EXPECT_GE(r.threads, r.B * r.P);
      EXPECT_LE(r.smem, 48u * 1024u);
      EXPECT_GE(r.parts, (r.P + 31) / 32 + 1);
    }
  EXPECT_NE(error_of([] { choose_plan(2049, 1, 132, 8); }).find("--backend cpu"),
            std::string::npos);
  EXPECT_FALSE(error_of([] { detail::plan_for(100, 10, 3, 1, 8); }).empty());
}

}  // namespace
}  // namespace simscope::oscillators
