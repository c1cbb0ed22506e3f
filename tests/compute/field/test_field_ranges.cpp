// Work ranges of the field (issue 11 item 5) and its method axis (item 4): an evaluation split
// into 1, 2, 3 and 7 target ranges and merged is bit-identical to the unsplit one on the CPU
// back end, in fp32 (whose local origin must come from the whole target set, not the range)
// and fp64; on the CUDA back end (GPU machines) it agrees to rounding. Bad ranges and unknown
// (method, back end) pairs are clear errors.
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/backend.hpp"
#include "field/field_internal.hpp"
#include "test_bits.hpp"
#include "test_field_util.hpp"
#include "test_cuda_skip.hpp"

namespace simscope::field {
namespace {

using test::error_of;
using test::random_sources;

/// A box whose faces are far apart compared with their size (faces at +-10, samples over
/// [-1, 1]): the whole set's fp32 origin is 0, a range inside one face would get that face's
/// centre (e.g. x = -10) as origin if it were taken from the range.
Grid far_box(int n) {
  Grid g;
  g.kind = PlaneKind::Box;
  g.offset = 10;
  g.size = n;
  g.half_width = 1;
  return g;
}

/// Two clusters of n targets each, within 0.01 of (-1000, 0, 0) and (+1000, 0, 0), and 2500
/// sources within 0.05 of each cluster: the whole set's fp32 origin is 0 (its bounding box is
/// centred on 0), while a range inside one cluster would get that cluster's centre, which no
/// target sits on (so the fp32 differences would round differently).
struct Clusters {
  Targets t;
  Sources s;
  explicit Clusters(std::size_t n) {
    std::mt19937 g(5);
    std::uniform_real_distribution<double> u(-1, 1);
    for (double cx : {-1000.0, 1000.0}) {
      for (std::size_t i = 0; i < n; ++i) {
        t.x.push_back(cx + 0.01 * u(g)), t.y.push_back(0.01 * u(g)), t.z.push_back(0.01 * u(g));
      }
      for (int j = 0; j < 2500; ++j) {
        s.x.push_back(float(cx + 0.05 * u(g))), s.y.push_back(float(0.05 * u(g)));
        s.z.push_back(float(0.05 * u(g))), s.q.push_back(float(u(g)));
      }
    }
  }
};

using simscope::test::same_bits;

Result split_run(Evaluator& ev, const Sources& s, const Targets& t, const Options& o,
                 std::size_t parts) {
  std::vector<Result> results;
  for (const IndexRange& r : split_evenly(t.size(), parts)) {
    results.emplace_back();
    ev.evaluate(s, t, r, o, results.back());
    EXPECT_EQ(results.back().target_begin, r.begin);
    EXPECT_EQ(results.back().size(), r.end - r.begin);
  }
  return merge_target_ranges(results);
}

void expect_identical(const Result& whole, const Result& merged, const std::string& what) {
  EXPECT_EQ(merged.target_begin, 0u) << what;
  for (const std::string& name : output_names())
    EXPECT_TRUE(same_bits(output(whole, name), output(merged, name))) << what << ": " << name;
  EXPECT_EQ(whole.skipped_coincidences, merged.skipped_coincidences) << what;
}

TEST(FieldRanges, OriginRuleOfTheWholeSetMattersForTheseTargets) {
  // The tests below would be vacuous if a range's own origin equalled the whole set's.
  const Clusters c(30);
  Targets first;
  first.x.assign(c.t.x.begin(), c.t.x.begin() + 30);
  first.y.assign(c.t.y.begin(), c.t.y.begin() + 30);
  first.z.assign(c.t.z.begin(), c.t.z.begin() + 30);
  const detail::Origin whole = detail::local_origin(c.t, Precision::Fp32);
  const detail::Origin part = detail::local_origin(first, Precision::Fp32);
  EXPECT_TRUE(whole.is_zero());
  EXPECT_NEAR(part.x, -1000.0, 0.01);
  // ... and evaluating the first cluster as its own target set (its own origin) changes bits.
  auto ev = make_evaluator(Backend::Cpu);
  Result in_whole, alone;
  ev->evaluate(c.s, c.t, {0, 30}, Options{}, in_whole);
  ev->evaluate(c.s, first, Options{}, alone);
  EXPECT_FALSE(same_bits(in_whole.ex, alone.ex));
}

TEST(FieldRanges, SplitClustersAreBitIdenticalOnTheCpu) {
  auto ev = make_evaluator(Backend::Cpu);
  for (std::size_t n : {3u, 200u}) {  // few targets: the CPU splits the sources over threads
    const Clusters c(n);
    for (Precision p : {Precision::Fp32, Precision::Fp64}) {
      Options o;
      o.precision = p;
      Result whole;
      ev->evaluate(c.s, c.t, o, whole);
      for (std::size_t parts : {1u, 2u, 3u, 7u})
        expect_identical(whole, split_run(*ev, c.s, c.t, o, parts),
                         "clusters n=" + std::to_string(n) + " " + to_string(p) +
                             " parts=" + std::to_string(parts));
    }
  }
}

TEST(FieldRanges, SplitTargetsAreBitIdenticalOnTheCpu) {
  auto ev = make_evaluator(Method::Direct, Backend::Cpu);
  EXPECT_EQ(ev->method(), Method::Direct);
  Sources s = random_sources(5000, 10, 7);  // > 2 tiles: the CPU splits the sources for few targets
  // One source exactly on target 0, (-10, -1, -1): a coincidence skipped with eps = 0.
  s.x.push_back(-10), s.y.push_back(-1), s.z.push_back(-1), s.q.push_back(1);
  for (int n : {3, 12}) {  // 54 targets (sources split over threads) and 864
    const Targets t = make_targets(far_box(n));
    for (Precision p : {Precision::Fp32, Precision::Fp64})
      for (double eps : {0.0, 0.05}) {
        Options o;
        o.precision = p;
        o.eps = eps;
        o.k = 1.5;
        Result whole;
        ev->evaluate(s, t, o, whole);
        if (eps == 0) EXPECT_EQ(whole.skipped_coincidences, 1u);
        // Not vacuous: the unsplit result is the float64 reference's (to fp32 rounding).
        Result ref;
        evaluate_reference(s, t, o, ref);
        double worst = 0, scale = 0;
        for (std::size_t i = 0; i < t.size(); ++i) {
          worst = std::max(worst, std::fabs(double(whole.magnitude[i]) - ref.magnitude[i]));
          scale = std::max(scale, double(std::fabs(ref.magnitude[i])));
        }
        EXPECT_LE(worst, 1e-4 * scale);
        for (std::size_t parts : {1u, 2u, 3u, 7u}) {
          const std::string what = "n=" + std::to_string(n) + " " + to_string(p) +
                                   " eps=" + std::to_string(eps) +
                                   " parts=" + std::to_string(parts);
          expect_identical(whole, split_run(*ev, s, t, o, parts), what);
        }
      }
  }
}

TEST(FieldRanges, RangeOutsideTheTargetsIsRefused) {
  auto ev = make_evaluator(Backend::Cpu);
  const Sources s = random_sources(10, 1, 1);
  const Targets t = make_targets(far_box(2));  // 24 targets
  Result out;
  out.ex = {42.0f};
  const std::string msg = error_of([&] { ev->evaluate(s, t, {20, 25}, Options{}, out); });
  EXPECT_EQ(msg, "field: targets: range [20, 25) is not within [0, 24)");
  EXPECT_EQ(out.ex.size(), 1u);  // untouched
  Result empty;
  ev->evaluate(s, t, {24, 24}, Options{}, empty);
  EXPECT_EQ(empty.size(), 0u);
  EXPECT_EQ(empty.target_begin, 24u);
}

TEST(FieldRanges, NoTargetsGiveAnEmptyResult) {
  // Many sources and no target: the CPU's plan must not divide by the number of target blocks.
  const Sources s = random_sources(5000, 1, 2);
  Result out;
  make_evaluator(Backend::Cpu)->evaluate(s, Targets{}, Options{}, out);
  EXPECT_EQ(out.size(), 0u);
  EXPECT_EQ(out.skipped_coincidences, 0u);
}

TEST(FieldRanges, MergeRefusesPartsThatDoNotFollowEachOther) {
  Result a, b;
  a.magnitude = a.ex = a.ey = a.ez = a.potential = {1, 2};
  b = a;
  b.target_begin = 3;  // a ends at 2
  EXPECT_NE(error_of([&] { merge_target_ranges({a, b}); }).find("consecutive"), std::string::npos);
  EXPECT_NE(error_of([] { merge_target_ranges({}); }), "");
  b.target_begin = 2;
  const Result m = merge_target_ranges({a, b});
  EXPECT_EQ(m.size(), 4u);
}

TEST(FieldMethods, UnknownMethodOrPairListsWhatExists) {
  EXPECT_EQ(method_from_string("direct"), Method::Direct);
  EXPECT_EQ(std::string(to_string(Method::Direct)), "direct");
  EXPECT_EQ(method_from_string("tree"), Method::Tree);
  EXPECT_EQ(method_from_string("auto"), Method::Auto);
  EXPECT_EQ(std::string(to_string(Method::Tree)), "tree");
  EXPECT_EQ(std::string(to_string(Method::Auto)), "auto");
  EXPECT_EQ(error_of([] { method_from_string("fmm"); }),
            "field: unknown method 'fmm' (known: direct, tree, auto)");
  const auto pairs = available_evaluators();
  ASSERT_GE(pairs.size(), 5u);
  EXPECT_EQ(pairs[0], std::make_pair(Method::Direct, Backend::Cpu));
  EXPECT_EQ(pairs[1], std::make_pair(Method::Direct, Backend::Cuda));
  EXPECT_EQ(pairs[2], std::make_pair(Method::Tree, Backend::Cpu));
  const std::string msg = error_of([] { make_evaluator(static_cast<Method>(5), Backend::Cpu); });
  EXPECT_EQ(msg.rfind("field: no evaluator for method 'unknown' on the cpu back end (available: "
                      "direct on cpu, direct on cuda, tree on cpu",
                      0),
            0u)
      << msg;
}

// GPU machines (tests/gpu/run.sh runs every *Cuda* test): the CUDA evaluator's target ranges
// against its unsplit evaluation. Its fp64 accumulators are atomic adds in no fixed order, so
// the values agree to the last fp32 rounding, not bit for bit; skipped coincidences exactly.
TEST(FieldRangesCuda, SplitTargetsAgreeWithTheWhole) {
  SKIP_WITHOUT_CUDA();
  auto ev = make_evaluator(Method::Direct, Backend::Cuda);
  Sources s = random_sources(20000, 10, 3);
  s.x.push_back(-10), s.y.push_back(-1), s.z.push_back(-1), s.q.push_back(1);
  const Targets t = make_targets(far_box(20));  // 2400 targets
  for (Precision p : {Precision::Fp32, Precision::Fp64}) {
    Options o;
    o.precision = p;
    Result whole;
    ev->evaluate(s, t, o, whole);
    Result cpu;
    make_evaluator(Backend::Cpu)->evaluate(s, t, o, cpu);
    for (std::size_t parts : {1u, 2u, 3u, 7u}) {
      const Result m = split_run(*ev, s, t, o, parts);
      ASSERT_EQ(m.size(), whole.size());
      EXPECT_EQ(m.skipped_coincidences, whole.skipped_coincidences);
      for (const std::string& name : output_names()) {
        const auto &a = output(whole, name), &b = output(m, name), &c = output(cpu, name);
        double worst = 0, scale = 0;
        for (std::size_t i = 0; i < a.size(); ++i) {
          worst = std::max(worst, double(std::fabs(a[i] - b[i])));
          scale = std::max(scale, double(std::fabs(c[i])));
        }
        EXPECT_LE(worst, 1e-6 * scale) << name << " " << to_string(p) << " parts=" << parts;
      }
      // The last range's device output is that range's values.
      const IndexRange last = split_evenly(t.size(), parts).back();
      Result r;
      ev->evaluate(s, t, last, o, r);
      EXPECT_NE(ev->device_output("ex"), nullptr);
    }
  }
}

}  // namespace
}  // namespace simscope::field
