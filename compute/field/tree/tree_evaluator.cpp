// The CPU tree evaluator (field.hpp, Method::Tree on Backend::Cpu). Keeps the source tree of
// the last source set, keyed by Sources::generation and size; generation 0 rebuilds every
// time. Evaluates through tree_evaluate() and measures the error at sampled targets.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <optional>
#include <utility>

#include "core/error.hpp"
#include "field/field_internal.hpp"
#include "field/tree/tree_internal.hpp"

namespace simscope::field::tree {

namespace {

using Clock = std::chrono::steady_clock;

class CpuBackend final : public TreeBackend {
 public:
  Backend backend() const override { return Backend::Cpu; }
  void evaluate(const SourceTree& s, const Targets& t, const IndexRange& r, const Options& o,
                const TreeRule& rule, std::vector<double>& acc, TreeStats& stats,
                std::uint64_t& skipped, Progress* progress) override {
    tree_evaluate(s, t, r, o, rule, acc, stats, skipped, progress, &workspace_);
  }
  void direct(const SourceTree& s, const double* x, const double* y, const double* z, std::size_t n,
              double eps2, double* acc) override {
    direct_fp64(s, x, y, z, n, eps2, acc);
  }

 private:
  TreeWorkspace workspace_;
};

class TreeEvaluator final : public Evaluator {
 public:
  using Evaluator::evaluate;
  explicit TreeEvaluator(std::unique_ptr<TreeBackend> b) : backend_(std::move(b)) {}
  Backend backend() const override { return backend_->backend(); }
  double peak_device_bytes() const override { return backend_->peak_device_bytes(); }
  Method method() const override { return Method::Tree; }
  void release_cache() override {
    pending_.reset();
    tree_.reset();
    backend_->tree_changed();
  }
  void complete_cache(Progress* progress) override {
    if (tree_) tree_->ensure_all_rows(progress);
  }

  void evaluate(const Sources& s, const Targets& t, const IndexRange& range, const Options& o,
                Result& out, Progress* progress) override {
    pending_.reset();  // a deferred measurement of an earlier evaluation is void now
    const IndexRange r = detail::checked_range(o, t, range);
    TreeRule rule = tree_rule(o.tolerance);
    if (o.tree_order != 0) {
      if (o.tree_order < 1 || o.tree_order > kMaxOrder)
        throw Error("field tree: tree_order must be in [1, 16], got " +
                    std::to_string(o.tree_order));
      rule.order = o.tree_order;
    }
    if (o.tree_theta != 0) {
      if (!(o.tree_theta > 0 && o.tree_theta < 1))
        throw Error("field tree: tree_theta must be in (0, 1), got " +
                    std::to_string(o.tree_theta));
      rule.theta = o.tree_theta;
    }
    check_error_targets(o, r);
    for (std::size_t i = 0; i < t.size(); ++i)
      if (!std::isfinite(t.x[i]) || !std::isfinite(t.y[i]) || !std::isfinite(t.z[i]))
        throw Error("field tree: target " + std::to_string(i) + " has a non-finite coordinate");
    const auto t0 = Clock::now();
    progress_set(progress, 0);
    const bool reuse =
        tree_ && s.generation != 0 && tree_->generation == s.generation &&
        tree_->input_size == s.size();
    double build_seconds = 0;
    if (!reuse) {
      tree_.reset();  // free the old tree before building the new one
      tree_ = std::make_unique<SourceTree>(build_source_tree(s));
      backend_->tree_changed();
      build_seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    }
    // The ladder (tree_rule.cpp: refine()) starts where the last evaluation of these sources
    // and tolerance ended. A measured error above the tolerance redoes the evaluation one rung
    // tighter; one far below it lets the next evaluation start a rung looser.
    const bool fixed = o.tree_order != 0 || o.tree_theta != 0;
    const LadderKey key{s.generation, s.size(), o.tolerance, o.eps};
    // A restart evaluates rung 0 first, as a new evaluator does. Where the last restarted
    // evaluation had these sources, settings and targets, its ladder is known: the rungs below
    // the one it settled on failed, so it starts there, with the same outputs and refinements
    // (and the multipoles of that rung's order, which it holds, are not made again).
    const Replay replay{key, targets_hash(t, r), r.begin, r.end, o.precision, o.k,
                        o.error_samples, o.error_seed};
    int replayed = 0;
    if (fixed || !(key == key_) || s.generation == 0 || o.restart_ladder)
      rung_ = 0, failed_ = kMinRung - 1;
    if (!fixed && s.generation != 0 && o.restart_ladder && !o.defer_error && replay_known_ &&
        last_replay_ == replay && reuse)
      rung_ = settled_.rung, replayed = settled_.redone, failed_ = rung_ - 1;
    key_ = key;
    Run run;
    run.t = &t, run.r = r, run.o = o, run.rule = rule, run.fixed = fixed;
    run.build_seconds = build_seconds, run.t0 = t0, run.kept = reuse;
    run.redone = replayed;
    const int start = rung_;
    evaluate_rung(run, progress);
    if (o.defer_error) {
      // The frame: outputs at the ladder's current rung, unmeasured. measure_deferred()
      // measures them later and climbs the ladder from there, as below.
      run.stats.error_deferred = true;
      write_result(run, {}, out, progress);
      pending_ = std::move(run);
      pending_->owned = t;  // a copy: the caller's targets need not outlive this call
      pending_->t = &pending_->owned;
      return;
    }
    measure_and_climb(run, progress);
    if (!fixed && o.restart_ladder && s.generation != 0) {
      replay_known_ = true, last_replay_ = replay;
      settled_ = Settled{start + run.redone - replayed, run.redone};
    }
    write_result(run, measured_target_errors(run), out, progress);
  }

