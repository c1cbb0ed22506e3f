// Checkpointed studies (oscillators.hpp, run_study_blocks): the members integrated in fixed blocks,
// each block in fixed stretches ("segments") of steps, so that where a study is saved, cancelled
// or resumed never changes what is computed.
//
// Why a resumed study equals an uninterrupted one bit for bit:
//  - member k's integration depends on its own graph and state only (the back ends integrate the
//    members independently; its msd time average is summed in windows aligned to the global
//    step), so its msd, failed flag and final state do not depend on the block it is in;
//  - within a block, the CPU back end's chunks of steps are a function of the current step and of
//    the end step of the advance() call only (oscillators_cpu.cpp), and the end steps are the
//    fixed segment ends: a block restored from a snapshot at any chunk boundary and advanced to
//    the same segment end runs the same chunks (which matters for a member that goes non-finite:
//    it is frozen at the end of its chunk);
//  - a block's series are its means over its finite members, reduced in member order inside
//    advance(); finished blocks are merged into the sums in block order, and a checkpoint holds
//    the sums and the partial block's series exactly (fp64).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <limits>
#include <thread>

#include "core/error.hpp"
#include "oscillators/oscillators.hpp"

namespace simscope::oscillators {
namespace {

using Clock = std::chrono::steady_clock;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
/// Blocks are 5 % of the members, at least this many.
constexpr int kBlockFraction = 20;
constexpr int kMinBlock = 64;
/// Oscillator-steps per segment on a back end that can snapshot (a few seconds on a CPU core):
/// the points where a time- or work-based checkpoint may be written.
constexpr double kSegmentOscSteps = 2e8;
/// A checkpoint at least every this fraction of the study's member-steps.
constexpr double kSaveFraction = 0.05;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

/// Members [k0, k1) of t, with their own graphs (or the shared one).
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

/// Gives advance() a Progress of its own: forwards the caller's cancel to it and its fraction,
/// mapped into [a, b], back to the caller's (every 5 ms, from a thread).
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

/// Throws unless sp (resumed) fits the study.
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
    if (sp.series.msd.size() != ns || sp.series.order.size() != ns || sp.series.finite.size() != ns)
      bad("the block under way has " + std::to_string(sp.series.msd.size()) + " samples at step " +
          std::to_string(s.step));
  }
}

}  // namespace

int study_block_members(int members) {
  const int fifth = (members + kBlockFraction - 1) / kBlockFraction;
  return std::max({fifth, std::min(members, kMinBlock), 1});
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

/// Throws unless init fits t (K, N >= 1).
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

/// The series and statistics of a StudyResult from the sums of sp (over the members it holds).
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

/// The blocks [sp.blocks_done, b_end) of the study (members [m0, m1) is the work whose progress
/// is reported); with `contrib`, each finished block's series contributions are appended to it
/// (StudyResult::block_*).
void run_blocks(Ensemble& e, const Topologies& t, const State& init, const StudyOptions& o,
                StudyProgress& sp, const StudyCheckpointing& cp, Progress* progress, int b_end,
                int m0, int m1, StudyResult* contrib, int base);

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
  run_blocks(e, t, init, o, sp, cp, progress, sp.blocks(), 0, K, nullptr, 0);
  StudyResult r;
  finish_result(r, sp);
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
  // t and init: all K members, or (total > 0) the range's only, member m.begin first.
  const int base = total > 0 ? int(m.begin) : 0;
  if (total > 0 && std::size_t(t.members) != m.end - m.begin)
    throw Error("study members: " + std::to_string(t.members) + " networks given for the range [" +
                std::to_string(m.begin) + ", " + std::to_string(m.end) + ")");
  if (t.members > 0 || total == 0) check_study_inputs(t, init);
  const std::size_t block = std::size_t(study_block_members(K));
  auto on_boundary = [&](std::size_t k) { return k % block == 0 || k == std::size_t(K); };
  if (!on_boundary(m.begin) || !on_boundary(m.end))
    throw Error("study members: range [" + std::to_string(m.begin) + ", " + std::to_string(m.end) +
                ") does not start and end on blocks of " + std::to_string(block) +
                " members (or at K = " + std::to_string(K) + ")");
  StudyProgress sp = fresh_progress(K, N, T, int((m.begin + block - 1) / block));
  const int b_end = int((m.end + block - 1) / block);
  StudyResult r;
  r.member_begin = m.begin;
  r.block = int(block);
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
    // The block under way (a checkpoint's): its sizes must fit the block.
    const EnsembleSnapshot& s = sp.snapshot;
    const std::size_t ns = s.step >= 0 ? std::size_t(s.step / o.every) : 0;
    if (sp.members != K || sp.nodes != N || sp.samples != T || sp.members_done() != 0 ||
        s.step < 0 || s.step > o.steps || s.state.members != kb || s.state.nodes != N ||
        s.total.size() != std::size_t(kb) || s.window.size() != std::size_t(kb) ||
        s.failed.size() != std::size_t(kb) || sp.series.msd.size() != ns ||
        sp.series.order.size() != ns || sp.series.finite.size() != ns ||
        sp.msd_sum.size() != std::size_t(T) || sp.order_sum.size() != std::size_t(T) ||
        sp.finite.size() != std::size_t(T))
      throw Error("study checkpoint does not match the study: block " + std::to_string(b) +
                  " under way has the wrong sizes");
  } else {
    sp = fresh_progress(K, N, T, b);
  }
  StudyResult r;
  r.member_begin = std::size_t(k0);
  r.block = block;
  run_blocks(e, t, init, o, sp, cp, progress, b + 1, k0, k1, &r, k0);
  finish_result(r, sp);
  r.peak_device_bytes = e.peak_device_bytes();
  return r;
}

