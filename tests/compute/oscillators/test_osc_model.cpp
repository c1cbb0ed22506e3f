// The oscillators model and integrator: RK4 order against the analytic solution, the limit
// cycle, scipy's DOP853 on a coupled ring, the ring Laplacian against the original (G.X - 2X) e/2,
// and both back-end precisions against the float64 reference integrator.
#include <cmath>
#include <cstdio>
#include <numeric>

#include "oscillators/ensemble.hpp"
#include "oscillators/model.hpp"
#include "oscillators/topology.hpp"
#include "test_osc_util.hpp"

namespace simscope::oscillators {
namespace {

using test::no_edges;

constexpr double kPi = 3.141592653589793;

/// The analytic solution of one uncoupled oscillator (polar form: dr/dt = r - r^3,
/// dtheta/dt = w + c r^2): r(t) = r0 e^t / sqrt(1 + r0^2 (e^{2t} - 1)),
/// theta(t) = theta0 + w t + (c/2) ln(1 + r0^2 (e^{2t} - 1)).
void analytic(double r0, double th0, double w, double c, double t, double& x, double& y) {
  const double g = 1 + r0 * r0 * (std::exp(2 * t) - 1);
  const double r = r0 * std::exp(t) / std::sqrt(g);
  const double th = th0 + w * t + c / 2 * std::log(g);
  x = r * std::cos(th), y = r * std::sin(th);
}

/// One oscillator integrated to time T with step dt on the CPU ensemble, fp64.
void integrate_one(double x0, double y0, const Model& m, double dt, long steps, double& x,
                   double& y, Precision p = Precision::Fp64) {
  auto e = make_ensemble(Backend::Cpu);
  State s;
  s.members = 1, s.nodes = 1, s.x = {x0}, s.y = {y0};
  e->load(no_edges(1, 1), s, p);
  Series series;
  e->advance(m, dt, steps, Recording{}, series);
  const State f = e->state();
  x = f.x[0], y = f.y[0];
}

TEST(OscModel, Rk4IsFourthOrder) {
  // Halving dt divides the error at t = 2 by 2^4 = 16 (within 20 %).
  const Model m{1.3, 0.7, 0.0};
  const double r0 = 0.5, th0 = 0.3, T = 2.0;
  double ex, ey;
  analytic(r0, th0, m.omega, m.c, T, ex, ey);
  std::vector<double> err;
  for (double dt : {0.1, 0.05, 0.025, 0.0125}) {
    double x, y;
    integrate_one(r0 * std::cos(th0), r0 * std::sin(th0), m, dt, std::lround(T / dt), x, y);
    err.push_back(std::hypot(x - ex, y - ey));
  }
  for (std::size_t i = 0; i + 1 < err.size(); ++i) {
    const double ratio = err[i] / err[i + 1];
    EXPECT_NEAR(ratio, 16.0, 16.0 * 0.2)
        << "dt ratio step " << i << ": errors " << err[i] << ", " << err[i + 1];
  }
  EXPECT_LT(err.back(), 1e-7);
}

TEST(OscModel, LimitCycleRadiusAndFrequency) {
  // From inside and outside the cycle: |z| -> 1, and the phase turns at w + c (up to RK4's
  // O(dt^4) error: ~5e-9 at dt = 0.01).
  const Model m{2.0, 0.5, 0.0};
  for (double r0 : {0.2, 2.5}) {
    auto e = make_ensemble(Backend::Cpu);
    State s;
    s.members = 1, s.nodes = 1, s.x = {r0}, s.y = {0.0};
    e->load(no_edges(1, 1), s, Precision::Fp64);
    Series series;
    e->advance(m, 0.01, 3000, Recording{}, series);  // t = 30
    State f = e->state();
    EXPECT_NEAR(std::hypot(f.x[0], f.y[0]), 1.0, 1e-7) << "r0 = " << r0;
    // Frequency: the unwrapped phase advance over a further t = 10.
    double th = std::atan2(f.y[0], f.x[0]), total = 0;
    for (int k = 0; k < 1000; ++k) {
      e->advance(m, 0.01, 1, Recording{}, series);
      f = e->state();
      double d = std::atan2(f.y[0], f.x[0]) - th;
      d -= 2 * kPi * std::round(d / (2 * kPi));
      total += d;
      th = std::atan2(f.y[0], f.x[0]);
    }
    EXPECT_NEAR(total / 10.0, m.omega + m.c, 1e-7) << "r0 = " << r0;
  }
}

TEST(OscModel, RingLaplacianEqualsOriginalFormula) {
  // On a ring with two neighbours, (e/2) sum_j G_ij (x_j - x_i) is the original
  // (G.X - 2X) e/2 with the dense G: compare the whole right-hand side.
  const int N = 23;
  const Model m{1.0, 1.0, 0.37};
  const Topologies t = ring(N, 2, 1);
  const State s = initial_state("random", N, 1, 5);
  std::vector<double> dx(N), dy(N);
  rates(t, 0, m, s.x.data(), s.y.data(), dx.data(), dy.data());
  for (int i = 0; i < N; ++i) {
    const double X = s.x[i], Y = s.y[i];
    double gx = 0;  // (G.X)_i with G[i, i+-1] = 1
    for (int j = 0; j < N; ++j)
      if (j == (i + 1) % N || j == (i + N - 1) % N) gx += s.x[j];
    const double r2 = X * X + Y * Y;
    const double ox = (X - Y * m.omega) - (X + Y * m.c) * r2 + (gx - 2 * X) * (m.coupling / 2);
    const double oy = (Y + X * m.omega) - (Y - m.c * X) * r2;
    EXPECT_NEAR(dx[i], ox, 1e-14 * (1 + std::fabs(ox))) << "node " << i;
    EXPECT_NEAR(dy[i], oy, 1e-14 * (1 + std::fabs(oy))) << "node " << i;
  }
}

TEST(OscModel, EnsembleMatchesReferenceIntegrator) {
  // CPU ensemble (both precisions) against the textbook RK4 through rates(): Watts-Strogatz and
  // weighted edge-list networks, several members.
  const int N = 37, K = 3;
  const Model m{0.8, 1.1, 0.6};
  const double dt = 0.005;
  const long steps = 400;
  const auto wfile = test::write_text("w.txt", "0 1 0.5\n1 2 2\n2 3 1.5\n5 30 -0.25\n7 36 3\n");
  // A weighted ring with a chord and a missing edge: the CPU table takes the ring-plus-
  // corrections form with weight corrections; Erdos-Renyi takes the ELL form.
  std::string ring_text;
  for (int i = 0; i < N; ++i)
    if (i != 17)
      ring_text += std::to_string(i) + " " + std::to_string((i + 1) % N) + " " +
                   (i % 7 ? "1" : "1.75") + "\n";
  ring_text += "4 20 0.5\n";
  const auto rfile = test::write_text("wring.txt", ring_text);
  for (const Topologies& t :
       {watts_strogatz(N, 4, 0.2, K, 11), load_edge_list(wfile, N, K), load_edge_list(rfile, N, K),
        erdos_renyi(N, 0.2, K, 12), ring(N, 6, K)}) {
    const State s0 = initial_state("random", N, K, 3);
    for (Precision p : {Precision::Fp64, Precision::Fp32}) {
      auto e = make_ensemble(Backend::Cpu);
      e->load(t, s0, p);
      Series series;
      e->advance(m, dt, steps / 2, Recording{}, series);
      e->advance(m, dt, steps - steps / 2, Recording{}, series);  // split: same as one call
      const State f = e->state();
      EXPECT_EQ(e->steps_done(), steps);
      for (int k = 0; k < K; ++k) {
        auto x = test::member(s0.x, N, k), y = test::member(s0.y, N, k);
        test::rk4_reference(t, k, m, dt, steps, x, y);
        double err = 0;
        for (int i = 0; i < N; ++i)
          err = std::max({err, std::fabs(f.x[std::size_t(k) * N + i] - x[std::size_t(i)]),
                          std::fabs(f.y[std::size_t(k) * N + i] - y[std::size_t(i)])});
        EXPECT_LT(err, p == Precision::Fp64 ? 1e-12 : 2e-5)
            << (p == Precision::Fp64 ? "fp64" : "fp32") << " member " << k
            << (t.weighted() ? " (weighted file)" : " (generated)") << ", " << t.col.size()
            << " entries";
      }
    }
  }
}

TEST(OscModel, MatchesScipyDop853OnTenNodeRing) {
  if (!test::python_has("numpy, scipy.integrate"))
    GTEST_SKIP() << "numpy and scipy (" << SIMSCOPE_PYTHON << ") are needed for this test";
  // A 10-node ring (k = 2, the original coupling), fp64 RK4 with dt = 1e-3 to t = 10, against
  // scipy.integrate.solve_ivp(DOP853, rtol = 1e-12): max |difference| <= 1e-8.
  const int N = 10;
  const Model m{1.0, 1.0, 0.2};
  State s0 = initial_state("random", N, 1, 42);
  std::ostringstream code;
  code.precision(17);
  code << "import numpy as np\nfrom scipy.integrate import solve_ivp\n"
       << "N = " << N << "; w = " << m.omega << "; c = " << m.c << "; e = " << m.coupling << "\n"
       << "G = np.zeros((N, N)); i = np.arange(N); G[i, (i + 1) % N] = 1; G[(i + 1) % N, i] = 1\n"
       << "def f(t, z):\n"
       << "    X, Y = z[:N], z[N:]\n"
       << "    r2 = X * X + Y * Y\n"
       << "    dx = (X - Y * w) - (X + Y * c) * r2 + (G @ X - 2 * X) * (e / 2)\n"
       << "    dy = (Y + X * w) - (Y - c * X) * r2\n"
       << "    return np.concatenate([dx, dy])\n"
       << "z0 = np.array([";
  for (int i = 0; i < N; ++i) code << s0.x[std::size_t(i)] << ",";
  for (int i = 0; i < N; ++i) code << s0.y[std::size_t(i)] << ",";
  code << "])\n"
       << "r = solve_ivp(f, (0, 10), z0, method='DOP853', rtol=1e-12, atol=1e-14)\n"
       << "assert r.success\n"
       << "print(' '.join(repr(float(v)) for v in r.y[:, -1]))\n";
  std::string out;
  ASSERT_EQ(test::run_python(code.str(), &out), 0) << "scipy script failed";
  std::istringstream in(out);
  std::vector<double> ref;
  for (double v; in >> v;) ref.push_back(v);
  ASSERT_EQ(ref.size(), std::size_t(2 * N)) << out;

  auto e = make_ensemble(Backend::Cpu);
  e->load(ring(N, 2, 1), s0, Precision::Fp64);
  Series series;
  e->advance(m, 1e-3, 10000, Recording{}, series);
  const State f = e->state();
  double err = 0;
  for (int i = 0; i < N; ++i)
    err = std::max({err, std::fabs(f.x[std::size_t(i)] - ref[std::size_t(i)]),
                    std::fabs(f.y[std::size_t(i)] - ref[std::size_t(N + i)])});
  EXPECT_LE(err, 1e-8);
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", err);
  RecordProperty("max_abs_diff_vs_dop853", text);
}

}  // namespace
}  // namespace simscope::oscillators
