// Checkpointed studies (study.hpp, run_study_blocks): members are integrated in fixed blocks,
// each block in fixed stretches of steps ("segments"). Where a study is saved, cancelled or
// resumed therefore never changes what is computed.
//
// Why a resumed study equals an uninterrupted one bit for bit:
//  - Member k's integration depends only on its own graph and state. The back ends integrate
//    members independently, and the msd time average is summed in windows aligned to the
//    global step. So its msd, failed flag and final state do not depend on its block.
//  - Within a block, the CPU back end's chunks of steps depend only on the current step and the
//    end step of the advance() call (oscillators_cpu.cpp). End steps are the fixed segment ends.
//    A block restored at any chunk boundary and advanced to the same segment end runs the same
//    chunks. This matters for a member that goes non-finite: it is frozen at its chunk's end.
//  - A block's series contribution folds its reduction groups' sums in group order from 0
//    (study_group_members). Each group's sum runs over its finite members in member order inside
//    advance(). Finished blocks are merged into the sums in block order. A checkpoint holds the
//    sums and the partial block's group sums exactly, in fp64.
// A work range may cut a block at group boundaries when there are more ranks than blocks.
// Its part of the block is integrated on its own in the block's chunks (Recording::chunk_members)
// and segments, so each member's results are the block's. Its groups' sums are returned as rows
// of their own; merge_study_ranges folds them into the block's row in group order, making the
// same additions.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <limits>
#include <thread>

#include "core/error.hpp"
#include "core/range_cuts.hpp"
#include "oscillators/study.hpp"

namespace simscope::oscillators {
namespace {

using Clock = std::chrono::steady_clock;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
/// Blocks are 5 % of the members, and at least kMinBlock members.
constexpr int kBlockFraction = 20;
constexpr int kMinBlock = 64;
/// Oscillator-steps per segment on a back end that can snapshot: a few seconds on a CPU core.
/// Segment ends are where a time- or work-based checkpoint may be written.
constexpr double kSegmentOscSteps = 2e8;
/// A checkpoint is written at least every this fraction of the study's member-steps.
constexpr double kSaveFraction = 0.05;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

/// Members [k0, k1) of t, with their own graphs or the shared one.
Topologies slice(const Topologies& t, int k0, int k1) {
  Topologies s;
  s.nodes = t.nodes;
  s.members = k1 - k0;
  s.shared = t.shared;
  if (t.shared) {
    s.row_ptr = t.row_ptr;
    s.col = t.col;
    s.weight = t.weight;
    return s;
  }
  const std::size_t N = std::size_t(t.nodes), r0 = std::size_t(k0) * N, r1 = std::size_t(k1) * N;
  const std::int64_t b = t.row_ptr[r0], e = t.row_ptr[r1];
  s.row_ptr.resize(r1 - r0 + 1);
  for (std::size_t q = r0; q <= r1; ++q) s.row_ptr[q - r0] = t.row_ptr[q] - b;
  s.col.assign(t.col.begin() + b, t.col.begin() + e);
  if (t.weighted()) s.weight.assign(t.weight.begin() + b, t.weight.begin() + e);
  return s;
}

State slice(const State& s, int k0, int k1) {
  State o;
  o.members = k1 - k0;
  o.nodes = s.nodes;
  const std::size_t N = std::size_t(s.nodes);
  o.x.assign(s.x.begin() + std::ptrdiff_t(k0 * N), s.x.begin() + std::ptrdiff_t(k1 * N));
  o.y.assign(s.y.begin() + std::ptrdiff_t(k0 * N), s.y.begin() + std::ptrdiff_t(k1 * N));
  return o;
}

/// Gives advance() a Progress of its own. A thread forwards the caller's cancel to it every 5 ms,
/// and its fraction, mapped into [a, b], back to the caller's.
class ProgressRelay {
 public:
  explicit ProgressRelay(Progress* outer) : outer_(outer) {
    if (outer_) thread_ = std::thread([this] { loop(); });
  }
  ~ProgressRelay() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }
  ProgressRelay(const ProgressRelay&) = delete;
  ProgressRelay& operator=(const ProgressRelay&) = delete;

  Progress* inner() { return outer_ ? &inner_ : nullptr; }
  void range(double a, double b) {
    inner_.fraction = 0;
    a_ = a, b_ = b;
    publish();
  }