std::vector<IndexRange> split_study_members(int members, std::size_t parts) {
  if (members < 1) throw Error("study members: K must be at least 1");
  const std::size_t K = std::size_t(members), block = std::size_t(study_block_members(members));
  const std::size_t blocks = (K + block - 1) / block;
  std::vector<IndexRange> out = split_evenly(blocks, parts);
  for (IndexRange& r : out) r = {std::min(K, r.begin * block), std::min(K, r.end * block)};
  return out;
}

StudyResult merge_study_ranges(const std::vector<StudyResult>& parts) {
  if (parts.empty()) throw Error("merge_study_ranges: no parts");
  const StudyResult& p0 = parts.front();
  const std::size_t T = p0.msd_t.size();
  const int N = p0.final_state.nodes;
  StudyProgress sp;
  sp.final_state.nodes = N;
  sp.msd_sum.assign(T, 0.0);
  sp.order_sum.assign(T, 0.0);
  sp.finite.assign(T, 0);
  std::size_t next = p0.member_begin;
  StudyResult r;
  r.member_begin = p0.member_begin;
  r.block = p0.block;
  for (std::size_t k = 0; k < parts.size(); ++k) {
    const StudyResult& p = parts[k];
    const std::size_t km = p.msd.size();
    const std::size_t nb = p.block > 0 ? (km + std::size_t(p.block) - 1) / std::size_t(p.block) : 0;
    if (p.member_begin != next || p.block != p0.block || p.block < 1 || p.msd_t.size() != T ||
        p.final_state.nodes != N || p.failed.size() != km ||
        std::size_t(p.final_state.members) != km || p.block_msd_sum.size() != nb * T ||
        p.block_order_sum.size() != nb * T || p.block_finite.size() != nb * T)
      throw Error("merge_study_ranges: part " + std::to_string(k) + " (members from " +
                  std::to_string(p.member_begin) + ", " + std::to_string(km) +
                  " of them) does not follow the previous parts");
    next += km;
    sp.msd.insert(sp.msd.end(), p.msd.begin(), p.msd.end());
    sp.failed.insert(sp.failed.end(), p.failed.begin(), p.failed.end());
    sp.final_state.x.insert(sp.final_state.x.end(), p.final_state.x.begin(), p.final_state.x.end());
    sp.final_state.y.insert(sp.final_state.y.end(), p.final_state.y.begin(), p.final_state.y.end());
    sp.final_state.members += int(km);
    // Block by block, in block order: the additions run_study_blocks makes.
    for (std::size_t b = 0; b < nb; ++b)
      for (std::size_t j = 0; j < T; ++j) {
        const std::int64_t n = p.block_finite[b * T + j];
        if (n <= 0) continue;
        sp.msd_sum[j] += p.block_msd_sum[b * T + j];
        sp.order_sum[j] += p.block_order_sum[b * T + j];
        sp.finite[j] += n;
      }
    r.block_msd_sum.insert(r.block_msd_sum.end(), p.block_msd_sum.begin(), p.block_msd_sum.end());
    r.block_order_sum.insert(r.block_order_sum.end(), p.block_order_sum.begin(),
                             p.block_order_sum.end());
    r.block_finite.insert(r.block_finite.end(), p.block_finite.begin(), p.block_finite.end());
    sp.seconds += p.seconds;
    r.peak_device_bytes = std::max(r.peak_device_bytes, p.peak_device_bytes);
  }
  finish_result(r, sp);
  return r;
}

