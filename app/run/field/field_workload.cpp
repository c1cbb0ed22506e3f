// The `field` workload as the app drives it: sources cached between runs (field_sources.hpp), a
// plane or the six faces of a box evaluated on the chosen back end, exported as
// magnitude/ex/ey/ez/potential; its parameters read once per call into field::Settings, split
// runs joined in field_merge.hpp and results shown through field_view.hpp.
#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "field/field.hpp"
#include "field/field_merge.hpp"
#include "field/field_params.hpp"
#include "field/field_sources.hpp"
#include "field/field_targets.hpp"
#include "field/field_view.hpp"
#include "field/share_sums.hpp"
#include "field_result.hpp"
#include "field_split.hpp"
#include "field_stat_labels.hpp"
#include "field_status.hpp"
#include "field_stats.hpp"
#include "ranges/split_merge.hpp"
#include "workload.hpp"

namespace simscope::app {
namespace {

using Clock = std::chrono::steady_clock;

class FieldWorkload final : public Workload {
 public:
  const Schema& schema() const override { return field::schema(); }

  /// view=error needs the tree method: direct sums measure no error, so the run would end
  /// without its view.
  void check_params(const ParamSet& params) const override {
    const field::Settings s = field::settings_from(params);
    if (s.error_view() && s.scattered())
      throw Error(
          "view=error draws the tree's error on a plane or box, but targets.file gives scattered "
          "points: the measured error is in run.json's stats (rms_rel_error); choose another "
          "view");
    if (s.error_view() && s.method == field::Method::Direct)
      throw Error(
          "view=error shows the tree method's error, but method=direct computes none: "
          "set method=tree (or method=auto, which takes the tree above 1e9 pairs), or "
          "another view");
  }

  RunResult run(const ParamSet& params, Backend backend, const RunRequest& request,
                Progress* progress) override {
    const bool preview = request.preview;
    const auto t0 = Clock::now();
    deferred_.reset();  // whatever runs now replaces the evaluator's deferred state
    const field::Settings s = field::settings_from(params);
    RunResult r;
    r.workload = "field";
    r.params = params;
    r.backend = backend;
    r.preview = preview;

    if (request.range && request.axis == "sources")
      return run_sources(params, s, backend, request, progress);
    const field::Sources& sources = sources_.sources(params, s);
    const field::TargetSet ts = field::target_set(s, preview);
    field::Options options = s.options;
    const field::Targets& targets = ts.targets;

    if (!evaluator_ || evaluator_->backend() != backend || evaluator_->method() != s.method) {
      evaluator_ = field::make_evaluator(s.method, backend);
      // A device evaluator leaves the outputs where they are: copied to the host only when
      // something reads them (OutputData::host(): export, readout, histogram).
      evaluator_->keep_outputs_on_device(true);
    }
    field::Result fr;
    // A work range (split_merge.hpp): the targets [begin, end) of the flattened grid only.
    const IndexRange range =
        request.range ? resolve(*request.range, targets.size(), "field targets") : IndexRange{};
    // The error view's subgrid (the tree method measures its error there; direct ignores it),
    // the range's part of it in a work range. Scattered targets have no error view.
    const field::ErrorSubgrid sub =
        ts.grid ? field::error_subgrid(*ts.grid, s.error_grid, sources.size())
                : field::ErrorSubgrid{};
    for (std::size_t i : sub.targets)
      if (!request.range || (i >= range.begin && i < range.end)) options.error_targets.push_back(i);
    // The window: the measured error after the frame (follow_up), unless the error is the view.
    options.defer_error = request.defer_checks && !request.range && !s.error_view();
    evaluator_->evaluate(sources, targets, request.range ? range : IndexRange::all(), options, fr,
                         progress);

    const auto shape =
        request.range ? std::vector<std::size_t>{range.end - range.begin} : ts.shape;
    if (request.range) r.part = RangePart{"targets", range.begin, range.end, targets.size(), {}};
    fill_field_result(r, fr, *evaluator_, shape, sources.size());
    const std::vector<std::size_t> eshape =
        request.range || !ts.grid ? std::vector<std::size_t>{fr.target_errors.size()}
                                  : error_shape(*ts.grid, sub.m);
    const bool deferred = fr.method == field::Method::Tree && fr.tree.error_deferred;
    if (fr.method == field::Method::Tree && !deferred)
      add_error_outputs(fr, targets, options.error_targets, eshape, r);
    // The window's full result after its preview: the tree it reuses was built by that preview
    // (its own tree_build_seconds is 0), which the status bar says (field_status_text).
    const double built = fr.method == field::Method::Tree ? fr.tree.build_seconds : 0;
    if (request.defer_checks && !preview && built == 0 && preview_build_seconds_ > 0) {
      FieldStats st = FieldStats::from(r);
      st.tree_preview_build_seconds = preview_build_seconds_;
      st.store(r);
    }
    preview_build_seconds_ = preview ? built : 0;
    r.total_seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    if (deferred && !preview)  // a preview's error is never measured (the full grid follows)
      deferred_ = Deferred{r, std::move(fr), targets, options.error_targets, eshape, shape,
                           sources.size()};
    return r;
  }

