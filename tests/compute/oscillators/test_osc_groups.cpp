// Reduction groups of studies (issue 13, more ranks than blocks): Ensemble::advance's per-group
// sums (Recording::group), work ranges cut at group boundaries inside blocks, and their merge,
// which equals the unsplit study bit for bit on the CPU back end.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "core/error.hpp"
#include "oscillators/ensemble.hpp"
#include "oscillators/model.hpp"
#include "oscillators/study.hpp"
#include "oscillators/topology.hpp"
#include "test_bits.hpp"
#include "test_osc_util.hpp"

namespace simscope::oscillators {
namespace {

using simscope::test::same_bits;

Topologies members_of(const Topologies& t, int k0, int k1) {
  // The generators give member k from (seed, k): the range's own networks.
  (void)t;
  return watts_strogatz(t.nodes, 4, 0.2, k1 - k0, 5, k0);
}

TEST(OscGroups, GroupSizes) {
  EXPECT_EQ(study_group_members(1), 1);   // a block of 1
  EXPECT_EQ(study_group_members(5), 1);   // K < 64: one block, summed member by member
  EXPECT_EQ(study_group_members(63), 1);
  EXPECT_EQ(study_group_members(64), 8);  // ceil(64 / 16) = 4 -> 8
  EXPECT_EQ(study_group_members(1280), 8);
  EXPECT_EQ(study_group_members(2000), 8);        // block 100: ceil(100 / 16) = 7 -> 8
  EXPECT_EQ(study_group_members(100000), 320);    // block 5000: 313 -> 320, 16 groups
  EXPECT_EQ(study_group_members(1000000), 3128);  // block 50000: 3125 -> 3128
  for (int K : {1, 7, 64, 65, 130, 1281, 7777, 100000, 123457}) {
    const int B = study_block_members(K), g = study_group_members(K);
    if (K >= 64) EXPECT_LE((B + g - 1) / g, 16) << K;
    EXPECT_TRUE(g % 8 == 0 || g == B || (K < 64 && g == 1)) << K;
  }
}

TEST(OscGroups, UnitsAndCuts) {
  // K = 150: blocks [0, 64), [64, 128), [128, 150); groups of 8 (the last block's last of 6).
  const auto whole = study_units(150, {0, 150});
  ASSERT_EQ(whole.size(), 3u);
  for (const StudyUnit& u : whole) EXPECT_TRUE(u.whole);
  const auto cut = study_units(150, {40, 136});
  // Groups 40..64 of block 0 (3), block 1 whole, group 128..136 of block 2.
  ASSERT_EQ(cut.size(), 5u);
  EXPECT_EQ(cut[0].begin, 40);
  EXPECT_EQ(cut[0].end, 48);
  EXPECT_FALSE(cut[0].whole);
  EXPECT_EQ(cut[2].end, 64);
  EXPECT_TRUE(cut[3].whole);
  EXPECT_EQ(cut[4].block, 2);
  EXPECT_EQ(cut[4].begin, 128);
  EXPECT_EQ(cut[4].end, 136);
  const auto last = study_units(150, {144, 150});
  ASSERT_EQ(last.size(), 1u);
  EXPECT_EQ(last[0].end, 150);
  EXPECT_FALSE(last[0].whole);
  EXPECT_TRUE(study_units(150, {64, 64}).empty());
  EXPECT_THROW(study_units(150, {4, 64}), Error);
  EXPECT_THROW(study_units(150, {0, 151}), Error);
  const auto cuts = study_cuts(150);
  ASSERT_EQ(cuts.size(), 20u);
  EXPECT_EQ(cuts[8], 64u);
  EXPECT_EQ(cuts[18], 144u);
  EXPECT_EQ(cuts[19], 150u);
}

TEST(OscGroups, AdvanceReturnsEachGroupsSumsInMemberOrder) {
  // Per member the samples do not depend on the other members: each member integrated alone
  // (an ensemble of one, whose mean is its own value) gives the terms, added here in member
  // order from 0, for every group of 3 of 11 members (the last of 2); one member fails.
  const int N = 16, K = 11, g = 3;
  const Topologies t = watts_strogatz(N, 4, 0.2, K, 9);
  State s0 = initial_state("random", N, K, 4);
  s0.x[std::size_t(4) * N] = 1e3;  // member 4 goes non-finite
  Recording rec;
  rec.every = 5;
  rec.group = g;
  const std::int64_t steps = 200;
  auto e = make_ensemble(Backend::Cpu);
  e->load(t, s0, Precision::Fp64);
  Series all;
  e->advance(Model{}, 0.02, steps, rec, all);
  const std::size_t T = std::size_t(steps / rec.every), G = (K + g - 1) / g;
  ASSERT_EQ(all.group_msd.size(), T * G);
  ASSERT_EQ(all.group_finite.size(), T * G);
  std::vector<Series> one(K);
  for (int k = 0; k < K; ++k) {
    Topologies tk = watts_strogatz(N, 4, 0.2, 1, 9, k);
    State sk;
    sk.members = 1, sk.nodes = N;
    sk.x.assign(s0.x.begin() + k * N, s0.x.begin() + (k + 1) * N);
    sk.y.assign(s0.y.begin() + k * N, s0.y.begin() + (k + 1) * N);
    auto ek = make_ensemble(Backend::Cpu);
    ek->load(tk, sk, Precision::Fp64);
    Recording r1 = rec;
    r1.group = 0;
    r1.chunk_members = K;  // the same chunks as the ensemble of 11 (the failing member's state)
    ek->advance(Model{}, 0.02, steps, r1, one[std::size_t(k)]);
  }
  std::int64_t failed_samples = 0;
  for (std::size_t j = 0; j < T; ++j)
    for (std::size_t q = 0; q < G; ++q) {
      double m = 0, o = 0;
      std::int64_t n = 0;
      for (int k = int(q) * g; k < std::min(K, int(q + 1) * g); ++k) {
        const Series& s = one[std::size_t(k)];
        if (s.finite[j] == 1) m += s.msd[j], o += s.order[j], ++n;
      }
      failed_samples += (q == 1 && n < 3);
      EXPECT_EQ(std::memcmp(&m, &all.group_msd[j * G + q], sizeof m), 0) << j << " " << q;
      EXPECT_EQ(std::memcmp(&o, &all.group_order[j * G + q], sizeof o), 0) << j << " " << q;
      EXPECT_EQ(n, all.group_finite[j * G + q]);
    }
  EXPECT_GT(failed_samples, 0);  // member 4 (group 1) was left out once it failed
  // Without a group: no group sums.
  Series none;
  e->load(t, s0, Precision::Fp64);
  rec.group = 0;
  e->advance(Model{}, 0.02, 10, rec, none);
  EXPECT_TRUE(none.group_msd.empty());
  rec.group = -1;
  EXPECT_THROW(e->advance(Model{}, 0.02, 10, rec, none), Error);
}

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
  EXPECT_EQ(a.failed_count, b.failed_count);
  EXPECT_EQ(std::memcmp(&a.msd_mean, &b.msd_mean, sizeof(double)), 0);
  EXPECT_EQ(std::memcmp(&a.msd_sem, &b.msd_sem, sizeof(double)), 0);
}

/// The study cut at `ends`: each range on its own ensemble with its members only, merged.
StudyResult split_at(const Topologies& t, const State& s0, const StudyOptions& o,
                     const std::vector<std::size_t>& ends, Precision p = Precision::Fp64) {
  const bool shared = t.shared;  // (a graph shared by all members: the same for a range)
  std::vector<StudyResult> parts;
  std::size_t begin = 0;
  StudyOptions op = o;
  op.precision = p;
  for (std::size_t end : ends) {
    const int k0 = int(begin), k1 = int(end);
    Topologies tr = shared ? t : members_of(t, k0, k1);
    tr.members = k1 - k0;
    State sr;
    sr.members = k1 - k0, sr.nodes = s0.nodes;
    sr.x.assign(s0.x.begin() + std::ptrdiff_t(begin) * s0.nodes,
                s0.x.begin() + std::ptrdiff_t(end) * s0.nodes);
    sr.y.assign(s0.y.begin() + std::ptrdiff_t(begin) * s0.nodes,
                s0.y.begin() + std::ptrdiff_t(end) * s0.nodes);
    auto e = make_ensemble(Backend::Cpu);
    parts.push_back(run_study_range(*e, tr, sr, op, {begin, end}, nullptr, t.members));
    begin = end;
  }
  return merge_study_ranges(parts);
}

TEST(OscGroups, RangesCutInsideBlocksMergeToTheWholeStudyBitForBit) {
  // K = 150 (blocks of 64, 64, 22; groups of 8), members going non-finite, fp64 and fp32, and
  // split_study_members' ranges for more ranges than blocks.
  const int N = 12, K = 150;
  const Topologies t = watts_strogatz(N, 4, 0.2, K, 5);
  State s0 = initial_state("random", N, K, 6);
  for (int k : {3, 70, 131}) s0.x[std::size_t(k) * N] = 40.0;  // members going non-finite
  StudyOptions o;
  o.steps = 600, o.transient = 100, o.every = 7, o.dt = 0.05;
  auto e = make_ensemble(Backend::Cpu);
  StudyProgress sp;
  const StudyResult whole = run_study_blocks(*e, t, s0, o, sp, {});
  ASSERT_GT(whole.failed_count, 0);
  ASSERT_LT(whole.failed_count, K);
  for (const auto& ends : std::vector<std::vector<std::size_t>>{
           {8, 16, 64, 150}, {40, 72, 136, 144, 150}, {24, 48, 56, 104, 150}, {150}})
    expect_identical(whole, split_at(t, s0, o, ends), "ends from " + std::to_string(ends[0]));
  StudyOptions o32 = o;
  o32.precision = Precision::Fp32;
  StudyProgress sp32;
  const StudyResult whole32 = run_study_blocks(*e, t, s0, o32, sp32, {});
  std::vector<std::size_t> ends;
  for (const IndexRange& r : split_study_members(K, 7)) ends.push_back(r.end);
  ASSERT_EQ(ends.size(), 7u);
  EXPECT_NE(ends[0] % 64, 0u);  // a block is cut
  expect_identical(whole32, split_at(t, s0, o, ends, Precision::Fp32), "fp32 in 7 ranges");
}

TEST(OscGroups, SmallStudiesSpreadOverEveryRange) {
  // K < 64: one block, a reduction group per member, so R <= K ranges all get members, and the
  // merged result equals one process' bit for bit. Its series are the members' samples added in
  // member order (groups of 1 folded in order from 0).
  const int N = 12;
  for (const int K : {6, 7, 63}) {
    const Topologies t = watts_strogatz(N, 4, 0.2, K, 5);
    State s0 = initial_state("random", N, K, 6);
    s0.x[std::size_t(K / 2) * N] = 40.0;  // a member going non-finite
    StudyOptions o;
    o.steps = 300, o.transient = 50, o.every = 7, o.dt = 0.05;
    auto e = make_ensemble(Backend::Cpu);
    StudyProgress sp;
    const StudyResult whole = run_study_blocks(*e, t, s0, o, sp, {});
    ASSERT_EQ(whole.failed_count, 1) << K;
    for (const std::size_t parts : {std::size_t(2), std::size_t(3), std::size_t(K)}) {
      const std::vector<IndexRange> ranges = split_study_members(K, parts);
      ASSERT_EQ(ranges.size(), parts);
      std::vector<std::size_t> ends;
      for (const IndexRange& r : ranges) {
        EXPECT_GT(r.end, r.begin) << K << " members in " << parts << " ranges";
        ends.push_back(r.end);
      }
      expect_identical(whole, split_at(t, s0, o, ends),
                       std::to_string(K) + " members in " + std::to_string(parts) + " ranges");
    }
    // The series: each sample's sum over the finite members in member order, from each member's
    // own samples (an ensemble of one: its mean is its value).
    std::vector<double> sum(whole.msd_t.size(), 0.0);
    std::vector<std::int64_t> n(whole.msd_t.size(), 0);
    for (int k = 0; k < K; ++k) {
      auto ek = make_ensemble(Backend::Cpu);
      ek->load(members_of(t, k, k + 1), [&] {
        State s;
        s.members = 1, s.nodes = N;
        s.x.assign(s0.x.begin() + k * N, s0.x.begin() + (k + 1) * N);
        s.y.assign(s0.y.begin() + k * N, s0.y.begin() + (k + 1) * N);
        return s;
      }(), o.precision);
      Recording rec;
      rec.transient = o.transient, rec.every = o.every;
      Series ser;
      ek->advance(o.model, o.dt, o.steps, rec, ser);
      for (std::size_t j = 0; j < sum.size(); ++j)
        if (ser.finite[j] == 1) sum[j] += ser.msd[j], ++n[j];
    }
    for (std::size_t j = 0; j < sum.size(); ++j) {
      ASSERT_EQ(whole.finite_t[j], n[j]) << K << " sample " << j;
      EXPECT_TRUE(same_bits(std::vector<double>{whole.msd_t[j]},
                            std::vector<double>{sum[j] / double(n[j])}))
          << K << " sample " << j;
    }
  }
}

TEST(OscGroups, APartOfABlockRunsInTheBlocksChunks) {
  // A member going non-finite is frozen at the end of its chunk, and the CPU sizes chunks by the
  // members loaded: 3125 steps for a block of 64 x 100 nodes, 25000 for a group of 8 alone (the
  // segments, 31250 steps for a study of 20 blocks, do not cut them). On a graph without edges
  // the member's other nodes stay finite and go on to the chunk's end: its final state tells
  // where it was frozen. Block 0 of a study of 1280 members, whole and as groups [0, 8) and
  // [8, 64), must agree bit for bit.
  const int N = 100, K = 1280, B = 64;
  Topologies t;
  t.nodes = N, t.members = B, t.shared = true;
  t.row_ptr.assign(std::size_t(N) + 1, 0);  // no edges: the nodes are independent
  validate(t);
  State s0 = initial_state("random", N, B, 6);
  s0.x[std::size_t(3) * N] = 1e3;  // member 3's node 0 blows up in the first chunk
  StudyOptions o;
  o.steps = 3500, o.transient = 100, o.every = 100, o.dt = 0.05;
  auto e = make_ensemble(Backend::Cpu);
  const StudyResult whole = run_study_range(*e, t, s0, o, {0, 64}, nullptr, K);
  ASSERT_EQ(whole.failed_count, 1);
  ASSERT_EQ(whole.failed[3], 1);
  // Node 1 of member 3 is finite (frozen at step 3125, not integrated to 3500).
  ASSERT_TRUE(std::isfinite(whole.final_state.x[std::size_t(3) * N + 1]));
  std::vector<StudyResult> parts;
  for (const auto& [a, z] : std::vector<std::pair<int, int>>{{0, 8}, {8, 64}}) {
    Topologies ta = t;
    ta.members = z - a;
    State sa;
    sa.members = z - a, sa.nodes = N;
    sa.x.assign(s0.x.begin() + a * N, s0.x.begin() + z * N);
    sa.y.assign(s0.y.begin() + a * N, s0.y.begin() + z * N);
    auto ea = make_ensemble(Backend::Cpu);
    parts.push_back(run_study_range(*ea, ta, sa, o, {std::size_t(a), std::size_t(z)}, nullptr, K));
  }
  const StudyResult merged = merge_study_ranges(parts);
  expect_identical(whole, merged, "group 0 alone");
  EXPECT_TRUE(same_bits(whole.block_msd_sum, merged.block_msd_sum));
  EXPECT_EQ(whole.block_finite, merged.block_finite);
}

TEST(OscGroups, ABlocksSeriesIsTheFoldOfItsGroups) {
  // One block of 64 (K = 64, groups of 8): msd_t = (fold of the 8 groups' sums) / count, the
  // sums taken here from the ensemble's group series in group order from 0.
  const int N = 10, K = 64;
  const Topologies t = watts_strogatz(N, 4, 0.2, K, 2);
  const State s0 = initial_state("random", N, K, 3);
  StudyOptions o;
  o.steps = 300, o.transient = 50, o.every = 10;
  auto e = make_ensemble(Backend::Cpu);
  StudyProgress sp;
  const StudyResult r = run_study_blocks(*e, t, s0, o, sp, {});
  e->load(t, s0, Precision::Fp64);
  Recording rec;
  rec.every = o.every, rec.transient = o.transient, rec.group = 8;
  Series s;
  e->advance(o.model, o.dt, o.steps, rec, s);
  const std::size_t T = 30, G = 8;
  ASSERT_EQ(r.msd_t.size(), T);
  int differ = 0;
  for (std::size_t j = 0; j < T; ++j) {
    double m = 0, q = 0;
    std::int64_t n = 0;
    for (std::size_t g = 0; g < G; ++g)
      m += s.group_msd[j * G + g], q += s.group_order[j * G + g], n += s.group_finite[j * G + g];
    ASSERT_EQ(n, K);
    const double mm = m / double(n), qq = q / double(n);
    EXPECT_EQ(std::memcmp(&mm, &r.msd_t[j], sizeof mm), 0) << j;
    EXPECT_EQ(std::memcmp(&qq, &r.order_t[j], sizeof qq), 0) << j;
    // And within rounding of the direct mean over the members.
    EXPECT_NEAR(r.msd_t[j], s.msd[j], 1e-14 * std::abs(s.msd[j]));
    differ += r.msd_t[j] != s.msd[j];
  }
  // Another order of addition than one sum over the block (the series before the groups): the
  // rounding differs at some samples (21 of these 30).
  EXPECT_GT(differ, 0);
}

TEST(OscGroups, ASlicedFinishedBlockCarriesItsContributionOnce) {
  const int N = 8, K = 150;
  const Topologies t = watts_strogatz(N, 4, 0.2, K, 5);
  const State s0 = initial_state("random", N, K, 6);
  StudyOptions o;
  o.steps = 120, o.transient = 20, o.every = 6;
  auto e = make_ensemble(Backend::Cpu);
  StudyProgress sp;
  const StudyResult whole = run_study_blocks(*e, t, s0, o, sp, {});
  // Block 1 finished on its own (as a checkpoint holds it), sliced at 80 and 104.
  const StudyResult b1 = split_at(t, s0, o, {64, 128, 150});  // the merged whole
  std::vector<StudyResult> parts;
  {
    auto e2 = make_ensemble(Backend::Cpu);
    const Topologies tr = members_of(t, 64, 128);
    State sr;
    sr.members = 64, sr.nodes = N;
    sr.x.assign(s0.x.begin() + 64 * N, s0.x.begin() + 128 * N);
    sr.y.assign(s0.y.begin() + 64 * N, s0.y.begin() + 128 * N);
    const StudyResult block = run_study_range(*e2, tr, sr, o, {64, 128}, nullptr, K);
    for (const auto& [a, z] : std::vector<std::pair<std::size_t, std::size_t>>{{0, 8}, {8, 64}}) {
      auto e3 = make_ensemble(Backend::Cpu);
      const Topologies ta = members_of(t, int(a), int(z));
      State sa;
      sa.members = int(z - a), sa.nodes = N;
      sa.x.assign(s0.x.begin() + std::ptrdiff_t(a) * N, s0.x.begin() + std::ptrdiff_t(z) * N);
      sa.y.assign(s0.y.begin() + std::ptrdiff_t(a) * N, s0.y.begin() + std::ptrdiff_t(z) * N);
      parts.push_back(run_study_range(*e3, ta, sa, o, {a, z}, nullptr, K));
    }
    for (const auto& [a, z] :
         std::vector<std::pair<std::size_t, std::size_t>>{{64, 80}, {80, 104}, {104, 128}})
      parts.push_back(slice_study_block(block, {a, z}));
    EXPECT_THROW(slice_study_block(block, {60, 80}), Error);   // outside the block
    EXPECT_THROW(slice_study_block(block, {64, 70}), Error);   // off the groups
    EXPECT_THROW(slice_study_block(parts[0], {0, 8}), Error);  // not a whole block
    auto e4 = make_ensemble(Backend::Cpu);
    const Topologies tl = members_of(t, 128, 150);
    State sl;
    sl.members = 22, sl.nodes = N;
    sl.x.assign(s0.x.begin() + 128 * N, s0.x.end());
    sl.y.assign(s0.y.begin() + 128 * N, s0.y.end());
    parts.push_back(run_study_range(*e4, tl, sl, o, {128, 150}, nullptr, K));
  }
  expect_identical(whole, b1, "whole blocks");
  expect_identical(whole, merge_study_ranges(parts), "a finished block sliced");
  // Parts out of order are refused.
  std::swap(parts[1], parts[2]);
  EXPECT_THROW(merge_study_ranges(parts), Error);
}

}  // namespace
}  // namespace simscope::oscillators