namespace {

void run_blocks(Ensemble& e, const Topologies& t, const State& init, const StudyOptions& o,
                StudyProgress& sp, const StudyCheckpointing& cp, Progress* progress, int b_end,
                int m0, int m1, StudyResult* contrib, int base) {
  const int K = sp.members, N = t.nodes;
  const std::int64_t T = o.steps / o.every;
  Recording rec;
  rec.transient = o.transient;
  rec.every = o.every;
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
  // Marks the block under way as partial (a snapshot of the ensemble at a chunk boundary).
  auto keep_partial = [&](const Series& series) {
    sp.partial = true;
    sp.snapshot = e.snapshot();
    sp.series.msd = series.msd;
    sp.series.order = series.order;
    sp.series.finite = series.finite;
    sp.series.step = series.step;
  };

  for (int b = sp.blocks_done; b < b_end; ++b) {
    if (progress && progress->cancel && !sp.partial) {  // between blocks
      save();
      throw Cancelled();
    }
    const int k0 = b * sp.block, k1 = std::min(K, k0 + sp.block), kb = k1 - k0;
    const Topologies tb = slice(t, k0 - base, k1 - base);
    Series series;
    if (sp.partial) {
      e.restore(tb, sp.snapshot, o.precision);
      series = sp.series;
      series.step.resize(series.msd.size());
      for (std::size_t j = 0; j < series.step.size(); ++j)
        series.step[j] = std::int64_t(j + 1) * o.every;
    } else {
      e.load(tb, slice(init, k0 - base, k1 - base), o.precision);
    }
    sp.partial = false;
    sp.snapshot = EnsembleSnapshot{};
    sp.series.clear();
    // The segment length: a function of the block's size and the study only.
    std::int64_t segment = o.steps;
    if (snapshots) {
      const double by_work = kSegmentOscSteps / (double(kb) * N);
      const double by_share = kSaveFraction * total_work / double(kb);
      segment = std::clamp<std::int64_t>(std::int64_t(std::min(by_work, by_share)), 1, o.steps);
    }
    double last_segment_s = 0;
    while (e.steps_done() < o.steps) {
      if (progress && progress->cancel) {  // between segments: no need to wait for advance()
        if (snapshots) keep_partial(series);
        save();
        throw Cancelled();
      }
      const std::int64_t s = e.steps_done();
      const std::int64_t end = std::min(o.steps, (s / segment + 1) * segment);
      const double before = double(k0 - m0) * double(o.steps) + double(kb) * double(s);
      relay.range(before / range_work, (before + double(kb) * double(end - s)) / range_work);
      const auto t0 = Clock::now();
      try {
        e.advance(o.model, o.dt, end - s, rec, series, relay.inner());
      } catch (const Cancelled&) {
        sp.seconds += seconds_since(t0);
        if (snapshots) keep_partial(series);
        save();
        throw;
      }
      last_segment_s = seconds_since(t0);
      sp.seconds += last_segment_s;
      work_since_save += double(kb) * double(end - s);
      if (end >= o.steps || !cp.save) continue;
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
    if (series.msd.size() != std::size_t(T) || series.finite.size() != std::size_t(T))
      throw Error("study: block " + std::to_string(b) + " recorded " +
                  std::to_string(series.msd.size()) + " samples, expected " + std::to_string(T));
    // The block is finished: its members' results and its series join the sums, in block order.
    const MemberStats ms = e.member_stats(o.transient);
    const State st = e.state();
    sp.msd.insert(sp.msd.end(), ms.msd_mean.begin(), ms.msd_mean.end());
    sp.failed.insert(sp.failed.end(), ms.failed.begin(), ms.failed.end());
    sp.final_state.x.insert(sp.final_state.x.end(), st.x.begin(), st.x.end());
    sp.final_state.y.insert(sp.final_state.y.end(), st.y.begin(), st.y.end());
    sp.final_state.members += kb;
    const std::size_t c0 = contrib ? contrib->block_finite.size() : 0;
    if (contrib) {
      contrib->block_msd_sum.resize(c0 + std::size_t(T), 0.0);
      contrib->block_order_sum.resize(c0 + std::size_t(T), 0.0);
      contrib->block_finite.resize(c0 + std::size_t(T), 0);
    }
    for (std::size_t j = 0; j < std::size_t(T); ++j) {
      const std::int64_t n = series.finite[j];
      if (n <= 0) continue;
      const double cm = series.msd[j] * double(n), co = series.order[j] * double(n);
      sp.msd_sum[j] += cm;
      sp.order_sum[j] += co;
      sp.finite[j] += n;
      if (contrib) {
        contrib->block_msd_sum[c0 + j] = cm;
        contrib->block_order_sum[c0 + j] = co;
        contrib->block_finite[c0 + j] = n;
      }
    }
    sp.blocks_done = b + 1;
    progress_set(progress, double(k1 - m0) / double(std::max(1, m1 - m0)));
    save();
  }
}

}  // namespace

}  // namespace simscope::oscillators