  /// The deferred measured error of the last full run (RunRequest::defer_checks): the result
  /// with it (the stats rms_rel_error, max_rel_error, error_samples, tolerance_met and the error
  /// view's outputs), or, where the error exceeded the tolerance and the evaluation was redone
  /// tighter, the new result.
  std::optional<RunResult> follow_up(Progress* progress) override {
    if (!deferred_ || !evaluator_) return std::nullopt;
    Deferred d = std::move(*deferred_);
    deferred_.reset();
    const auto t0 = Clock::now();
    const bool redone = evaluator_->measure_deferred(d.fr, progress);
    RunResult r = d.result;
    FieldStats::erase_pending(r);
    if (redone) {
      r.outputs.clear();
      r.warnings.clear();
      fill_field_result(r, d.fr, *evaluator_, d.shape, d.sources);
    } else {
      // Its warning (the tolerance not met) first, as fill_field_result orders them.
      const std::vector<std::string> later = std::move(r.warnings);
      r.warnings.clear();
      add_tree_stats(d.fr, r);
      r.warnings.insert(r.warnings.end(), later.begin(), later.end());
    }
    add_error_outputs(d.fr, d.targets, d.error_targets, d.error_shape, r);
    r.total_seconds += std::chrono::duration<double>(Clock::now() - t0).count();
    return r;
  }

  void warm_up(Progress* progress) override {
    if (evaluator_) evaluator_->complete_cache(progress);
  }

  WorkAxis work_axis(const ParamSet& params) override {
    return target_axis(field::settings_from(params));
  }

  /// "targets" (work_axis) or "sources": the sources in consecutive shares, each evaluated at
  /// every target, the parts' fp64 fields added (WorkAxis::reduced).
  WorkAxis split_axis(const ParamSet& params, const std::string& axis) override {
    if (axis != "sources") return Workload::split_axis(params, axis);
    return source_axis(params, field::settings_from(params));
  }

  std::string choose_split(const ParamSet& params, double share_bytes) override {
    const field::Settings s = field::settings_from(params);
    return choose_field_split(source_axis(params, s).length, target_axis(s).length, share_bytes);
  }

  std::optional<SampleCoordinates> sample_coordinates(const RunResult& r,
                                                      const SampleCoordinates& axes) const override {
    return field_sample_coordinates(field::settings_from(r.params), axes);
  }

  /// Work ranges of the targets or shares of the sources joined (field_merge.hpp).
  RunResult merge_ranges(std::vector<RunResult> parts) const override {
    if (parts.empty()) return merge_field_targets(std::move(parts), {});  // refuses: no parts
    const field::Settings s = field::settings_from(parts.front().params);
    if (parts.front().part && parts.front().part->axis == "sources")
      return merge_field_sources(std::move(parts), s);
    return merge_field_targets(std::move(parts), s);
  }

  ViewHints view_hints(const std::string& view) const override { return field_view_hints(view); }
  ViewImage view_image(const RunResult& r, const std::string& view) const override {
    return field_view_image(r, view, field::settings_from(r.params));
  }

  std::string describe_sample(const RunResult& r, int i, int j) const override {
    return field_sample_text(r, field::settings_from(r.params), i, j);
  }

 private:
  static WorkAxis target_axis(const field::Settings& s) {
    WorkAxis a;
    a.name = "targets";
    a.length = shape_size(field::target_shape(s));
    return a;
  }

  WorkAxis source_axis(const ParamSet& params, const field::Settings& s) {
    WorkAxis a;
    a.name = "sources";
    a.length = sources_.total(params, s);
    a.reduced = true;
    return a;
  }

