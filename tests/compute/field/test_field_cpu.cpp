// The CPU field evaluator against the float64 brute-force reference and analytic fields;
// coincidences, options and cancellation.
#include <atomic>
#include <chrono>
#include <ostream>
#include <thread>

#include "field/field_internal.hpp"
#include "test_field_util.hpp"

namespace simscope::field {
namespace {

using test::random_sources;
using test::result_error;
using test::rounded;

Options opts(Precision p, double eps = 0, double k = 1) {
  Options o;
  o.precision = p;
  o.eps = eps;
  o.k = k;
  return o;
}

Result cpu_eval(const Sources& s, const Targets& t, const Options& o, Progress* pr = nullptr) {
  Result r;
  make_evaluator(Backend::Cpu)->evaluate(s, t, o, r, pr);
  return r;
}

Result ref_eval(const Sources& s, const Targets& t, const Options& o) {
  Result r;
  evaluate_reference(s, t, o, r);
  return r;
}

struct Case {
  Precision precision;
  double eps;
  friend std::ostream& operator<<(std::ostream& o, const Case& c) {
    return o << (c.precision == Precision::Fp32 ? "fp32" : "fp64") << ", eps " << c.eps;
  }
};

class CpuVsReference : public ::testing::TestWithParam<Case> {};

// Small random inputs; sizes not multiples of the tile (1024) or the target block (16), a plane
// cutting through the sources and one outside them.
TEST_P(CpuVsReference, SmallRandomPlanes) {
  const Case c = GetParam();
  const Sources s = random_sources(2500, 1.0, 7);
  for (double offset : {0.1, 1.7}) {
    Grid g;
    g.kind = PlaneKind::XZ, g.offset = offset, g.size = 23, g.half_width = 1.2;
    Targets t = make_targets(g);
    if (c.precision == Precision::Fp32) t = rounded(t);
    const Options o = opts(c.precision, c.eps, 2.5);
    const Result r = cpu_eval(s, t, o), ref = ref_eval(s, t, o);
    // README: fp32 within 1e-6 of float64 (relative to the plane's maximum); fp64 sums rounded
    // once to the float32 outputs: 2^-23 of the maximum.
    const double bound = c.precision == Precision::Fp64 ? 1.2e-7 : 1e-6;
    EXPECT_LE(result_error(r, ref), bound) << "offset " << offset;
    EXPECT_EQ(r.skipped_coincidences, 0u);
    EXPECT_TRUE(test::all_finite(r));
    EXPECT_EQ(r.magnitude.size(), t.size());
  }
}

INSTANTIATE_TEST_SUITE_P(Field, CpuVsReference,
                         ::testing::Values(Case{Precision::Fp32, 0}, Case{Precision::Fp64, 0},
                                           Case{Precision::Fp32, 0.05},
                                           Case{Precision::Fp64, 0.05}),
                         [](const auto& info) {
                           return std::string(info.param.precision == Precision::Fp32 ? "fp32"
                                                                                      : "fp64") +
                                  (info.param.eps > 0 ? "_eps" : "_noeps");
                         });

// A box (six faces) and few targets (the sources are then split across threads).
TEST(FieldCpu, BoxAndFewTargets) {
  const Sources s = random_sources(40000, 1.0, 3);
  Grid g;
  g.kind = PlaneKind::Box, g.offset = 1.1, g.size = 3, g.half_width = 1.1;
  const Targets t = rounded(make_targets(g));
  ASSERT_EQ(t.size(), 54u);
  for (Precision p : {Precision::Fp32, Precision::Fp64}) {
    const Options o = opts(p);
    EXPECT_LE(result_error(cpu_eval(s, t, o), ref_eval(s, t, o)), 1e-6);
  }
  // One target: the components relative to |E|, the plane's measure for a single target (each
  // component relative to itself is ill conditioned here: random-sign terms up to 4 sum to
  // Ex = 0.96 of |E| = 20.5; their fp32 sums are off by ~5e-6 absolute, rms over random targets,
  // with or without the local origin, which for one target is the target itself).
  Targets one;
  one.x = {0.3}, one.y = {-0.2}, one.z = {1.5};
  const Result r1 = cpu_eval(s, one, opts(Precision::Fp32));
  const Result ref1 = ref_eval(s, one, opts(Precision::Fp64));
  const double mag = ref1.magnitude[0];
  EXPECT_NEAR(r1.magnitude[0], mag, 1e-6 * mag);
  EXPECT_NEAR(r1.ex[0], ref1.ex[0], 1e-6 * mag);
  EXPECT_NEAR(r1.ey[0], ref1.ey[0], 1e-6 * mag);
  EXPECT_NEAR(r1.ez[0], ref1.ez[0], 1e-6 * mag);
  EXPECT_NEAR(r1.potential[0], ref1.potential[0], 1e-6 * std::fabs(ref1.potential[0]));
}

// 10^6 sources in fp32: the per-tile fp64 accumulation keeps the error <= 1e-6 (one fp32
// accumulator per target would not). Float64 reference on a handful of targets.
TEST(FieldCpu, MillionSourcesFp32) {
  const Sources s = random_sources(1000000, 1.0, 11, 0.5, 1.5);
  for (double offset : {0.0, 2.0}) {
    Grid g;
    g.offset = offset, g.size = 16, g.half_width = 1.5;
    const Targets all = rounded(make_targets(g));
    Targets few;
    for (std::size_t i = 0; i < all.size(); i += 37)
      few.x.push_back(all.x[i]), few.y.push_back(all.y[i]), few.z.push_back(all.z[i]);
    const Result r = cpu_eval(s, all, opts(Precision::Fp32));
    const Result ref = ref_eval(s, few, opts(Precision::Fp64));
    Result sub;
    for (std::size_t i = 0; i < all.size(); i += 37) {
      sub.magnitude.push_back(r.magnitude[i]), sub.potential.push_back(r.potential[i]);
      sub.ex.push_back(r.ex[i]), sub.ey.push_back(r.ey[i]), sub.ez.push_back(r.ez[i]);
    }
    EXPECT_LE(result_error(sub, ref), 1e-6) << "offset " << offset;
    for (std::size_t k = 0; k < few.size(); ++k)  // per target too, for |E| and phi
      EXPECT_NEAR(sub.magnitude[k], ref.magnitude[k], 1e-6 * ref.magnitude[k]) << k;
  }
}

// One charge: |E| = k q / r^2 along (y - x)/r (field.hpp's sign), phi = k q / r.
TEST(FieldCpu, SingleChargeAnalytic) {
  Sources s;
  s.x = {0.25f}, s.y = {-0.5f}, s.z = {0.125f}, s.q = {2.0f};
  Grid g;
  g.kind = PlaneKind::XY, g.offset = 1.125, g.size = 9, g.half_width = 2;  // exact in fp32
  const Targets t = make_targets(g);
  const double k = 3.0;
  for (Precision p : {Precision::Fp32, Precision::Fp64}) {
    const Result r = cpu_eval(s, t, opts(p, 0, k));
    for (std::size_t i = 0; i < t.size(); ++i) {
      const double dx = t.x[i] - 0.25, dy = t.y[i] + 0.5, dz = t.z[i] - 0.125;
      const double r2 = dx * dx + dy * dy + dz * dz, rr = std::sqrt(r2);
      const double mag = k * 2 / r2;
      EXPECT_NEAR(r.magnitude[i], mag, 1e-6 * mag);
      EXPECT_NEAR(r.ex[i], -mag * dx / rr, 1e-6 * mag);
      EXPECT_NEAR(r.ey[i], -mag * dy / rr, 1e-6 * mag);
      EXPECT_NEAR(r.ez[i], -mag * dz / rr, 1e-6 * mag);
      EXPECT_NEAR(r.potential[i], k * 2 / rr, 1e-6 * k * 2 / rr);
    }
  }
}

// Dipole +q at z = +d/2, -q at z = -d/2: on the axis, with E = k sum q (y - x) / r^3,
// E_z = -k q (1/(z-d/2)^2 - 1/(z+d/2)^2), phi = k q (1/(z-d/2) - 1/(z+d/2)), and
// E_z -> -2 k p / z^3 (p = q d) far away.
TEST(FieldCpu, DipoleOnAxis) {
  const double d = 0.125, q = 1.5, k = 1;
  Sources s;
  s.x = {0, 0}, s.y = {0, 0}, s.z = {float(d / 2), float(-d / 2)}, s.q = {float(q), float(-q)};
  Targets t;
  for (double z : {0.5, 1.0, 1.25, 2.5, 10.0, 40.0})
    t.x.push_back(0), t.y.push_back(0), t.z.push_back(z);
  for (Precision p : {Precision::Fp64, Precision::Fp32}) {
    const Result r = cpu_eval(s, t, opts(p, 0, k));
    for (std::size_t i = 0; i < t.size(); ++i) {
      const double z = t.z[i];
      const double ez = k * q * (1 / ((z - d / 2) * (z - d / 2)) - 1 / ((z + d / 2) * (z + d / 2)));
      const double phi = k * q * (1 / (z - d / 2) - 1 / (z + d / 2));
      // fp32 terms (a few roundings, ~3e-7 each) cancel: relative to the difference the error
      // grows like (term / difference) ~ z / (2 d).
      const double tol = p == Precision::Fp64 ? 1e-6 : 5e-7 * (1 + z / d);
      EXPECT_NEAR(r.ez[i], -ez, tol * ez) << z;
      EXPECT_NEAR(r.magnitude[i], ez, tol * ez) << z;
      EXPECT_NEAR(r.potential[i], phi, tol * phi) << z;
      EXPECT_EQ(r.ex[i], 0.0f);
      EXPECT_EQ(r.ey[i], 0.0f);
      const double far = 2 * k * q * d / (z * z * z);
      EXPECT_NEAR(r.ez[i], -far, 2 * (d / z) * (d / z) * far) << z;  // O((d/z)^2) correction
    }
  }
}

// eps = 0 and a source exactly on a target: the term is skipped and counted, all finite; eps > 0
// softens it instead. The coincidences sit inside full tiles of other sources.
TEST(FieldCpu, CoincidencesSkippedAndCounted) {
  Sources s = random_sources(3000, 1.0, 5);
  Grid g;
  g.size = 5, g.half_width = 1;  // u in {-1, -0.5, 0, 0.5, 1}, exact in fp32
  const Targets t = make_targets(g);
  const std::size_t at[] = {17, 1500, 2999};
  s.x[at[0]] = 0.5f, s.y[at[0]] = 0.0f, s.z[at[0]] = 0.0f;   // on target (0.5, 0, 0)
  s.x[at[1]] = -1.0f, s.y[at[1]] = 1.0f, s.z[at[1]] = 0.0f;  // on a corner
  s.x[at[2]] = 0.5f, s.y[at[2]] = 0.0f, s.z[at[2]] = 0.0f;   // a second one on (0.5, 0, 0)
  s.q[at[2]] = 0.0f;                                         // q = 0 still counts
  for (Precision p : {Precision::Fp32, Precision::Fp64}) {
    const Result r = cpu_eval(s, t, opts(p)), ref = ref_eval(s, t, opts(p));
    EXPECT_EQ(r.skipped_coincidences, 3u);
    EXPECT_EQ(ref.skipped_coincidences, 3u);
    EXPECT_TRUE(test::all_finite(r));
    EXPECT_LE(result_error(r, ref), 1e-6);
    const Result soft = cpu_eval(s, t, opts(p, 0.01));
    EXPECT_EQ(soft.skipped_coincidences, 0u);
    EXPECT_TRUE(test::all_finite(soft));
    EXPECT_LE(result_error(soft, ref_eval(s, t, opts(p, 0.01))), 1e-6);
  }
}

// issue #10, section 4: far from 0 the fp32 evaluation works relative to a local origin, so a
// target 0.01 from a source at x = 1e6 is not rounded onto it (unshifted: |E| = 0 at the centre,
// the pair skipped as a coincidence). Float64 brute force on the targets as given.
TEST(FieldCpu, LargeCoordinatesSingleSource) {
  const auto c = test::far_single_source();
  const Result r = cpu_eval(c.sources, c.targets, opts(Precision::Fp32));
  const Result ref = ref_eval(c.sources, c.targets, opts(Precision::Fp64));
  EXPECT_EQ(r.skipped_coincidences, 0u);
  EXPECT_EQ(ref.skipped_coincidences, 0u);
  const double d = 1000000.01 - 1e6;  // the centre's distance in fp64 (0.01 + 9.3e-12)
  EXPECT_NEAR(ref.magnitude[40], 1 / (d * d), 1e-7 / (d * d));  // a float
  EXPECT_NEAR(r.magnitude[40], 1e4, 1e-5 * 1e4);
  for (std::size_t i = 0; i < c.targets.size(); ++i) {
    EXPECT_NEAR(r.magnitude[i], ref.magnitude[i], 1e-5 * ref.magnitude[i]) << i;
    EXPECT_NEAR(r.potential[i], ref.potential[i], 1e-5 * ref.potential[i]) << i;
  }
  EXPECT_LE(result_error(r, ref), 1e-5);
  // fp64 stays right (no origin there: differences of fp64 targets and fp32 sources are exact).
  EXPECT_LE(result_error(cpu_eval(c.sources, c.targets, opts(Precision::Fp64)), ref), 1e-6);
}

// A cluster of 1000 sources around (1e6, -2e6, 5e5) and targets 2.3 to 4.3 above its centre:
// fp32 within 1e-5 RMS relative of float64 (unshifted, the targets' fp32 rounding, up to 0.06,
// is about 1 % of the distances); a real coincidence (a source exactly on a target) inside the
// cluster's tile is still skipped and counted.
TEST(FieldCpu, LargeCoordinatesCluster) {
  for (bool coincide : {false, true}) {
    const auto c = test::far_cluster(coincide);
    for (Precision p : {Precision::Fp32, Precision::Fp64}) {
      const Result r = cpu_eval(c.sources, c.targets, opts(p));
      const Result ref = ref_eval(c.sources, c.targets, opts(Precision::Fp64));
      EXPECT_LE(test::rms_relative(r, ref), p == Precision::Fp32 ? 1e-5 : 1e-7) << coincide;
      EXPECT_EQ(r.skipped_coincidences, coincide ? 1u : 0u);
      EXPECT_EQ(ref.skipped_coincidences, coincide ? 1u : 0u);
      EXPECT_TRUE(test::all_finite(r));
    }
  }
}

// A real coincidence at large coordinates on the plane of the single-source case: a source at
// exactly a target (x = 1e6 + 1/16, exact in fp32 and fp64) is skipped and counted once; the
// rest of the plane matches float64.
TEST(FieldCpu, LargeCoordinatesRealCoincidence) {
  Grid g;
  g.kind = PlaneKind::YZ, g.offset = 1000000.0625, g.size = 5, g.half_width = 0.5;
  const Targets t = make_targets(g);  // u, v in {-0.5, -0.25, 0, 0.25, 0.5}
  Sources s;
  s.x = {1000000.0625f, 1e6f}, s.y = {0.25f, 0}, s.z = {0, 0}, s.q = {1, -2};
  for (Precision p : {Precision::Fp32, Precision::Fp64}) {
    const Result r = cpu_eval(s, t, opts(p)), ref = ref_eval(s, t, opts(p));
    EXPECT_EQ(r.skipped_coincidences, 1u);
    EXPECT_EQ(ref.skipped_coincidences, 1u);
    EXPECT_TRUE(test::all_finite(r));
    EXPECT_LE(result_error(r, ref), 1e-6);
  }
}

// The origin rule (field_internal.hpp): the seed's planes (z = +-1000, half width 995 around
// sources in [-750, 750]^3) and planes near 0 keep the origin 0, hence the arithmetic of before;
// far, small planes get their centre; fp64 never shifts.
TEST(FieldCpu, LocalOriginRule) {
  Grid seed;
  seed.offset = 1000, seed.size = 200, seed.half_width = 995;
  for (double z : {1000.0, -1000.0}) {
    seed.offset = z;
    EXPECT_TRUE(detail::local_origin(make_targets(seed), Precision::Fp32).is_zero()) << z;
  }
  Grid box;
  box.kind = PlaneKind::Box, box.offset = 1.1, box.size = 3, box.half_width = 1.1;
  EXPECT_TRUE(detail::local_origin(make_targets(box), Precision::Fp32).is_zero());
  const auto far = detail::local_origin(test::far_single_source().targets, Precision::Fp32);
  EXPECT_EQ(far.x, 1000000.01);
  EXPECT_EQ(far.y, 0.0);
  EXPECT_EQ(far.z, 0.0);
  EXPECT_TRUE(detail::local_origin(test::far_single_source().targets, Precision::Fp64).is_zero());
  EXPECT_TRUE(detail::local_origin(Targets{}, Precision::Fp32).is_zero());
  const auto cl = detail::local_origin(test::far_cluster().targets, Precision::Fp32);
  EXPECT_NEAR(cl.x, 1e6 - 0.05, 1e-6);
  EXPECT_NEAR(cl.y, -2e6 - 0.05, 1e-6);
  EXPECT_EQ(cl.z, 5e5 + 3.3);
}

// The 1e-6 bound holds where the origin is shifted too: a small window (centre z = 1.5, half
// width 0.1, so origin (0, 0, 1.5)) over sources in [-1, 1]^3, against float64 at the targets as
// given; and the seed's geometry (origin 0) at 20000 sources.
TEST(FieldCpu, ShiftedOriginKeepsAccuracy) {
  const Sources s = random_sources(2500, 1.0, 13, 0.5, 1.5);
  Grid g;
  g.offset = 1.5, g.size = 23, g.half_width = 0.1;
  const Targets t = make_targets(g);
  EXPECT_EQ(detail::local_origin(t, Precision::Fp32).z, 1.5);
  EXPECT_LE(
      result_error(cpu_eval(s, t, opts(Precision::Fp32)), ref_eval(s, t, opts(Precision::Fp64))),
      1e-6);
  const Sources seed = random_sources(20000, 750.0, 14, 0.5, 1.5);
  Grid plane;
  plane.offset = 1000, plane.size = 16, plane.half_width = 995;
  const Targets tp = make_targets(plane);
  EXPECT_LE(result_error(cpu_eval(seed, tp, opts(Precision::Fp32)),
                         ref_eval(seed, tp, opts(Precision::Fp64))),
            1e-6);
}

TEST(FieldCpu, InvalidOptionsThrow) {
  const Sources s = random_sources(10, 1, 1);
  Targets t;
  t.x = {0}, t.y = {0}, t.z = {2};
  auto ev = make_evaluator(Backend::Cpu);
  EXPECT_EQ(ev->backend(), Backend::Cpu);
  Result r;
  EXPECT_NE(test::error_of([&] { ev->evaluate(s, t, opts(Precision::Fp32, -1), r); }).find("eps"),
            std::string::npos);
  EXPECT_NE(test::error_of([&] { ev->evaluate(s, t, opts(Precision::Fp32, NAN), r); }).find("eps"),
            std::string::npos);
  EXPECT_NE(test::error_of([&] {
              ev->evaluate(s, t, opts(Precision::Fp64, 0, INFINITY), r);
            }).find("k must"),
            std::string::npos);
  EXPECT_THROW(evaluate_reference(s, t, opts(Precision::Fp64, -2), r), Error);
  EXPECT_EQ(ev->device_output("magnitude"), nullptr);
  EXPECT_EQ(ev->peak_device_bytes(), 0);
}

TEST(FieldCpu, EmptyInputs) {
  Targets t;
  t.x = {0}, t.y = {0}, t.z = {1};
  Result r = cpu_eval(Sources{}, t, opts(Precision::Fp32));
  ASSERT_EQ(r.magnitude.size(), 1u);
  EXPECT_EQ(r.magnitude[0], 0.0f);
  r = cpu_eval(random_sources(5, 1, 1), Targets{}, opts(Precision::Fp32));
  EXPECT_TRUE(r.potential.empty());
}

TEST(FieldCpu, ProgressReachesOne) {
  Progress pr;
  Grid g;
  g.size = 32;
  cpu_eval(random_sources(5000, 1, 2), make_targets(g), opts(Precision::Fp32), &pr);
  EXPECT_EQ(pr.fraction.load(), 1.0);
}

TEST(FieldCpu, CancelledBeforeStart) {
  Progress pr;
  pr.cancel = true;
  Grid g;
  g.size = 64;
  EXPECT_THROW(cpu_eval(random_sources(100000, 1, 2), make_targets(g), opts(Precision::Fp32), &pr),
               Cancelled);
}

// A long evaluation (seconds on 2 cores) stops soon after cancel is set, both with many target
// blocks and with few targets (then the sources are split across threads).
TEST(FieldCpu, CancelledWhileRunning) {
  const Sources s = random_sources(4000000, 1, 9);
  Grid many;
  many.size = 72;
  Targets few;
  for (int i = 0; i < 100; ++i) few.x.push_back(0.01 * i), few.y.push_back(0), few.z.push_back(3);
  for (const Targets& t : {make_targets(many), few}) {
    Progress pr;
    std::thread canceller([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(15));
      pr.cancel = true;
    });
    const auto t0 = std::chrono::steady_clock::now();
    EXPECT_THROW(cpu_eval(s, t, opts(Precision::Fp64), &pr), Cancelled) << t.size();
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    canceller.join();
    EXPECT_LT(secs, 1.0 * simscope::test::slowdown()) << t.size() << " targets";
    EXPECT_LT(pr.fraction.load(), 1.0);
  }
}

}  // namespace
}  // namespace simscope::field
