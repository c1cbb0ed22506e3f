// The CPU ensemble's schedule (oscillators_cpu.cpp): the members' neighbour tables kept between
// chunks (detail::set_cpu_table_cache_bytes) and the groups of members integrated one SIMD lane
// per member (detail::set_cpu_lanes) give the results of the schedule without either, which
// rebuilds every table at every chunk and integrates every member on its own, bit for bit: for
// several K, both graph tables (ring + corrections, ELL), rings of several half-widths, weighted
// graphs, fp64 and fp32, 1 and 2 threads, a cache too small for all members, members that go
// non-finite, studies in blocks, cancelled and resumed.
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <cstring>

#include "oscillators/ensemble.hpp"
#include "oscillators/model.hpp"
#include "oscillators/oscillators_internal.hpp"
#include "oscillators/study.hpp"
#include "oscillators/topology.hpp"
#include "test_bits.hpp"

namespace simscope::oscillators {
namespace {

using simscope::test::same_bits;

void expect_identical(const StudyResult& a, const StudyResult& b, const std::string& what) {
  SCOPED_TRACE(what);
  EXPECT_TRUE(same_bits(a.msd, b.msd));
  EXPECT_EQ(a.failed, b.failed);
  EXPECT_TRUE(same_bits(a.final_state.x, b.final_state.x));
  EXPECT_TRUE(same_bits(a.final_state.y, b.final_state.y));
  EXPECT_TRUE(same_bits(a.msd_t, b.msd_t));
  EXPECT_TRUE(same_bits(a.order_t, b.order_t));
  EXPECT_EQ(a.finite_t, b.finite_t);
  EXPECT_EQ(a.valid, b.valid);
}

/// Restores the cache budget, the lane kernels' switch and the thread count on leaving a test.
struct Restore {
  std::size_t budget = detail::cpu_table_cache_bytes();
  bool lanes = detail::cpu_lanes();
  bool fused = detail::cpu_fused();
  int threads = omp_get_max_threads();
  ~Restore() {
    detail::set_cpu_table_cache_bytes(budget);
    detail::set_cpu_lanes(lanes);
    detail::set_cpu_fused(fused);
    omp_set_num_threads(threads);
  }
};

/// K members of N nodes; member K / 2 starts far off the limit cycle and goes non-finite.
struct Case {
  int N = 24, K;
  Topologies t;
  State s0;
  StudyOptions o;
  Case(int members, const std::string& net) : K(members) {
    if (net == "ws100") N = 100;  // the bench's network: ring + corrections (N = 24 takes ELL)
    if (net == "er")
      t = erdos_renyi(N, 0.2, K, 3);
    else if (net == "er dense")  // nodes of ~20 neighbours: ELL groups too deep for the lanes
      t = erdos_renyi(N, 0.9, K, 3);
    else if (net == "ws2 100")  // Watts-Strogatz k = 2, p = 0.2: mostly ELL tables, some rings
      N = 100, t = watts_strogatz(N, 2, 0.2, K, 5);
    else if (net.rfind("ring", 0) == 0)  // "ring2", "ring6", "ring10", "weighted ring4"
      t = ring(N, std::stoi(net.substr(4)), K);
    else if (net.rfind("weighted ring", 0) == 0)
      t = ring(N, std::stoi(net.substr(13)), K);
    else if (net == "ws mixed")  // rewired so much that members' tables differ in form and H
      t = watts_strogatz(N, 4, 0.7, K, 8);
    else if (net == "ws100")
      t = watts_strogatz(N, 4, 0.1, K, 5);
    else
      t = watts_strogatz(N, 4, 0.2, K, 5);
    if (net == "weighted") {
      t.weight.resize(t.col.size());
      for (std::size_t q = 0; q < t.weight.size(); ++q) t.weight[q] = 0.5 + 0.125 * double(q % 7);
    }
    if (net.rfind("weighted ring", 0) == 0) {  // a few weights != 1: corrections of w - 1
      t.weight.assign(t.col.size(), 1.0);
      for (std::size_t q = 0; q < t.weight.size(); q += 5)
        t.weight[q] = 0.5 + 0.125 * double(q % 7);
    }
    s0 = initial_state("random", N, K, 6);
    s0.x[std::size_t(K / 2) * N] = 1e3;
    o.steps = 700, o.transient = 150, o.every = 7, o.dt = 0.02;
  }
};

StudyResult study(const Case& c, std::size_t budget, int threads, bool blocks,
                  Precision p = Precision::Fp64, bool lanes = true) {
  detail::set_cpu_table_cache_bytes(budget);
  detail::set_cpu_lanes(lanes);
  omp_set_num_threads(threads);
  StudyOptions o = c.o;
  o.precision = p;
  auto e = make_ensemble(Backend::Cpu);
  if (!blocks) return run_study(*e, c.t, c.s0, o);
  StudyProgress sp;
  return run_study_blocks(*e, c.t, c.s0, o, sp, {});
}

TEST(OscSchedule, KeptTablesGiveTheUncachedResultsBitForBit) {
  const Restore restore;
  for (const std::string net : {"ws", "er", "weighted"})
    for (int K : {1, 5, 70, 300}) {
      const Case c(K, net);
      const StudyResult ref = study(c, 0, 1, false, Precision::Fp64, false);
      EXPECT_EQ(ref.failed_count, 1) << net << " K " << K;
      for (int threads : {1, 2})
        for (std::size_t budget : {std::size_t(0), std::size_t(20000), std::size_t(512) << 20}) {
          const std::string what = net + " K " + std::to_string(K) + " threads " +
                                   std::to_string(threads) + " budget " + std::to_string(budget);
          expect_identical(study(c, budget, threads, false), ref, what);
        }
      // In blocks (5 %, at least 64 members: several blocks for K = 300), cached or not.
      const StudyResult blocks_ref = study(c, 0, 1, true, Precision::Fp64, false);
      for (int threads : {1, 2})
        expect_identical(study(c, std::size_t(512) << 20, threads, true), blocks_ref,
                         net + " blocks K " + std::to_string(K));
    }
}

TEST(OscSchedule, LaneGroupsGiveThePerMemberResultsBitForBit) {
  // One SIMD lane per member (cpu_lanes.hpp) against every member on its own: ring stencils of
  // half-width 1, 3 (one pass) and 5 (passes), weighted rings (corrections of weight w - 1),
  // Watts-Strogatz networks whose members differ in table form (members sorted by form into
  // groups), ELL tables in lanes (Erdos-Renyi, weighted Watts-Strogatz at N = 24, Watts-Strogatz
  // k = 2 at N = 100), ELL tables too deep for the lanes (member by member), partial groups
  // filled with copies (K = 1, 9, 17), a failing member inside a group, fp64 and fp32, 1 and 2
  // threads, with and without the table cache.
  const Restore restore;
  for (const std::string net : {"ring2", "ring6", "ring10", "weighted ring4", "ws mixed", "ws",
                                "ws100", "er", "weighted", "ws2 100", "er dense"})
    for (int K : {1, 8, 9, 17, 70})
      for (const Precision p : {Precision::Fp64, Precision::Fp32}) {
        const Case c(K, net);
        const std::int64_t runs = detail::cpu_lane_groups_run();
        const StudyResult ref = study(c, 0, 1, false, p, false);
        EXPECT_EQ(detail::cpu_lane_groups_run(), runs) << "lanes off";
        EXPECT_EQ(ref.failed_count, 1) << net << " K " << K;
        for (int threads : {1, 2})
          for (std::size_t budget : {std::size_t(0), std::size_t(512) << 20}) {
            const std::string what = net + " K " + std::to_string(K) + " fp" +
                                     (p == Precision::Fp32 ? "32" : "64") + " threads " +
                                     std::to_string(threads) + " budget " + std::to_string(budget);
            const std::int64_t before = detail::cpu_lane_groups_run();
            expect_identical(study(c, budget, threads, false, p, true), ref, what);
            // Every form takes lane groups (G = 8, 4 or 2 by the CPU kernels' level), a partial
            // one too, except ELL tables deeper than the lanes take.
            if (net != "er dense") EXPECT_GT(detail::cpu_lane_groups_run(), before) << what;
          }
      }
}

TEST(OscSchedule, FusedLaneGroupsGiveThePerMemberResultsBitForBit) {
  // Lane groups of unweighted ELL tables run fused (each node's neighbour sum in a register, then
  // its stage: cpu_lanes.hpp, fused_stage_lanes): against every member on its own and against
  // the unfused lanes, and the fused groups ran where they should (ELL tables: Watts-Strogatz at
  // N = 24, k = 2 at N = 100, Erdos-Renyi; not rings or weighted graphs; Watts-Strogatz k = 4
  // at N = 100, mostly rings, is not checked).
  const Restore restore;
  for (const std::string net : {"ring2", "ring6", "ring10", "ws", "ws100", "ws mixed", "er",
                                "ws2 100", "weighted", "weighted ring4"})
    for (int K : {9, 70})
      for (const Precision p : {Precision::Fp64, Precision::Fp32}) {
        const Case c(K, net);
        const std::string what =
            net + " K " + std::to_string(K) + (p == Precision::Fp32 ? " fp32" : " fp64");
        detail::set_cpu_fused(true);
        const StudyResult ref = study(c, 0, 1, false, p, false);
        const std::int64_t before = detail::cpu_fused_groups_run();
        for (int threads : {1, 2})
          expect_identical(study(c, std::size_t(512) << 20, threads, false, p, true), ref,
                           what + " fused, threads " + std::to_string(threads));
        const bool expect_fused =
            net == "ws" || net == "ws mixed" || net == "er" || net == "ws2 100";
        if (net != "ws100") EXPECT_EQ(detail::cpu_fused_groups_run() > before, expect_fused) << what;
        detail::set_cpu_fused(false);
        const std::int64_t off = detail::cpu_fused_groups_run();
        expect_identical(study(c, std::size_t(512) << 20, 2, false, p, true), ref,
                         what + " unfused");
        EXPECT_EQ(detail::cpu_fused_groups_run(), off) << what;
      }
}

TEST(OscSchedule, LaneGroupsAreUsedForEveryTableForm) {
  // K = 64 members in chunks: every chunk integrates all live members in groups of G, sorted by
  // form, so a chunk runs at most one group per form beyond K / G. Watts-Strogatz k = 4 at
  // N = 100 (ring + corrections of H = 2, a few ELL), k = 2 (mostly ELL, some rings of H = 1),
  // Erdos-Renyi (ELL).
  const Restore restore;
  const int G = detail::cpu_lane_width();
  for (const std::string net : {"ws100", "ws2 100", "er"}) {
    const Case c(64, net);
    const std::int64_t before = detail::cpu_lane_groups_run();
    study(c, std::size_t(512) << 20, 1, false);
    const std::int64_t groups = detail::cpu_lane_groups_run() - before;
    EXPECT_GE(groups, 64 / G) << net;  // at least one chunk, all members in lanes
  }
}

TEST(OscSchedule, LaneGroupsFollowTheLiveMembers) {
  // Members that fail leave the groups at the next chunk: with many failing members (a large
  // step) the groups change from chunk to chunk; the results equal the per-member schedule's.
  const Restore restore;
  Case c(70, "ws");
  for (int k = 0; k < c.K; k += 3) c.s0.x[std::size_t(k) * c.N + 1] = 1.0 + 0.5 * k;
  c.o.dt = 0.09;
  const StudyResult ref = study(c, 0, 1, false, Precision::Fp64, false);
  EXPECT_GT(ref.failed_count, 3);
  EXPECT_LT(ref.failed_count, c.K);
  for (int threads : {1, 2})
    expect_identical(study(c, std::size_t(512) << 20, threads, false, Precision::Fp64, true), ref,
                     "many failing, threads " + std::to_string(threads));
}

TEST(OscSchedule, Fp32KeptTablesGiveTheUncachedResultsBitForBit) {
  const Restore restore;
  const Case c(90, "ws");
  const StudyResult ref = study(c, 0, 1, false, Precision::Fp32, false);
  for (int threads : {1, 2})
    expect_identical(study(c, std::size_t(512) << 20, threads, false, Precision::Fp32), ref,
                     "fp32 threads " + std::to_string(threads));
}

TEST(OscSchedule, CallsOfAnyLengthAndRestoresGiveTheSameResults) {
  // The cache lives across advance() calls and is rebuilt after restore(): calls of odd lengths,
  // a snapshot restored into a new ensemble midway, the same calls without the cache. (The
  // failing member is frozen at the end of the chunk where it fails, and chunks end where the
  // calls do: the two runs make the same calls.)
  const Restore restore;
  const Case c(40, "ws");
  Recording rec;
  rec.transient = c.o.transient, rec.every = c.o.every, rec.watch = c.K / 2;
  struct Run {
    State state;
    MemberStats stats;
    Series series;
  };
  const auto run = [&](std::size_t budget, int threads, bool lanes) {
    detail::set_cpu_table_cache_bytes(budget);
    detail::set_cpu_lanes(lanes);
    omp_set_num_threads(threads);
    Run r;
    auto b = make_ensemble(Backend::Cpu);
    b->load(c.t, c.s0, Precision::Fp64);
    for (long n : {1L, 33L, 100L}) b->advance(c.o.model, c.o.dt, n, rec, r.series);
    const EnsembleSnapshot snap = b->snapshot();
    auto d = make_ensemble(Backend::Cpu);
    d->restore(c.t, snap, Precision::Fp64);
    for (long n : {200L, 366L}) d->advance(c.o.model, c.o.dt, n, rec, r.series);
    EXPECT_EQ(d->steps_done(), c.o.steps);
    r.state = d->state();
    r.stats = d->member_stats(rec.transient);
    return r;
  };
  const Run a = run(0, 1, false);
  EXPECT_EQ(a.stats.failed[std::size_t(c.K / 2)], 1);
  for (int threads : {1, 2}) {
    const Run b = run(std::size_t(512) << 20, threads, threads == 2);
    EXPECT_TRUE(same_bits(a.state.x, b.state.x));
    EXPECT_TRUE(same_bits(a.state.y, b.state.y));
    EXPECT_TRUE(same_bits(a.stats.msd_mean, b.stats.msd_mean));
    EXPECT_EQ(a.stats.failed, b.stats.failed);
    EXPECT_TRUE(same_bits(a.series.msd, b.series.msd));
    EXPECT_TRUE(same_bits(a.series.order, b.series.order));
    EXPECT_EQ(a.series.finite, b.series.finite);
    EXPECT_TRUE(same_bits(a.series.watch_msd, b.series.watch_msd));
  }
}

TEST(OscSchedule, CancelledAndResumedWithTheCacheEqualsTheUncachedStudy) {
  const Restore restore;
  const Case c(300, "ws");
  const StudyResult ref = study(c, 0, 1, true, Precision::Fp64, false);
  detail::set_cpu_table_cache_bytes(std::size_t(512) << 20);
  omp_set_num_threads(2);
  auto e = make_ensemble(Backend::Cpu);
  StudyProgress saved;
  int interruptions = 0;
  StudyResult r;
  for (int cancel_at = 2;; ++cancel_at) {
    Progress progress;
    int saves = 0;
    StudyCheckpointing cp;
    cp.interval_s = 1e-9;  // a save at every segment end
    cp.save = [&](const StudyProgress& sp) {
      saved = sp;
      if (++saves == cancel_at) progress.cancel = true;
    };
    StudyProgress sp = saved;
    try {
      r = run_study_blocks(*e, c.t, c.s0, c.o, sp, cp, &progress);
      break;
    } catch (const Cancelled&) {
      ++interruptions;
    }
  }
  EXPECT_GE(interruptions, 2);
  expect_identical(r, ref, "cancelled and resumed");
}

}  // namespace
}  // namespace simscope::oscillators
