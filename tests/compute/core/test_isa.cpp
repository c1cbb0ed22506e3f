// The CPU kernels at every instruction-set level this build holds and this CPU runs
// (core/isa.hpp): each family (the field's direct sum, the tree, lsq's solver, the oscillators'
// RK4) against references computed independently (float64 / long double brute force, textbook
// RK4), and README's "What is bit-identical to what" across levels. SIMSCOPE_ISA's parsing and
// refusals.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <utility>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/isa.hpp"
#include "field/test_field_util.hpp"
#include "lsq/lsq.hpp"
#include "lsq/test_lsq_util.hpp"
#include "oscillators/ensemble.hpp"
#include "oscillators/test_osc_util.hpp"
#include "oscillators/topology.hpp"
#include "test_bits.hpp"

namespace simscope {
namespace {

/// The levels built and runnable here, lowest first; prints the ones this CPU lacks.
std::vector<IsaLevel> usable_levels() {
  std::vector<IsaLevel> out;
  for (IsaLevel l : built_isa_levels()) {
    if (cpu_supports(l))
      out.push_back(l);
    else
      std::printf("[ isa      ] this CPU lacks %s: its kernels are not run here\n", isa_name(l));
  }
  return out;
}

/// Restores the process's level on leaving a test.
struct RestoreLevel {
  IsaLevel level = isa_level();
  std::string chosen_by = isa_chosen_by();
  ~RestoreLevel() { set_isa_level(level, chosen_by); }
};

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(Isa, ParsesLevelsAndRefusesOthers) {
  EXPECT_EQ(parse_isa_level("v2", "SIMSCOPE_ISA"), IsaLevel::V2);
  EXPECT_EQ(parse_isa_level("v3", "SIMSCOPE_ISA"), IsaLevel::V3);
  EXPECT_EQ(parse_isa_level("x86-64-v4", "SIMSCOPE_ISA"), IsaLevel::V4);
  EXPECT_EQ(parse_isa_level("native", "SIMSCOPE_ISA"), IsaLevel::Native);
  const std::string m = message_of([] { parse_isa_level("v5", "SIMSCOPE_ISA"); });
  EXPECT_NE(m.find("SIMSCOPE_ISA='v5': expected"), std::string::npos) << m;
  for (const char* bad : {"", "avx2", "V3 ", "x86-64"})
    EXPECT_THROW(parse_isa_level(bad, "SIMSCOPE_ISA"), Error) << "'" << bad << "'";
}

TEST(Isa, RefusesALevelNotBuilt) {
  const RestoreLevel restore;
  const auto built = built_isa_levels();
  ASSERT_FALSE(built.empty());
  const IsaLevel other = built[0] == IsaLevel::Native ? IsaLevel::V2 : IsaLevel::Native;
  const std::string m = message_of([&] { set_isa_level(other, "SIMSCOPE_ISA=x"); });
  EXPECT_NE(m.find("SIMSCOPE_ISA=x: this build holds CPU kernels for"), std::string::npos) << m;
  EXPECT_EQ(isa_level(), restore.level);  // a refused level changes nothing
}

TEST(Isa, DefaultIsTheHighestTheCpuRuns) {
  const auto usable = usable_levels();
  ASSERT_FALSE(usable.empty());
  if (std::getenv("SIMSCOPE_ISA")) GTEST_SKIP() << "SIMSCOPE_ISA is set";
  const RestoreLevel restore;
  EXPECT_EQ(restore.level, usable.back());
  const std::string s = isa_summary();
  EXPECT_NE(s.find(isa_name(usable.back())), std::string::npos) << s;
  set_isa_level(usable.front(), "a test");
  EXPECT_EQ(isa_level(), usable.front());
  EXPECT_EQ(isa_chosen_by(), "a test");
}

field::Result field_at(IsaLevel level, field::Method method, const field::Sources& s,
                       const field::Targets& t, const field::Options& o) {
  set_isa_level(level, "a test");
  field::Result r;
  field::make_evaluator(method, Backend::Cpu)->evaluate(s, t, o, r);
  return r;
}

void print_difference(const char* what, const field::Result& a, const field::Result& b,
                      IsaLevel la, IsaLevel lb) {
  bool same = true;
  for (const auto& n : field::output_names())
    same = same && test::same_bits(field::output(a, n), field::output(b, n));
  std::printf("[ isa      ] %s: %s vs %s: %s (max difference %.3g of the plane's maximum)\n", what,
              isa_name(la), isa_name(lb), same ? "same bits" : "differ",
              field::test::result_error(a, b));
}

TEST(Isa, FieldDirectAtEveryLevel) {
  const RestoreLevel restore;
  // Cancelling charges (q in [-1, 1]), a plane through the sources, 2500 sources: not a
  // multiple of the tile (1024) or the target block.
  const field::Sources s = field::test::random_sources(2500, 1.0, 7);
  field::Grid g;
  g.size = 23, g.offset = 0.1, g.half_width = 1.2;
  const field::Targets t = field::test::rounded(field::make_targets(g));
  for (Precision p : {Precision::Fp32, Precision::Fp64}) {
    field::Options o;
    o.precision = p, o.eps = 0.01;
    field::Result ref;
    field::evaluate_reference(s, t, o, ref);
    std::vector<field::Result> at;
    const auto levels = usable_levels();
    for (IsaLevel l : levels) {
      at.push_back(field_at(l, field::Method::Direct, s, t, o));
      // README: fp32 within 1e-6 of float64 (of the plane's maximum); fp64 rounded once to the
      // float32 outputs.
      EXPECT_LE(field::test::result_error(at.back(), ref), p == Precision::Fp64 ? 1.2e-7 : 1e-6)
          << isa_name(l);
    }
    for (std::size_t i = 1; i < at.size(); ++i)
      print_difference(p == Precision::Fp64 ? "field direct fp64" : "field direct fp32", at[i],
                       at[0], levels[i], levels[0]);
  }
}

TEST(Isa, FieldTreeAtEveryLevel) {
  const RestoreLevel restore;
  const field::Sources s = field::generate_sources("gaussian", 30000, 1, 5);
  field::Grid g;
  g.size = 40, g.offset = 0.0, g.half_width = 1.5;  // the plane through the cloud
  const field::Targets t = field::make_targets(g);
  for (Precision p : {Precision::Fp32, Precision::Fp64}) {
    // fp32: the near field in fp32 lanes (16 at v4, 8 at v3, scalar at v2); fp64: in fp64.
    field::Options o;
    o.tolerance = 1e-5, o.precision = p;
    field::Result ref;
    field::evaluate_reference(s, t, o, ref);
    std::vector<field::Result> at;
    const auto levels = usable_levels();
    for (IsaLevel l : levels) {
      at.push_back(field_at(l, field::Method::Tree, s, t, o));
      ASSERT_EQ(at.back().method, field::Method::Tree);
      // The tolerance's measure (README): sum |E - E_ref|^2 / sum |E_ref|^2, and phi's.
      EXPECT_LE(std::max(field::test::field_rms(at.back(), ref),
                         field::test::potential_rms(at.back(), ref)),
                o.tolerance)
          << isa_name(l);
    }
    for (std::size_t i = 1; i < at.size(); ++i)
      print_difference(p == Precision::Fp64 ? "field tree fp64" : "field tree fp32", at[i], at[0],
                       levels[i], levels[0]);
  }
}

TEST(Isa, LsqAtEveryLevel) {
  const RestoreLevel restore;
  const lsq::Design d = lsq::test::random_design(24, 6, 11);
  const lsq::Cube c = lsq::test::random_cube(d, 21, 17, 0.3, 12);
  std::vector<std::vector<double>> ref(c.pixels());
  for (std::size_t p = 0; p < c.pixels(); ++p) ref[p] = lsq::test::reference_solution(c, d, p);
  const auto levels = usable_levels();
  for (lsq::Method m : {lsq::Method::Auto, lsq::Method::Normal, lsq::Method::Qr, lsq::Method::Svd})
    for (Precision prec : {Precision::Fp32, Precision::Fp64}) {
      SCOPED_TRACE(std::string(lsq::test::name(m)) + " " + lsq::test::name(prec));
      std::vector<lsq::Result> at;
      for (IsaLevel l : levels) {
        set_isa_level(l, "a test");
        lsq::Result r;
        lsq::make_solver(Backend::Cpu)->solve(c, d, lsq::test::opts(m, prec), r);
        double worst = 0;
        for (std::size_t p = 0; p < c.pixels(); ++p) {
          if (r.count[p] == 0) continue;
          double num = 0, den = 0;
          for (std::size_t k = 0; k < d.n; ++k) {
            const double e = r.solution[k * c.pixels() + p] - ref[p][k];
            num += e * e, den += ref[p][k] * ref[p][k];
          }
          worst = std::max(worst, std::sqrt(num / den));
        }
        // README's accuracies (random, well-conditioned designs): fp64 1e-12; fp32 1e-6 with
        // method auto (refined), 1e-4 otherwise.
        EXPECT_LE(worst, prec == Precision::Fp64 ? 1e-12
                         : m == lsq::Method::Auto ? 1e-6
                                                  : 1e-4)
            << isa_name(l);
        at.push_back(std::move(r));
      }
      for (std::size_t i = 1; i < at.size(); ++i) {
        const bool same = test::same_bits(at[i].solution, at[0].solution) &&
                          test::same_bits(at[i].residual, at[0].residual);
        double diff = 0;
        for (std::size_t k = 0; k < at[0].solution.size(); ++k)
          if (std::isfinite(at[0].solution[k]))
            diff = std::max(diff, std::fabs(double(at[i].solution[k]) - at[0].solution[k]));
        std::printf("[ isa      ] lsq %s %s: %s vs %s: %s (max |difference| %.3g)\n",
                    lsq::test::name(m), lsq::test::name(prec), isa_name(levels[i]),
                    isa_name(levels[0]), same ? "same bits" : "differ", diff);
      }
    }
}

// An fp32 solve's float32 solution of gap-free pixels is summed from float32 products
// (lsq/cpu/shared_block.hpp), in vectors of 16, 8 or 4 floats by level: at every level within
// the documented fp32 accuracy (1e-6) of the long-double reference, minimum norm (the seeds'
// M 50 x N 100) and overdetermined, over bands of 256 pixels and a shorter last one.
TEST(Isa, LsqFloat32ProductsAtEveryLevel) {
  const RestoreLevel restore;
  for (const auto [m, n] : {std::pair<std::size_t, std::size_t>{50, 100}, {40, 7}}) {
    const lsq::Design d = lsq::test::random_design(m, n, 5);
    const lsq::Cube c = lsq::test::random_cube(d, 11, 29, 0.0, 6);  // 319 gap-free pixels
    std::vector<std::vector<double>> ref(c.pixels());
    for (std::size_t p = 0; p < c.pixels(); ++p) ref[p] = lsq::test::reference_solution(c, d, p);
    for (IsaLevel l : usable_levels()) {
      set_isa_level(l, "a test");
      lsq::Options o = lsq::test::opts(lsq::Method::Auto, Precision::Fp32);
      o.float32_solution = true;
      lsq::Result r;
      lsq::make_solver(Backend::Cpu)->solve(c, d, o, r);
      ASSERT_EQ(r.solution32.size(), n * c.pixels()) << isa_name(l);
      double worst = 0;
      for (std::size_t p = 0; p < c.pixels(); ++p) {
        double num = 0, den = 0;
        for (std::size_t k = 0; k < n; ++k) {
          const double e = double(r.solution32[k * c.pixels() + p]) - ref[p][k];
          num += e * e, den += ref[p][k] * ref[p][k];
        }
        worst = std::max(worst, std::sqrt(num / den));
      }
      EXPECT_LE(worst, 1e-6) << isa_name(l) << " M " << m << " N " << n;
      std::printf("[ isa      ] lsq fp32 gap-free float32 solution, M %zu N %zu, %s: max rel "
                  "error %.2e\n", m, n, isa_name(l), worst);
    }
  }
}

TEST(Isa, CancelledInAKernelIsCaughtAsCancelledAtEveryLevel) {
  // A kernel throws simscope::Cancelled from its level's code (core/error.hpp: one type_info for
  // the whole program, else this `catch (const Cancelled&)` would not match).
  const RestoreLevel restore;
  const field::Sources s = field::test::random_sources(3000, 1.0, 4);
  field::Grid g;
  g.size = 16;
  const field::Targets t = field::make_targets(g);
  const lsq::Design d = lsq::test::random_design(12, 4, 3);
  const lsq::Cube c = lsq::test::random_cube(d, 9, 7, 0.2, 4);
  for (IsaLevel l : usable_levels()) {
    set_isa_level(l, "a test");
    for (field::Method m : {field::Method::Direct, field::Method::Tree}) {
      auto e = field::make_evaluator(m, Backend::Cpu);
      field::Result r;
      field::Options o;
      e->evaluate(s, t, o, r);  // the tree is built and kept: the next call is all kernel
      Progress pr;
      pr.cancel = true;
      EXPECT_THROW(e->evaluate(s, t, o, r, &pr), Cancelled) << isa_name(l);
    }
    Progress pr;
    pr.cancel = true;
    lsq::Result r;
    EXPECT_THROW(lsq::make_solver(Backend::Cpu)->solve(c, d, lsq::Options{}, r, &pr), Cancelled)
        << isa_name(l);
  }
}

TEST(Isa, OscillatorsAtEveryLevelGiveTheSameBits) {
  const RestoreLevel restore;
  // Watts-Strogatz members (ring + correction tables or ELL tables) and exact rings (SIMD lane
  // groups of members).
  const int N = 61, K = 17;
  namespace osc = oscillators;
  for (const osc::Topologies& t : {osc::watts_strogatz(N, 4, 0.2, K, 8), osc::ring(N, 4, K)}) {
    const osc::State s0 = osc::initial_state("random", N, K, 8);
    for (Precision prec : {Precision::Fp64, Precision::Fp32}) {
      std::vector<osc::State> at;
      const auto levels = usable_levels();
      for (IsaLevel l : levels) {
        set_isa_level(l, "a test");
        auto e = osc::make_ensemble(Backend::Cpu);
        e->load(t, s0, prec);
        osc::Series s;
        e->advance(osc::Model{}, 0.01, 60, osc::Recording{}, s);
        at.push_back(e->state());
        for (int k = 0; k < K; k += 4) {
          auto x = osc::test::member(s0.x, N, k), y = osc::test::member(s0.y, N, k);
          osc::test::rk4_reference(t, k, osc::Model{}, 0.01, 60, x, y);
          double d = 0;
          for (int i = 0; i < N; ++i)
            d = std::max({d, std::fabs(at.back().x[std::size_t(k * N + i)] - x[std::size_t(i)]),
                          std::fabs(at.back().y[std::size_t(k * N + i)] - y[std::size_t(i)])});
          EXPECT_LT(d, prec == Precision::Fp64 ? 1e-12 : 1e-4) << isa_name(l) << " member " << k;
        }
      }
      // README: the oscillators' CPU kernels give the same bits at every level.
      for (std::size_t i = 1; i < at.size(); ++i) {
        EXPECT_TRUE(test::same_bits(at[i].x, at[0].x) && test::same_bits(at[i].y, at[0].y))
            << isa_name(levels[i]) << " vs " << isa_name(levels[0]);
      }
    }
  }
}

}  // namespace
}  // namespace simscope