 private:
  void publish() {
    if (outer_) outer_->set(a_ + (b_ - a_) * std::clamp(inner_.fraction.load(), 0.0, 1.0));
  }
  void loop() {
    while (!stop_) {
      if (outer_->cancel) inner_.cancel = true;
      publish();
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
  Progress* outer_;
  Progress inner_;
  std::atomic<double> a_{0}, b_{0};
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

/// Number of groups of `g` members in `members` members; the last may be shorter.
int group_count(int members, int g) { return g > 0 ? (members + g - 1) / g : 0; }

/// Throws unless a resumed sp fits the study.
void check_progress(const StudyProgress& sp, int K, int N, std::int64_t T, const StudyOptions& o) {
  auto bad = [](const std::string& what) {
    throw Error("study checkpoint does not match the study: " + what);
  };
  if (sp.members != K || sp.nodes != N || sp.samples != T)
    bad(std::to_string(sp.members) + " members of " + std::to_string(sp.nodes) + " nodes, " +
        std::to_string(sp.samples) + " samples; the study has " + std::to_string(K) + ", " +
        std::to_string(N) + ", " + std::to_string(T));
  if (sp.block != study_block_members(K)) bad("block of " + std::to_string(sp.block) + " members");
  const int done = std::min(K, sp.blocks_done * sp.block);
  if (sp.blocks_done < 0 || sp.blocks_done > sp.blocks() || sp.members_done() != done ||
      sp.failed.size() != std::size_t(done) || sp.final_state.members != done ||
      sp.final_state.nodes != N || sp.final_state.x.size() != std::size_t(done) * N ||
      sp.final_state.y.size() != sp.final_state.x.size())
    bad("the finished members' arrays have the wrong sizes");
  if (sp.msd_sum.size() != std::size_t(T) || sp.order_sum.size() != std::size_t(T) ||
      sp.finite.size() != std::size_t(T))
    bad("the series sums have the wrong length");
  if (sp.partial) {
    const int kb = std::min(K, (sp.blocks_done + 1) * sp.block) - sp.blocks_done * sp.block;
    const EnsembleSnapshot& s = sp.snapshot;
    if (sp.blocks_done >= sp.blocks() || s.step < 0 || s.step > o.steps || s.state.members != kb ||
        s.state.nodes != N || s.total.size() != std::size_t(kb) ||
        s.window.size() != std::size_t(kb) || s.failed.size() != std::size_t(kb))
      bad("the block under way has the wrong sizes");
    const std::size_t ns = std::size_t(s.step / o.every);
    const std::size_t groups = std::size_t(group_count(kb, study_group_members(K)));
    if (sp.series.msd.size() != ns || sp.series.order.size() != ns ||
        sp.series.finite.size() != ns || sp.series.group_msd.size() != ns * groups ||
        sp.series.group_order.size() != ns * groups || sp.series.group_finite.size() != ns * groups)
      bad("the block under way has " + std::to_string(sp.series.msd.size()) + " samples at step " +
          std::to_string(s.step));
  }
}

}  // namespace

int study_block_members(int members) {
  const int fifth = (members + kBlockFraction - 1) / kBlockFraction;
  return std::max({fifth, std::min(members, kMinBlock), 1});
}

int study_group_members(int members) {
  if (members < kMinBlock) return 1;  // one block: any rank count up to K shares it
  const int block = study_block_members(members);
  const int g = ((block + 15) / 16 + 7) / 8 * 8;
  return std::max(1, std::min(block, g));
}

std::vector<StudyUnit> study_units(int members, const IndexRange& range) {
  const std::size_t K = std::size_t(std::max(members, 0));
  if (range.begin > range.end || range.end > K)
    throw Error("study members: range [" + std::to_string(range.begin) + ", " +
                std::to_string(range.end) + ") is not within the " + std::to_string(K) +
                " members");
  const int B = study_block_members(std::max(members, 1)), g = study_group_members(members);
  const auto on_group = [&](std::size_t k) {
    return k == K || (k % std::size_t(B)) % std::size_t(g) == 0;
  };
  if (!on_group(range.begin) || !on_group(range.end))
    throw Error("study members: range [" + std::to_string(range.begin) + ", " +
                std::to_string(range.end) + ") does not start and end on groups of " +
                std::to_string(g) + " members within blocks of " + std::to_string(B) +
                " (or at K = " + std::to_string(K) + ")");
  std::vector<StudyUnit> units;
  const int m0 = int(range.begin), m1 = int(range.end);
  for (int b = m0 / B; b * B < m1; ++b) {
    const int k0 = b * B, k1 = std::min(members, k0 + B);
    const int a = std::max(m0, k0), e = std::min(m1, k1);
    if (a == k0 && e == k1) {
      units.push_back({b, k0, k1, true});
      continue;
    }
    for (int q = a; q < e; q += g) units.push_back({b, q, std::min(e, q + g), false});
  }
  return units;
}

std::vector<std::size_t> study_cuts(int members) {
  std::vector<std::size_t> cuts;
  if (members < 1) return cuts;
  for (const StudyUnit& u : study_units(members, {0, std::size_t(members)})) {
    const int g = study_group_members(members);
    for (int q = u.begin; q < u.end; q += g) cuts.push_back(std::size_t(q));
  }
  cuts.push_back(std::size_t(members));
  return cuts;
}

double StudyProgress::fraction(std::int64_t steps) const {
  if (members <= 0 || steps <= 0) return 0;
  double done = double(members_done()) * double(steps);
  if (partial) done += double(snapshot.state.members) * double(snapshot.step);
  return done / (double(members) * double(steps));
}

Frame frame_of(const State& s, int members, std::int64_t step) {
  Frame f;
  f.members = std::clamp(members, 0, s.members);
  f.nodes = s.nodes;
  f.step = step;
  const std::size_t n = std::size_t(f.members) * std::size_t(s.nodes);
  f.theta_r.resize(2 * n);
  for (std::size_t q = 0; q < n; ++q) {
    f.theta_r[2 * q] = float(phase(s.x[q], s.y[q]));
    f.theta_r[2 * q + 1] = float(std::hypot(s.x[q], s.y[q]));
  }
  return f;
}

namespace {

/// Throws unless init fits t and K, N >= 1.
void check_study_inputs(const Topologies& t, const State& init) {
  const int K = t.members, N = t.nodes;
  if (K < 1 || N < 1 || init.members != K || init.nodes != N)
    throw Error("study: the initial state of " + std::to_string(init.members) + " x " +
                std::to_string(init.nodes) + " does not match the " + std::to_string(K) +
                " networks of " + std::to_string(N) + " nodes");
}

/// A fresh StudyProgress of the study (K, N, T), positioned at block `first_block`.
StudyProgress fresh_progress(int K, int N, std::int64_t T, int first_block) {
  StudyProgress sp;
  sp.members = K, sp.nodes = N, sp.samples = T;
  sp.block = study_block_members(K);
  sp.blocks_done = first_block;
  sp.final_state.nodes = N;
  sp.msd_sum.assign(std::size_t(T), 0.0);
  sp.order_sum.assign(std::size_t(T), 0.0);
  sp.finite.assign(std::size_t(T), 0);
  return sp;
}

/// The series and statistics of a StudyResult from the sums of sp, over the members it holds.
void finish_result(StudyResult& r, const StudyProgress& sp) {
  const std::size_t T = sp.msd_sum.size();
  r.msd = sp.msd;
  r.failed = sp.failed;
  r.failed_count = std::count(r.failed.begin(), r.failed.end(), std::uint8_t(1));
  r.msd_t.resize(T);
  r.order_t.resize(T);
  r.finite_t = sp.finite;
  for (std::size_t j = 0; j < T; ++j) {
    const double n = double(sp.finite[j]);
    r.msd_t[j] = n > 0 ? sp.msd_sum[j] / n : kNaN;
    r.order_t[j] = n > 0 ? sp.order_sum[j] / n : kNaN;
  }
  r.final_state = sp.final_state;
  ensemble_mean(r.msd, r.msd_mean, r.msd_sem, r.valid);
  r.seconds = sp.seconds;
}

/// Integrates blocks [sp.blocks_done, b_end) of the study, each restricted to members [m0, m1).
/// A block the range cuts is integrated in part, without snapshots or saves.
/// With `contrib`, appends the series contributions to it (StudyResult::block_*): a whole
/// block's row, or one row per group of a cut block.
void run_blocks(Ensemble& e, const Topologies& t, const State& init, const StudyOptions& o,
                StudyProgress& sp, const StudyCheckpointing& cp, Progress* progress, int b_end,
                int m0, int m1, StudyResult* contrib, int base);

/// Appends row `src`, T values of sums and T counts, to the contribution rows of r.
void append_row(StudyResult& r, const double* msd, const double* order, const std::int64_t* n,
                std::size_t T) {
  r.block_msd_sum.insert(r.block_msd_sum.end(), msd, msd + T);
  r.block_order_sum.insert(r.block_order_sum.end(), order, order + T);
  r.block_finite.insert(r.block_finite.end(), n, n + T);
}

}  // namespace

StudyResult run_study_blocks(Ensemble& e, const Topologies& t, const State& init,
                             const StudyOptions& o, StudyProgress& sp, const StudyCheckpointing& cp,
                             Progress* progress) {
  validate(o);
  progress_check(progress);
  check_study_inputs(t, init);
  const int K = t.members, N = t.nodes;
  const std::int64_t T = o.steps / o.every;
  if (sp.block == 0)  // a new study
    sp = fresh_progress(K, N, T, 0);
  else
    check_progress(sp, K, N, T, o);
  const double before = sp.seconds;
  run_blocks(e, t, init, o, sp, cp, progress, sp.blocks(), 0, K, nullptr, 0);
  StudyResult r;
  finish_result(r, sp);
  r.seconds_before = before;
  r.peak_device_bytes = e.peak_device_bytes();
  return r;
}

StudyResult run_study_range(Ensemble& e, const Topologies& t, const State& init,
                            const StudyOptions& o, const IndexRange& members, Progress* progress,
                            int total) {
  validate(o);
  progress_check(progress);
  const int K = total > 0 ? total : t.members, N = t.nodes;
  const std::int64_t T = o.steps / o.every;
  const IndexRange m = resolve(members, std::size_t(K), "study members");
  // t and init hold all K members, or with total > 0 only the range's, member m.begin first.
  const int base = total > 0 ? int(m.begin) : 0;
  if (total > 0 && std::size_t(t.members) != m.end - m.begin)
    throw Error("study members: " + std::to_string(t.members) + " networks given for the range [" +
                std::to_string(m.begin) + ", " + std::to_string(m.end) + ")");
  if (t.members > 0 || total == 0) check_study_inputs(t, init);
  study_units(K, m);  // throws unless the range is on group boundaries
  const std::size_t block = std::size_t(study_block_members(K));
  StudyProgress sp = fresh_progress(K, N, T, int(m.begin / block));
  const int b_end = int((m.end + block - 1) / block);
  StudyResult r;
  r.member_begin = m.begin;
  r.members_total = K;
  r.block = int(block);
  r.group = study_group_members(K);
  run_blocks(e, t, init, o, sp, StudyCheckpointing{0, {}}, progress, b_end, int(m.begin),
             int(m.end), &r, base);
  finish_result(r, sp);
  r.peak_device_bytes = e.peak_device_bytes();
  return r;
}

StudyResult run_study_block(Ensemble& e, const Topologies& t, const State& init,
                            const StudyOptions& o, int total, int b, StudyProgress& sp,
                            const StudyCheckpointing& cp, Progress* progress) {
  validate(o);
  progress_check(progress);
  const int K = total, N = t.nodes;
  const std::int64_t T = o.steps / o.every;
  const int block = K > 0 ? study_block_members(K) : 1;
  const int blocks = K > 0 ? (K + block - 1) / block : 0;
  if (b < 0 || b >= blocks)
    throw Error("study block " + std::to_string(b) + " is not one of the " +
                std::to_string(blocks) + " blocks of the study of " + std::to_string(K) +
                " members");
  const int k0 = b * block, k1 = std::min(K, k0 + block), kb = k1 - k0;
  if (t.members != kb)
    throw Error("study block " + std::to_string(b) + ": " + std::to_string(t.members) +
                " networks given for its " + std::to_string(kb) + " members");
  check_study_inputs(t, init);
  if (sp.partial && sp.blocks_done == b && sp.block == block) {
    // The block under way, from a checkpoint: its sizes must fit the block.
    const EnsembleSnapshot& s = sp.snapshot;
    const std::size_t ns = s.step >= 0 ? std::size_t(s.step / o.every) : 0;
    const std::size_t ng = ns * std::size_t(group_count(kb, study_group_members(K)));
    if (sp.members != K || sp.nodes != N || sp.samples != T || sp.members_done() != 0 ||
        s.step < 0 || s.step > o.steps || s.state.members != kb || s.state.nodes != N ||
        s.total.size() != std::size_t(kb) || s.window.size() != std::size_t(kb) ||
        s.failed.size() != std::size_t(kb) || sp.series.msd.size() != ns ||
        sp.series.order.size() != ns || sp.series.finite.size() != ns ||
        sp.series.group_msd.size() != ng || sp.series.group_order.size() != ng ||
        sp.series.group_finite.size() != ng || sp.msd_sum.size() != std::size_t(T) ||
        sp.order_sum.size() != std::size_t(T) || sp.finite.size() != std::size_t(T))
      throw Error("study checkpoint does not match the study: block " + std::to_string(b) +
                  " under way has the wrong sizes");
  } else {
    sp = fresh_progress(K, N, T, b);
  }
  const double before = sp.seconds;
  StudyResult r;
  r.member_begin = std::size_t(k0);
  r.members_total = K;
  r.block = block;
  r.group = study_group_members(K);
  run_blocks(e, t, init, o, sp, cp, progress, b + 1, k0, k1, &r, k0);
  finish_result(r, sp);
  r.seconds_before = before;
  r.peak_device_bytes = e.peak_device_bytes();
  return r;
}

std::vector<IndexRange> split_study_members(int members, std::size_t parts) {
  if (members < 1) throw Error("study members: K must be at least 1");
  if (parts == 0) throw Error("study members: the number of ranges must be at least 1");
  const std::size_t K = std::size_t(members), block = std::size_t(study_block_members(members));
  const std::size_t blocks = (K + block - 1) / block;
  std::vector<IndexRange> out;
  if (parts <= blocks) {  // whole blocks
    out = split_evenly(blocks, parts);
    for (IndexRange& r : out) r = {std::min(K, r.begin * block), std::min(K, r.end * block)};
    return out;
  }
  return split_at_cuts(study_cuts(members), parts);  // group boundaries
}

StudyResult slice_study_block(const StudyResult& whole, const IndexRange& range) {
  const int K = whole.members_total, B = whole.block;
  const std::size_t km = whole.msd.size(), T = whole.msd_t.size();
  const std::size_t N = std::size_t(std::max(whole.final_state.nodes, 0));
  const std::size_t k0 = whole.member_begin, k1 = k0 + km;
  const std::vector<StudyUnit> units = study_units(K, {k0, k1});
  if (units.size() != 1 || !units[0].whole || whole.block_finite.size() != T ||
      whole.block_msd_sum.size() != T || whole.block_order_sum.size() != T)
    throw Error("slice_study_block: the result is not one whole block's");
  if (range.begin < k0 || range.end > k1 || range.begin > range.end)
    throw Error("slice_study_block: range [" + std::to_string(range.begin) + ", " +
                std::to_string(range.end) + ") is not inside block " +
                std::to_string(units[0].block) + " of " + std::to_string(B) + " members");
  const std::vector<StudyUnit> parts = study_units(K, range);  // throws off group boundaries
  if (parts.size() == 1 && parts[0].whole) return whole;
  StudyResult r;
  r.member_begin = range.begin;
  r.members_total = K;
  r.block = B;
  r.group = whole.group;
  const std::size_t a = range.begin - k0, n = range.end - range.begin;
  r.msd.assign(whole.msd.begin() + std::ptrdiff_t(a), whole.msd.begin() + std::ptrdiff_t(a + n));
  r.failed.assign(whole.failed.begin() + std::ptrdiff_t(a),
                  whole.failed.begin() + std::ptrdiff_t(a + n));
  r.final_state.nodes = int(N);
  r.final_state.members = int(n);
  r.final_state.x.assign(whole.final_state.x.begin() + std::ptrdiff_t(a * N),
                         whole.final_state.x.begin() + std::ptrdiff_t((a + n) * N));
  r.final_state.y.assign(whole.final_state.y.begin() + std::ptrdiff_t(a * N),
                         whole.final_state.y.begin() + std::ptrdiff_t((a + n) * N));
  const std::vector<double> zeros(T, 0.0);
  const std::vector<std::int64_t> none(T, 0);
  for (const StudyUnit& u : parts) {
    if (std::size_t(u.begin) == k0)
      append_row(r, whole.block_msd_sum.data(), whole.block_order_sum.data(),
                 whole.block_finite.data(), T);
    else
      append_row(r, zeros.data(), zeros.data(), none.data(), T);
  }
  // The range's own series and statistics: its rows' fold, the block's when it holds group 0.
  StudyProgress sp = fresh_progress(K, int(N), std::int64_t(T), units[0].block);
  sp.msd = r.msd;
  sp.failed = r.failed;
  sp.final_state = r.final_state;
  if (range.begin == k0 && n > 0)
    for (std::size_t j = 0; j < T; ++j)
      if (whole.block_finite[j] > 0) {
        sp.msd_sum[j] = whole.block_msd_sum[j];
        sp.order_sum[j] = whole.block_order_sum[j];
        sp.finite[j] = whole.block_finite[j];
      }
  sp.seconds = range.begin == k0 ? whole.seconds : 0;
  finish_result(r, sp);
  r.seconds_before = range.begin == k0 ? whole.seconds_before : 0;
  r.peak_device_bytes = whole.peak_device_bytes;
  return r;
}

StudyResult merge_study_ranges(const std::vector<StudyResult>& parts) {
  if (parts.empty()) throw Error("merge_study_ranges: no parts");
  const StudyResult& p0 = parts.front();
  const std::size_t T = p0.msd_t.size();
  const int N = p0.final_state.nodes, K = p0.members_total;
  StudyProgress sp;
  sp.final_state.nodes = N;
  sp.msd_sum.assign(T, 0.0);
  sp.order_sum.assign(T, 0.0);
  sp.finite.assign(T, 0);
  std::size_t next = p0.member_begin;
  StudyResult r;
  r.member_begin = p0.member_begin;
  r.members_total = K;
  r.block = p0.block;
  r.group = p0.group;
  // A block cut between parts: its groups' rows so far, folded in group order.
  struct Pending {
    int block = -1;
    int begin = 0, end = 0;
    std::vector<double> msd, order;
    std::vector<std::int64_t> n;
    std::vector<double> rows_msd, rows_order;  // the groups' rows as given
    std::vector<std::int64_t> rows_n;
  } pend;
  const auto add = [&](const double* cm, const double* co, const std::int64_t* cn) {
    for (std::size_t j = 0; j < T; ++j) {
      if (cn[j] <= 0) continue;
      sp.msd_sum[j] += cm[j];
      sp.order_sum[j] += co[j];
      sp.finite[j] += cn[j];
    }
  };
  // The pending block joins the sums; its row, whole in the merge, or its groups' rows go out.
  const auto flush = [&] {
    if (pend.block < 0) return;
    add(pend.msd.data(), pend.order.data(), pend.n.data());
    const int k0 = pend.block * p0.block, k1 = std::min(K, k0 + p0.block);
    if (pend.begin == k0 && pend.end == k1) {
      append_row(r, pend.msd.data(), pend.order.data(), pend.n.data(), T);
    } else {
      r.block_msd_sum.insert(r.block_msd_sum.end(), pend.rows_msd.begin(), pend.rows_msd.end());
      r.block_order_sum.insert(r.block_order_sum.end(), pend.rows_order.begin(),
                               pend.rows_order.end());
      r.block_finite.insert(r.block_finite.end(), pend.rows_n.begin(), pend.rows_n.end());
    }
    pend = Pending{};
  };
  for (std::size_t k = 0; k < parts.size(); ++k) {
    const StudyResult& p = parts[k];
    const std::size_t km = p.msd.size();
    std::vector<StudyUnit> units;
    bool fits = p.member_begin == next && p.block == p0.block && p.block >= 1 &&
                p.group == p0.group && p.members_total == K && K >= 1 && p.msd_t.size() == T &&
                p.final_state.nodes == N && p.failed.size() == km &&
                std::size_t(p.final_state.members) == km;
    if (fits) {
      try {
        units = study_units(K, {p.member_begin, p.member_begin + km});
      } catch (const Error&) {
        fits = false;
      }
    }
    const std::size_t nu = units.size();
    if (!fits || p.block_msd_sum.size() != nu * T || p.block_order_sum.size() != nu * T ||
        p.block_finite.size() != nu * T)
      throw Error("merge_study_ranges: part " + std::to_string(k) + " (members from " +
                  std::to_string(p.member_begin) + ", " + std::to_string(km) +
                  " of them) does not follow the previous parts");
    next += km;
    sp.msd.insert(sp.msd.end(), p.msd.begin(), p.msd.end());
    sp.failed.insert(sp.failed.end(), p.failed.begin(), p.failed.end());
    sp.final_state.x.insert(sp.final_state.x.end(), p.final_state.x.begin(), p.final_state.x.end());
    sp.final_state.y.insert(sp.final_state.y.end(), p.final_state.y.begin(), p.final_state.y.end());
    sp.final_state.members += int(km);
    // Unit by unit: whole blocks in block order, a cut block's groups folded in group order from 0.
    // These are the additions run_study_blocks makes.
    for (std::size_t u = 0; u < nu; ++u) {
      const double* cm = p.block_msd_sum.data() + u * T;
      const double* co = p.block_order_sum.data() + u * T;
      const std::int64_t* cn = p.block_finite.data() + u * T;
      if (units[u].whole) {
        flush();
        add(cm, co, cn);
        append_row(r, cm, co, cn, T);
        continue;
      }
      if (pend.block != units[u].block) {
        flush();
        pend.block = units[u].block;
        pend.begin = units[u].begin;
        pend.msd.assign(T, 0.0);
        pend.order.assign(T, 0.0);
        pend.n.assign(T, 0);
      }
      pend.end = units[u].end;
      for (std::size_t j = 0; j < T; ++j)
        pend.msd[j] += cm[j], pend.order[j] += co[j], pend.n[j] += cn[j];
      pend.rows_msd.insert(pend.rows_msd.end(), cm, cm + T);
      pend.rows_order.insert(pend.rows_order.end(), co, co + T);
      pend.rows_n.insert(pend.rows_n.end(), cn, cn + T);
    }
    sp.seconds += p.seconds;
    r.seconds_before += p.seconds_before;
    r.peak_device_bytes = std::max(r.peak_device_bytes, p.peak_device_bytes);
  }
  flush();
  finish_result(r, sp);
  return r;
}

namespace {

void run_blocks(Ensemble& e, const Topologies& t, const State& init, const StudyOptions& o,
                StudyProgress& sp, const StudyCheckpointing& cp, Progress* progress, int b_end,
                int m0, int m1, StudyResult* contrib, int base) {
  const int K = sp.members, N = t.nodes;
  const std::int64_t T = o.steps / o.every;
  const int g = study_group_members(K);
  Recording rec;
  rec.transient = o.transient;
  rec.every = o.every;
  rec.group = g;
  const bool snapshots = e.can_snapshot();
  const double total_work = double(K) * double(o.steps);
  const double range_work = std::max(1.0, double(m1 - m0) * double(o.steps));
  ProgressRelay relay(progress);

  auto last_save = Clock::now();
  double work_since_save = 0;
  auto save = [&] {
    if (!cp.save) return;
    cp.save(sp);
    last_save = Clock::now();
    work_since_save = 0;
  };
  // Marks the block under way as partial, with a snapshot of the ensemble at a chunk boundary.
  auto keep_partial = [&](const Series& series) {
    sp.partial = true;
    sp.snapshot = e.snapshot();
    sp.series = series;
    sp.series.watch_msd.clear(), sp.series.watch_order.clear();
  };

  for (int b = sp.blocks_done; b < b_end; ++b) {
    if (progress && progress->cancel && !sp.partial) {  // between blocks
      save();
      throw Cancelled();
    }
    const int k0 = b * sp.block, k1 = std::min(K, k0 + sp.block), kb = k1 - k0;
    // The block's members in the range: all of it, or a part at group boundaries. A part has no
    // snapshots or saves; it is redone after an interruption.
    const int a = std::max(m0, k0), z = std::min(m1, k1), ka = z - a;
    if (ka <= 0) continue;  // (an empty range inside a block)
    const bool whole = a == k0 && z == k1;
    const bool saving = whole && cp.save != nullptr;
    const Topologies tb = slice(t, a - base, z - base);
    rec.chunk_members = kb;  // the block's chunks, for a part too
    Series series;
    if (sp.partial && whole) {
      e.restore(tb, sp.snapshot, o.precision);
      series = sp.series;
      series.step.resize(series.msd.size());
      for (std::size_t j = 0; j < series.step.size(); ++j)
        series.step[j] = std::int64_t(j + 1) * o.every;
    } else {
      e.load(tb, slice(init, a - base, z - base), o.precision);
    }
    sp.partial = false;
    sp.snapshot = EnsembleSnapshot{};
    sp.series.clear();
    // The segment length depends only on the block's size and the study.
    std::int64_t segment = o.steps;
    if (snapshots) {
      const double by_work = kSegmentOscSteps / (double(kb) * N);
      const double by_share = kSaveFraction * total_work / double(kb);
      segment = std::clamp<std::int64_t>(std::int64_t(std::min(by_work, by_share)), 1, o.steps);
    }
    double last_segment_s = 0;
    while (e.steps_done() < o.steps) {
      if (progress && progress->cancel) {  // between segments: no need to wait for advance()
        if (snapshots && whole) keep_partial(series);
        save();
        throw Cancelled();
      }
      const std::int64_t s = e.steps_done();
      const std::int64_t end = std::min(o.steps, (s / segment + 1) * segment);
      const double before = double(a - m0) * double(o.steps) + double(ka) * double(s);
      relay.range(before / range_work, (before + double(ka) * double(end - s)) / range_work);
      const auto t0 = Clock::now();
      try {
        e.advance(o.model, o.dt, end - s, rec, series, relay.inner());
      } catch (const Cancelled&) {
        sp.seconds += seconds_since(t0);
        if (snapshots && whole) keep_partial(series);
        save();
        throw;
      }
      last_segment_s = seconds_since(t0);
      sp.seconds += last_segment_s;
      work_since_save += double(ka) * double(end - s);
      if (end >= o.steps || !saving) continue;
      const std::int64_t next = std::min(o.steps, end + segment) - end;
      const bool time_due =
          cp.interval_s > 0 && seconds_since(last_save) >= cp.interval_s - last_segment_s;
      const bool work_due =
          work_since_save + double(kb) * double(next) > kSaveFraction * total_work * (1 + 1e-12);
      if (time_due || work_due) {
        keep_partial(series);
        save();
        sp.partial = false;
      }
    }
    const std::size_t G = std::size_t(group_count(ka, g));
    if (series.msd.size() != std::size_t(T) || series.group_finite.size() != std::size_t(T) * G ||
        series.group_msd.size() != std::size_t(T) * G ||
        series.group_order.size() != std::size_t(T) * G)
      throw Error("study: block " + std::to_string(b) + " recorded " +
                  std::to_string(series.msd.size()) + " samples, expected " + std::to_string(T));
    // The block or its part is finished: its members' results and series join the sums.
    const MemberStats ms = e.member_stats(o.transient);
    const State st = e.state();
    sp.msd.insert(sp.msd.end(), ms.msd_mean.begin(), ms.msd_mean.end());
    sp.failed.insert(sp.failed.end(), ms.failed.begin(), ms.failed.end());
    sp.final_state.x.insert(sp.final_state.x.end(), st.x.begin(), st.x.end());
    sp.final_state.y.insert(sp.final_state.y.end(), st.y.begin(), st.y.end());
    sp.final_state.members += ka;
    // The block's contribution: the fold of its groups' sums in group order from 0. For a part,
    // merge_study_ranges completes it with the other parts' groups.
    std::vector<double> cm(std::size_t(T), 0.0), co(std::size_t(T), 0.0);
    std::vector<std::int64_t> cn(std::size_t(T), 0);
    for (std::size_t j = 0; j < std::size_t(T); ++j)
      for (std::size_t q = 0; q < G; ++q) {
        cm[j] += series.group_msd[j * G + q];
        co[j] += series.group_order[j * G + q];
        cn[j] += series.group_finite[j * G + q];
      }
    for (std::size_t j = 0; j < std::size_t(T); ++j) {
      if (cn[j] <= 0) continue;
      sp.msd_sum[j] += cm[j];
      sp.order_sum[j] += co[j];
      sp.finite[j] += cn[j];
    }
    if (contrib && whole) {
      for (std::size_t j = 0; j < std::size_t(T); ++j)
        if (cn[j] <= 0) cm[j] = 0, co[j] = 0;
      append_row(*contrib, cm.data(), co.data(), cn.data(), std::size_t(T));
    } else if (contrib) {
      // One row per group, transposed from the series' (sample, group) layout.
      const std::size_t len = std::size_t(T);
      std::vector<double> rm(len), ro(len);
      std::vector<std::int64_t> rn(len);
      for (std::size_t q = 0; q < G; ++q) {
        for (std::size_t j = 0; j < std::size_t(T); ++j) {
          rm[j] = series.group_msd[j * G + q];
          ro[j] = series.group_order[j * G + q];
          rn[j] = series.group_finite[j * G + q];
        }
        append_row(*contrib, rm.data(), ro.data(), rn.data(), std::size_t(T));
      }
    }
    sp.blocks_done = b + 1;
    progress_set(progress, double(z - m0) / double(std::max(1, m1 - m0)));
    if (whole) save();
  }
}

}  // namespace

}  // namespace simscope::oscillators