  /// A share of the sources (request.range of the "sources" axis) at every target: the fp64
  /// fields Ex, Ey, Ez, phi of those sources alone in RunResult::part's sums "sum:field"
  /// ((targets, 4), from Result::sums64 on the CPU; on CUDA from its float32 outputs, which
  /// rounds each share's field to fp32 once: field::sums_of), no outputs (merge_field_sources
  /// forms them). Only the share's sources are read or generated (FieldSourceCache::share);
  /// method auto is resolved for the whole set; with the tree, also the share's direct sums at
  /// the error subgrid (add_share_check_sums).
  RunResult run_sources(const ParamSet& params, const field::Settings& s, Backend backend,
                        const RunRequest& request, Progress* progress) {
    const auto t0 = Clock::now();
    RunResult r;
    r.workload = "field";
    r.params = params;
    r.backend = backend;
    const std::size_t total = sources_.total(params, s);
    const IndexRange share = resolve(*request.range, total, "field sources");
    bool whole = false;
    field::Sources mine = sources_.share(params, s, share, whole);
    mine.generation = 0;  // a device evaluator uploads it, a tree is built for it
    const field::TargetSet ts = field::target_set(s);
    field::Options options = s.options;
    options.keep_sums64 = true;
    const field::Targets& targets = ts.targets;
    const std::size_t T = targets.size();
    // Auto resolved for the whole set (the unsplit run's choice), not for this share's count.
    field::Method method = field::resolve_method(s.method, backend, total, T);
    if (backend == Backend::Cuda && s.method == field::Method::Auto)
      method = field::Method::Direct;  // as the auto evaluator on CUDA (field.hpp)
    if (!evaluator_ || evaluator_->backend() != backend || evaluator_->method() != method)
      evaluator_ = field::make_evaluator(method, backend);
    evaluator_->keep_outputs_on_device(false);  // the sums are read on the host
    field::Result fr;
    std::vector<double> sums(4 * T, 0.0);
    if (mine.size() > 0) {
      evaluator_->evaluate(mine, targets, IndexRange::all(), options, fr, progress);
      sums = field::sums_of(fr);
    }
    evaluator_->keep_outputs_on_device(true);
    r.part = RangePart{"sources", share.begin, share.end, total, {}};
    r.part->sums["sum:field"] = std::move(sums);
    FieldStats st;
    st.sources = double(mine.size());
    st.targets = double(T);
    st.skipped_coincidences = double(fr.skipped_coincidences);
    st.peak_device_bytes = evaluator_->peak_device_bytes();
    if (whole) st.sources_read_whole = 1;
    if (mine.size() > 0) st.set_method(fr, params, r.warnings);
    st.store(r);
    if (method == field::Method::Tree && ts.grid)
      add_share_check_sums(s, *ts.grid, targets, total, mine, r);
    r.compute_seconds = fr.seconds;
    r.total_seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    return r;
  }

  /// A full run whose measured error was deferred (follow_up): its result, the evaluator's
  /// Result (outputs moved out) and what the error view's outputs need.
  struct Deferred {
    RunResult result;
    field::Result fr;
    field::Targets targets;
    std::vector<std::size_t> error_targets, error_shape, shape;
    std::size_t sources = 0;
  };
  std::optional<Deferred> deferred_;
  double preview_build_seconds_ = 0;  ///< the tree build of the preview just run (window only)
  FieldSourceCache sources_;
  std::unique_ptr<field::Evaluator> evaluator_;
};

}  // namespace

WorkloadDescriptor field_descriptor() {
  // The outputs as compute/field declares them (field::outputs(): also the view choices).
  // The tree method adds its error view: "error" and the coordinates of its targets.
  std::vector<OutputSpec> outputs = field::outputs();
  outputs.push_back(field::error_output());
  outputs.push_back(error_xyz_output());
  WorkloadDescriptor d;
  d.name = "field";
  d.make = [] { return std::make_unique<FieldWorkload>(); };
  d.outputs = std::move(outputs);
  d.stat_labels = field_stat_labels();
  d.status_text = field_status_text;
  d.screenshot_texts = field_screenshot_texts;
  d.shapes = "float32 (grid.size, grid.size) for a plane, (6, n, n) for a box, axis 0 along the "
      "plane's first axis, (T,) for targets.file's points (also outputs.csv); method tree adds error (m, m) or (6, m, m): |E_tree - E_direct| "
      "/ |E_direct| against fp64 direct sums on the subgrid of plane indices round(k (n-1) "
      "/ (m-1)), m = tree.error_grid (0: 3..32 by the source count), and error_xyz (.., 3) "
      "float64: those targets' x, y, z";
  d.split_axes = {"targets", "sources"};
  d.inputs = {{{"csv"}, nullptr, {{"sources.file", "{path}"}}},
              {{"npy"},
               [](const std::vector<std::size_t>& s) {
                 return s.size() == 2 && (s[1] == 3 || s[1] == 4);
               },
               {{"sources.file", "{path}"}}}};
  d.inputs_text = "sources .npy/.csv";
  d.npy_expected = "field takes sources as .npy of shape (P, 4) x, y, z, q or (P, 3), or CSV";
  return d;
}

}  // namespace simscope::app
