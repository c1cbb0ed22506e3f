// Checkpointed studies (study.hpp: run_study_blocks; Ensemble::snapshot/restore): a study
// cancelled anywhere and resumed from its last saved progress gives the uninterrupted study's
// results bit for bit; blocks give run_study's per-member results exactly.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <thread>

#include "core/error.hpp"
#include "oscillators/ensemble.hpp"
#include "oscillators/model.hpp"
#include "oscillators/study.hpp"
#include "oscillators/topology.hpp"
#include "test_bits.hpp"
#include "test_osc_util.hpp"

namespace simscope::oscillators {
namespace {

using test::error_of;

using simscope::test::same_bits;

/// A study with a member that goes non-finite (member 70 starts far off the limit cycle).
struct Case {
  int N = 24, K = 150;
  Topologies t = watts_strogatz(24, 4, 0.2, 150, 5);
  State s0 = initial_state("random", 24, 150, 6);
  StudyOptions o;
  Case() {
    s0.x[std::size_t(70) * N] = 1e3;
    o.steps = 900, o.transient = 200, o.every = 7, o.dt = 0.02;
  }
};

/// The CPU ensemble as a back end that cannot snapshot (as CUDA today): blocks are redone.
class NoSnapshots final : public Ensemble {
 public:
  std::unique_ptr<Ensemble> e = make_ensemble(Backend::Cpu);
  Backend backend() const override { return Backend::Cpu; }
  void load(const Topologies& t, const State& s, Precision p) override { e->load(t, s, p); }
  void advance(const Model& m, double dt, std::int64_t steps, const Recording& rec, Series& out,
               Progress* progress) override {
    e->advance(m, dt, steps, rec, out, progress);
  }
  std::int64_t steps_done() const override { return e->steps_done(); }
  State state() const override { return e->state(); }
  MemberStats member_stats(std::int64_t transient) const override {
    return e->member_stats(transient);
  }
  Frame frame(int members) override { return e->frame(members); }
  int max_nodes() const override { return e->max_nodes(); }
};

void expect_identical(const StudyResult& a, const StudyResult& b) {
  EXPECT_TRUE(same_bits(a.msd, b.msd));
  EXPECT_EQ(a.failed, b.failed);
  EXPECT_TRUE(same_bits(a.final_state.x, b.final_state.x));
  EXPECT_TRUE(same_bits(a.final_state.y, b.final_state.y));
  EXPECT_TRUE(same_bits(a.msd_t, b.msd_t));
  EXPECT_TRUE(same_bits(a.order_t, b.order_t));
  EXPECT_EQ(a.finite_t, b.finite_t);
  EXPECT_EQ(a.valid, b.valid);
  EXPECT_EQ(std::memcmp(&a.msd_mean, &b.msd_mean, sizeof(double)), 0);
}

/// Runs the study, cancelling it at the `cancel_at`-th save (then at the next chunk boundary), and
/// resumes it from the last progress saved, as often as it takes to finish. Returns the result
/// and counts the interruptions.
StudyResult interrupted(Ensemble& e, const Case& c, int cancel_at, int& interruptions) {
  StudyProgress saved;
  interruptions = 0;
  for (;;) {
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
      return run_study_blocks(e, c.t, c.s0, c.o, sp, cp, &progress);
    } catch (const Cancelled&) {
      ++interruptions;
    }
  }
}

TEST(OscResume, BlockSizes) {
  EXPECT_EQ(study_block_members(1), 1);
  EXPECT_EQ(study_block_members(64), 64);
  EXPECT_EQ(study_block_members(300), 64);
  EXPECT_EQ(study_block_members(1280), 64);
  EXPECT_EQ(study_block_members(2000), 100);
  EXPECT_EQ(study_block_members(100000), 5000);
  EXPECT_EQ(study_block_members(100001), 5001);
}

TEST(OscResume, BlocksGiveRunStudysMembersExactly) {
  const Case c;
  auto e = make_ensemble(Backend::Cpu);
  const StudyResult a = run_study(*e, c.t, c.s0, c.o);
  StudyProgress sp;
  const StudyResult b = run_study_blocks(*e, c.t, c.s0, c.o, sp, {});
  EXPECT_EQ(sp.blocks_done, 3);
  EXPECT_EQ(a.failed_count, 1);
  EXPECT_EQ(b.failed, a.failed);
  EXPECT_TRUE(same_bits(a.msd, b.msd));  // NaN for the failed member in both
  const std::size_t N = std::size_t(c.N);
  for (std::size_t k = 0; k < std::size_t(c.K); ++k) {
    if (a.failed[k]) continue;
    const std::vector<double> ax(a.final_state.x.begin() + k * N,
                                 a.final_state.x.begin() + (k + 1) * N);
    const std::vector<double> bx(b.final_state.x.begin() + k * N,
                                 b.final_state.x.begin() + (k + 1) * N);
    EXPECT_TRUE(same_bits(ax, bx)) << "member " << k;
  }
  ASSERT_EQ(b.msd_t.size(), a.msd_t.size());
  EXPECT_EQ(b.finite_t, a.finite_t);
  for (std::size_t j = 0; j < a.msd_t.size(); ++j) {
    EXPECT_NEAR(b.msd_t[j], a.msd_t[j], 1e-14 * std::abs(a.msd_t[j]));
    EXPECT_NEAR(b.order_t[j], a.order_t[j], 1e-14 * std::abs(a.order_t[j]));
  }
  EXPECT_NEAR(b.msd_mean, a.msd_mean, 1e-15 * a.msd_mean);
}

TEST(OscResume, CancelledAnywhereResumesBitForBit) {
  const Case c;
  auto e = make_ensemble(Backend::Cpu);
  StudyProgress sp;
  int saves = 0;
  StudyCheckpointing count;
  count.interval_s = 1e-9;
  count.save = [&](const StudyProgress&) { ++saves; };
  const StudyResult ref = run_study_blocks(*e, c.t, c.s0, c.o, sp, count);
  ASSERT_GT(saves, 10);  // mid-block saves at segment ends and one per block
  for (int at : {1, 2, 5, saves / 2, saves - 1}) {
    int interruptions = 0;
    const StudyResult r = interrupted(*e, c, at, interruptions);
    EXPECT_GE(interruptions, 1) << "cancel at save " << at;
    expect_identical(ref, r);
  }
}

TEST(OscResume, Fp32CancelledAnywhereResumesBitForBit) {
  Case c;
  c.o.precision = Precision::Fp32;
  auto e = make_ensemble(Backend::Cpu);
  StudyProgress sp;
  const StudyResult ref = run_study_blocks(*e, c.t, c.s0, c.o, sp, {});
  for (int at : {3, 7}) {
    int interruptions = 0;
    expect_identical(ref, interrupted(*e, c, at, interruptions));
    EXPECT_GE(interruptions, 1);
  }
}

TEST(OscResume, BackEndWithoutSnapshotsRedoesTheBlock) {
  const Case c;
  NoSnapshots e;
  EXPECT_FALSE(e.can_snapshot());
  EXPECT_NE(error_of([&] { e.snapshot(); }).find("cannot snapshot"), std::string::npos);
  StudyProgress sp;
  const StudyResult ref = run_study_blocks(e, c.t, c.s0, c.o, sp, {});
  for (int at : {1, 2}) {
    int interruptions = 0;
    expect_identical(ref, interrupted(e, c, at, interruptions));
    EXPECT_GE(interruptions, 1);
  }
}

// The CPU ensemble's chunks depend on the current step and the end of the advance() call only:
// restoring a snapshot taken where a cancel landed (a chunk boundary inside the call) and
// advancing to the same end gives the uninterrupted call's state, sums and samples bit for bit,
// also for a member that goes non-finite (frozen at the end of its chunk).
TEST(OscResume, SnapshotInsideACallRestoresBitForBit) {
  const int N = 32, K = 64;
  const std::int64_t steps = 30000;
  const Topologies t = watts_strogatz(N, 4, 0.1, K, 3);
  State s0 = initial_state("random", N, K, 4);
  s0.x[std::size_t(5) * N + 3] = 300;
  Recording rec;
  rec.transient = 1000, rec.every = 25;
  const Model m;
  auto a = make_ensemble(Backend::Cpu);
  a->load(t, s0, Precision::Fp64);
  Series sa;
  a->advance(m, 0.02, steps, rec, sa);

  auto b = make_ensemble(Backend::Cpu);
  b->load(t, s0, Precision::Fp64);
  Series sb;
  Progress progress;
  std::thread cancel([&] {  // cancel once the first chunk is done
    while (progress.fraction.load() <= 0)
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    progress.cancel = true;
  });
  bool cancelled = false;
  try {
    b->advance(m, 0.02, steps, rec, sb, &progress);
  } catch (const Cancelled&) {
    cancelled = true;
  }
  cancel.join();
  ASSERT_TRUE(cancelled);
  const EnsembleSnapshot snap = b->snapshot();
  ASSERT_GT(snap.step, 0);
  ASSERT_LT(snap.step, steps);
  EXPECT_EQ(sb.size(), std::size_t(snap.step / rec.every));

  auto r = make_ensemble(Backend::Cpu);
  ASSERT_TRUE(r->can_snapshot());
  r->restore(t, snap, Precision::Fp64);
  EXPECT_EQ(r->steps_done(), snap.step);
  r->advance(m, 0.02, steps - snap.step, rec, sb);
  const State x = a->state(), y = r->state();
  EXPECT_TRUE(same_bits(x.x, y.x));
  EXPECT_TRUE(same_bits(x.y, y.y));
  const MemberStats ma = a->member_stats(rec.transient), mr = r->member_stats(rec.transient);
  EXPECT_EQ(ma.failed, mr.failed);
  EXPECT_EQ(ma.failed[5], 1);
  EXPECT_TRUE(same_bits(ma.msd_mean, mr.msd_mean));
  EXPECT_TRUE(same_bits(sa.msd, sb.msd));
  EXPECT_TRUE(same_bits(sa.order, sb.order));
  EXPECT_EQ(sa.finite, sb.finite);
  EXPECT_EQ(sa.step, sb.step);
}

TEST(OscResume, MismatchedProgressIsRefused) {
  const Case c;
  auto e = make_ensemble(Backend::Cpu);
  StudyProgress saved;
  StudyCheckpointing cp;
  cp.interval_s = 1e-9;
  Progress progress;
  cp.save = [&](const StudyProgress& sp) {
    saved = sp;
    progress.cancel = true;
  };
  StudyProgress sp;
  EXPECT_THROW(run_study_blocks(*e, c.t, c.s0, c.o, sp, cp, &progress), Cancelled);
  ASSERT_GT(saved.block, 0);
  StudyOptions longer = c.o;
  longer.steps = 1000;
  StudyProgress a = saved;
  EXPECT_NE(error_of([&] {
              run_study_blocks(*e, c.t, c.s0, longer, a, {});
            }).find("checkpoint does not match"),
            std::string::npos);
  const Topologies fewer = watts_strogatz(c.N, 4, 0.2, c.K - 1, 5);
  const State s_fewer = initial_state("random", c.N, c.K - 1, 6);
  StudyProgress b = saved;
  EXPECT_NE(
      error_of([&] { run_study_blocks(*e, fewer, s_fewer, c.o, b, {}); }).find("the study has 149"),
      std::string::npos);
  StudyProgress d = saved;
  d.msd.push_back(0);
  EXPECT_NE(error_of([&] { run_study_blocks(*e, c.t, c.s0, c.o, d, {}); }).find("wrong sizes"),
            std::string::npos);
}

TEST(OscResume, RestoreChecksTheSnapshot) {
  const int N = 4, K = 2;
  auto e = make_ensemble(Backend::Cpu);
  EnsembleSnapshot s;
  s.state = initial_state("random", N, K, 1);
  s.total = {0, 0};
  s.window = {0};
  s.failed = {0, 0};
  EXPECT_NE(error_of([&] { e->restore(ring(N, 2, K), s, Precision::Fp64); }).find("does not match"),
            std::string::npos);
  s.window = {0, 0};
  s.step = 3;
  e->restore(ring(N, 2, K), s, Precision::Fp64);
  EXPECT_EQ(e->steps_done(), 3);
  EXPECT_TRUE(same_bits(e->state().x, s.state.x));
}

}  // namespace
}  // namespace simscope::oscillators