  bool measure_deferred(Result& out, Progress* progress) override {
    if (!pending_) return false;
    Run run = std::move(*pending_);
    pending_.reset();
    run.t = &run.owned;
    const auto t0 = Clock::now();
    run.stats.error_deferred = false;
    const int redone = measure_and_climb(run, progress);
    std::vector<float> errors = measured_target_errors(run);
    const double frame = out.seconds;
    if (redone > 0) {
      write_result(run, std::move(errors), out, progress);
    } else {  // the outputs stand: their statistics and the error view only
      out.tree = run.stats;
      out.target_errors = std::move(errors);
    }
    out.seconds = frame + std::chrono::duration<double>(Clock::now() - t0).count();
    return redone > 0;
  }

 private:
  /// One evaluation's state between the ladder's steps, and for a deferred error between
  /// evaluate() and measure_deferred().
  struct Run {
    const Targets* t = nullptr;  ///< the caller's targets, or `owned`
    Targets owned;
    IndexRange r;
    Options o;
    TreeRule rule;
    bool fixed = false;
    double build_seconds = 0;
    bool kept = false;  ///< the source tree of an earlier evaluation served
    std::uint64_t skipped = 0;
    TreeStats stats;
    int redone = 0;
    Clock::time_point t0;
  };

  /// Evaluates into acc_ at the ladder's current rung, or at the fixed rule.
  void evaluate_rung(Run& run, Progress* progress) {
    const TreeRule used = run.fixed ? run.rule : refine(run.rule, rung_);
    run.stats = TreeStats{};
    run.stats.tree_kept = run.kept;
    run.stats.order = used.order;
    run.stats.theta = used.theta;
    const bool fp64 = run.o.precision == Precision::Fp64;
    if (!holds_moments(*tree_, used.order, fp64)) {
      const auto tm = Clock::now();
      compute_moments(*tree_, used.order, fp64);
      backend_->moments_changed();
      run.build_seconds += std::chrono::duration<double>(Clock::now() - tm).count();
    }
    run.stats.tree_bytes = tree_->bytes();
    progress_check(progress);
    run.skipped = 0;
    backend_->evaluate(*tree_, *run.t, run.r, run.o, used, acc_, run.stats, run.skipped, progress);
    // Pairs of coincident sources merged into one (build_source_tree) at a target: skipped too.
    if (run.o.eps == 0) run.skipped += tree_->merged_coincidences(*run.t, run.r);
  }

  /// Measures the error of acc_ at the sample. Above the tolerance, evaluates one rung tighter
  /// and measures again, up to kMaxRung and kMaxRedo. Where the error is far below, lets the
  /// next evaluation start a rung looser. Returns the number of evaluations redone.
  int measure_and_climb(Run& run, Progress* progress) {
    const int before = run.redone;
    for (;;) {
      const SourceTree& st = *tree_;
      const double eps2 = run.o.eps * run.o.eps;
      measure_error(
          st.size, *run.t, run.r, run.o, acc_,
          [&](const double* x, const double* y, const double* z, std::size_t n, double* a) {
            backend_->direct(st, x, y, z, n, eps2, a);
          },
          run.stats);
      const double measured = std::max(run.stats.rms_rel_error, run.stats.rms_rel_error_potential);
      if (run.fixed || run.stats.error_samples == 0 || !(measured > run.o.tolerance) ||
          rung_ >= kMaxRung || run.redone >= kMaxRedo)
        break;
      failed_ = std::max(failed_, rung_);
      ++rung_, ++run.redone;
      evaluate_rung(run, progress);
    }
    // Looser next time only where the error is 20x below the tolerance (a rung changes it by
    // about 4-6x) and that rung never failed for these sources. This prevents back and forth.
    if (!run.fixed && run.redone == 0 && rung_ - 1 > failed_ && rung_ > kMinRung &&
        std::max(run.stats.rms_rel_error, run.stats.rms_rel_error_potential) <
            run.o.tolerance / 20)
      --rung_;
    return run.redone - before;
  }

  /// Measures the error view's targets once, at the rung the ladder settled on.
  std::vector<float> measured_target_errors(Run& run) {
    return target_errors(
        *run.t, run.r, run.o, acc_,
        [&](const double* x, const double* y, const double* z, std::size_t n, double* a) {
          backend_->direct(*tree_, x, y, z, n, run.o.eps * run.o.eps, a);
        },
        run.stats);
  }

  /// Writes the outputs of acc_ with the run's statistics into `out`.
  void write_result(Run& run, std::vector<float> errors, Result& out, Progress* progress) {
    run.stats.build_seconds = run.build_seconds;
    run.stats.refinements = run.redone;
    const std::size_t T = run.r.end - run.r.begin;
    detail::resize_outputs(out, T);
    if (run.o.keep_sums64) out.sums64.assign(4 * T, 0.0);
    for (std::size_t i = 0; i < T; ++i) detail::finalize(&acc_[i * 4], run.o.k, out, i);
    out.target_begin = run.r.begin;
    out.skipped_coincidences = run.skipped;
    out.method = Method::Tree;
    out.tree = run.stats;
    out.target_errors = std::move(errors);
    progress_set(progress, 1);
    out.seconds = std::chrono::duration<double>(Clock::now() - run.t0).count();
  }

  struct LadderKey {
    std::uint64_t generation = 0;
    std::size_t size = 0;
    double tolerance = 0, eps = -1;
    bool operator==(const LadderKey& o) const {
      return generation == o.generation && size == o.size && tolerance == o.tolerance &&
             eps == o.eps;
    }
  };
  /// What decides a restarted ladder's course: the sources and settings (LadderKey), the
  /// targets of the range (their coordinates' hash) and the measured error's settings.
  struct Replay {
    LadderKey key;
    std::uint64_t targets = 0;
    std::size_t begin = 0, end = 0;
    Precision precision = Precision::Fp32;
    double k = 0;
    std::int64_t samples = 0;
    std::uint64_t seed = 0;
    bool operator==(const Replay& o) const {
      return key == o.key && targets == o.targets && begin == o.begin && end == o.end &&
             precision == o.precision && k == o.k && samples == o.samples && seed == o.seed;
    }
  };
  /// Where a restarted ladder settled: its rung and the evaluations it redid to get there.
  struct Settled {
    int rung = 0, redone = 0;
  };
  /// FNV-1a over the bits of the targets' coordinates in [r.begin, r.end).
  static std::uint64_t targets_hash(const Targets& t, const IndexRange& r) {
    std::uint64_t h = 1469598103934665603ull;
    for (const std::vector<double>* v : {&t.x, &t.y, &t.z})
      for (std::size_t i = r.begin; i < r.end; ++i) {
        std::uint64_t b;
        std::memcpy(&b, &(*v)[i], 8);
        h = (h ^ b) * 1099511628211ull;
      }
    return h;
  }
  bool replay_known_ = false;  ///< last_replay_ and settled_ hold a restarted evaluation's
  Replay last_replay_;
  Settled settled_;
  static constexpr int kMaxRedo = 8;
  std::unique_ptr<TreeBackend> backend_;
  std::unique_ptr<SourceTree> tree_;
  std::vector<double> acc_;  // kept: its pages stay mapped between evaluations
  std::optional<Run> pending_;  ///< an evaluation with Options::defer_error, not yet measured
  LadderKey key_;
  int rung_ = 0;
  int failed_ = kMinRung - 1;  ///< the tightest rung whose error exceeded the tolerance
};

}  // namespace

std::unique_ptr<Evaluator> make_tree_evaluator(std::unique_ptr<TreeBackend> backend) {
  return std::make_unique<TreeEvaluator>(std::move(backend));
}

std::unique_ptr<Evaluator> make_cpu_tree_evaluator() {
  return make_tree_evaluator(std::make_unique<CpuBackend>());
}

#ifdef SIMSCOPE_HAVE_CUDA
std::unique_ptr<Evaluator> make_cuda_tree_evaluator() {
  return make_tree_evaluator(make_cuda_tree_backend());
}
#else
std::unique_ptr<Evaluator> make_cuda_tree_evaluator() {
  throw Error("field: the CUDA back end is not available (" + cuda_status().reason + ")");
}
#endif

}  // namespace simscope::field::tree
