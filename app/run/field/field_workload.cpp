// The `field` workload as the app drives it: sources cached between runs, a plane or the six
// faces of a box evaluated on the chosen back end, exported as magnitude/ex/ey/ez/potential.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cache_key.hpp"
#include "core/error.hpp"
#include "field/field.hpp"
#include "field/field_params.hpp"
#include "field/field_targets.hpp"
#include "field/share_sums.hpp"
#include "field/sources.hpp"
#include "field_result.hpp"
#include "field_split.hpp"
#include "field_stat_labels.hpp"
#include "field_status.hpp"
#include "field_stats.hpp"
#include "split_merge.hpp"
#include "workload.hpp"

namespace simscope::app {
namespace {

using Clock = std::chrono::steady_clock;

/// The names of a plane's in-plane axes (u to the right, v up), as field::make_targets lays them.
std::pair<const char*, const char*> plane_axes(field::PlaneKind kind) {
  switch (kind) {
    case field::PlaneKind::XZ:
      return {"x", "z"};
    case field::PlaneKind::YZ:
      return {"y", "z"};
    default:
      return {"x", "y"};
  }
}

/// The stats of `parts` (FieldStats::from each).
std::vector<FieldStats> stats_of(const std::vector<RunResult>& parts) {
  std::vector<FieldStats> v;
  for (const RunResult& p : parts) v.push_back(FieldStats::from(p));
  return v;
}

/// The compute and total seconds of merged work ranges into `r`: each summed.
void merge_seconds(const std::vector<RunResult>& parts, RunResult& r) {
  double compute = 0, total = 0;
  for (const RunResult& p : parts) {
    compute += p.compute_seconds;
    total += p.total_seconds;
  }
  r.compute_seconds = compute;
  r.total_seconds = total;
}

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

/// Axis titles of a plane ("x: -1.5 ... 1.5"), or for a box a label on each face of the mosaic
/// ("-x (y, z)": the face and its in-plane axes, right and up) and the faces' common range.
ImageAnnotations annotations_of(const field::Grid& g) {
  ImageAnnotations a;
  if (g.kind != field::PlaneKind::Box) {
    const auto [u, v] = plane_axes(g.kind);
    a.axis_i = {u, true, -g.half_width, g.half_width};
    a.axis_j = {v, true, -g.half_width, g.half_width};
    return a;
  }
  a.axis_i = {"each face (right, up): " + number(-g.half_width) + " ... " + number(g.half_width),
              false, 0, 0};
  static const char* const kFaces[6] = {"-x", "+x", "-y", "+y", "-z", "+z"};
  static const field::PlaneKind kKinds[3] = {field::PlaneKind::YZ, field::PlaneKind::XZ,
                                             field::PlaneKind::XY};
  for (int f = 0; f < 6; ++f) {
    // Face f's tile: column f / 2, row f % 2 (see view_image).
    const auto [u, v] = plane_axes(kKinds[f / 2]);
    const std::string face = kFaces[f];
    const std::string at =
        std::string(1, face[1]) + " = " + number(f % 2 == 0 ? -g.offset : g.offset);
    RegionLabel r;
    r.u0 = (f / 2) / 3.0, r.u1 = (f / 2 + 1) / 3.0;
    r.v0 = (f % 2) / 2.0, r.v1 = (f % 2 + 1) / 2.0;
    r.texts = {face + " face, " + at + ": " + u + " right, " + v + " up",
               face + ": " + u + " right, " + v + " up", face + " (" + u + ", " + v + ")", face};
    a.regions.push_back(std::move(r));
  }
  return a;
}

std::size_t shape_size(const std::vector<std::size_t>& shape) {
  std::size_t n = 1;
  for (std::size_t d : shape) n *= d;
  return n;
}

class FieldWorkload final : public Workload {
 public:
  const Schema& schema() const override { return field::schema(); }

  /// view=error needs the tree method: direct sums measure no error, so the run would end
  /// without its view.
  void check_params(const ParamSet& params) const override {
    if (params.get_string("view") == field::error_output().name && field::scattered_targets(params))
      throw Error(
          "view=error draws the tree's error on a plane or box, but targets.file gives scattered "
          "points: the measured error is in run.json's stats (rms_rel_error); choose another "
          "view");
    if (params.get_string("view") == field::error_output().name &&
        params.get_string("method") == "direct")
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
    RunResult r;
    r.workload = "field";
    r.params = params;
    r.backend = backend;
    r.preview = preview;

    if (request.range && request.axis == "sources")
      return run_sources(params, backend, request, progress);
    const field::Sources& sources = sources_for(params);
    const field::TargetSet ts = field::target_set(params, preview);
    field::Options options = field::options_from(params);
    const field::Targets& targets = ts.targets;

    const field::Method method = field::method_from(params);
    if (!evaluator_ || evaluator_->backend() != backend || evaluator_->method() != method) {
      evaluator_ = field::make_evaluator(method, backend);
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
        ts.grid ? field::error_subgrid(*ts.grid, int(params.get_int("tree.error_grid")),
                                       sources.size())
                : field::ErrorSubgrid{};
    for (std::size_t i : sub.targets)
      if (!request.range || (i >= range.begin && i < range.end)) options.error_targets.push_back(i);
    // The window: the measured error after the frame (follow_up), unless the error is the view.
    options.defer_error = request.defer_checks && !request.range &&
                          params.get_string("view") != field::error_output().name;
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
      FieldStats s = FieldStats::from(r);
      s.tree_preview_build_seconds = preview_build_seconds_;
      s.store(r);
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
    WorkAxis a;
    a.name = "targets";
    a.length = shape_size(field::target_shape(params));
    return a;
  }

  /// "targets" (work_axis) or "sources": the sources in consecutive shares, each evaluated at
  /// every target, the parts' fp64 fields added (WorkAxis::reduced).
  WorkAxis split_axis(const ParamSet& params, const std::string& axis) override {
    if (axis != "sources") return Workload::split_axis(params, axis);
    WorkAxis a;
    a.name = "sources";
    a.length = source_total(params);
    a.reduced = true;
    return a;
  }

  std::string choose_split(const ParamSet& params, double share_bytes) override {
    return choose_field_split(split_axis(params, "sources").length, work_axis(params).length,
                              share_bytes);
  }

  /// A plane's samples in x, y, z: its two axes and the normal axis at the plane's offset
  /// (field::make_targets' layout); a box's faces keep the image's axes.
  std::optional<SampleCoordinates> sample_coordinates(const RunResult& r,
                                                      const SampleCoordinates& axes) const override {
    if (field::scattered_targets(r.params)) return std::nullopt;
    const field::Grid g = field::grid_from(r.params);
    if (g.kind == field::PlaneKind::Box || axes.base.size() != 2) return std::nullopt;
    int iu = 0, iv = 1, in = 2;
    if (g.kind == field::PlaneKind::XZ) iu = 0, iv = 2, in = 1;
    if (g.kind == field::PlaneKind::YZ) iu = 1, iv = 2, in = 0;
    SampleCoordinates c;
    c.names = {"x", "y", "z"};
    c.base.assign(3, 0), c.di.assign(3, 0), c.dj.assign(3, 0);
    c.base[iu] = axes.base[0], c.di[iu] = axes.di[0];
    c.base[iv] = axes.base[1], c.dj[iv] = axes.dj[1];
    c.base[in] = g.offset;
    return c;
  }

  /// Targets concatenated in range order (field::merge_target_ranges' rule: each target's values
  /// are the unsplit run's on the CPU), the grid's shape, counts summed, warnings from the whole.
  RunResult merge_ranges(std::vector<RunResult> parts) const override {
    if (!parts.empty() && parts.front().part && parts.front().part->axis == "sources")
      return merge_sources(std::move(parts));
    check_parts(parts, "targets");
    RunResult r = parts.front();
    r.outputs.clear();
    r.warnings.clear();
    r.part.reset();
    const auto shape = field::target_shape(r.params);
    std::vector<std::uint64_t> nonfinite;  // per output, for finish_field_result()
    for (const auto& name : field::output_names()) {
      OutputArray o = concat_outputs(parts, name, 0);
      o.shape = shape;
      const std::vector<float>& v = o.host();
      nonfinite.push_back(std::uint64_t(
          std::count_if(v.begin(), v.end(), [](float x) { return !std::isfinite(x); })));
      r.outputs.push_back(std::move(o));
    }
    FieldStats s = FieldStats::merged_ranges(stats_of(parts), double(shape_size(shape)));
    if (const std::optional<int> m = merge_error_outputs(parts, std::size_t(s.sources), r))
      s.error_grid = double(*m);
    s.store(r);
    merge_seconds(parts, r);
    finish_field_result(r, nonfinite);
    return r;
  }

  ViewImage view_image(const RunResult& r, const std::string& view) const override {
    const OutputArray* o = r.find(view);
    if (!o && view == field::error_output().name) {
      throw Error(
          "field: the error view shows the tree method's error; this result was "
          "computed by direct sums (set method = tree, or auto above 1e9 pairs)");
    }
    if (!o) throw Error("field: no output called '" + view + "'");
    if (field::scattered_targets(r.params))
      throw Error("field: targets.file gives " + std::to_string(o->shape.empty() ? 0 : o->shape[0]) +
                  " scattered points, which the window cannot draw as an image: run it headless "
                  "for the (T,) outputs and outputs.csv, or clear targets.file for a plane or box");
    ViewImage img;
    img.label = o->label;
    img.unit = o->unit;
    // Components are signed: a diverging map centred on zero, linear.
    const bool signed_output = view == "ex" || view == "ey" || view == "ez";
    if (signed_output) img.colormap = "coolwarm", img.scale = "linear";
    // Relative errors span decades: logarithmic. The subgrid spans the grid's range.
    if (view == field::error_output().name) img.colormap = "inferno", img.scale = "log";
    img.annotations = annotations_of(field::grid_from(r.params));
    if (o->shape.size() == 2) {
      img.rows = int(o->shape[0]);
      img.cols = int(o->shape[1]);
      img.data = o->data;  // the output itself, where it lives (no copy)
      if (signed_output) img.symmetric_range();
      return img;
    }
    // Box: the six faces as a 3 x 2 mosaic: columns -x, -y, -z (bottom row) and +x, +y, +z (top).
    const int n = int(o->shape[1]);
    img.rows = 3 * n;
    img.cols = 2 * n;
    const std::vector<float>& src = o->host();
    std::vector<float> mosaic(size_t(img.rows) * img.cols, 0.f);
    for (int f = 0; f < 6; ++f) {
      const int bi = (f / 2) * n, bj = (f % 2) * n;
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
          mosaic[size_t(bi + i) * img.cols + bj + j] = src[(size_t(f) * n + i) * n + j];
    }
    img.data = std::move(mosaic);
    if (signed_output) img.symmetric_range();
    return img;
  }

  std::string describe_sample(const RunResult& r, int i, int j) const override {
    field::Grid g = field::grid_from(r.params);
    const OutputArray* o = r.outputs.empty() ? nullptr : &r.outputs.front();
    if (o && !o->shape.empty()) g.size = int(o->shape.back());
    const int n0 = g.size;
    // The error view's samples are a subgrid: sample k is plane index index[k].
    const OutputArray* e = r.find(field::error_output().name);
    std::vector<int> index;
    if (e && r.params.get_string("view") == field::error_output().name && !e->shape.empty())
      index = field::error_subgrid(g, int(e->shape.back()), 0).index;
    const int n = index.empty() ? n0 : int(index.size());
    int face = -1;
    if (g.kind == field::PlaneKind::Box) {
      face = (i / n) * 2 + (j / n);
      i %= n;
      j %= n;
    }
    auto lin = [&](int k) {
      if (!index.empty()) k = index[std::clamp(k, 0, n - 1)];
      return -g.half_width + 2.0 * g.half_width * k / (n0 - 1);
    };
    double u = lin(i), v = lin(j);
    double x = 0, y = 0, z = 0;
    field::PlaneKind kind = g.kind;
    double off = g.offset;
    if (face >= 0) {
      kind = face < 2   ? field::PlaneKind::YZ
             : face < 4 ? field::PlaneKind::XZ
                        : field::PlaneKind::XY;
      off = (face % 2 == 0) ? -g.offset : g.offset;
    }
    switch (kind) {
      case field::PlaneKind::XY:
        x = u, y = v, z = off;
        break;
      case field::PlaneKind::XZ:
        x = u, y = off, z = v;
        break;
      default:
        x = off, y = u, z = v;
        break;
    }
    char buf[160];
    std::snprintf(buf, sizeof buf, "x=%.4g y=%.4g z=%.4g", x, y, z);
    return buf;
  }

 private:
  /// A share of the sources (request.range of the "sources" axis) at every target: the fp64
  /// fields Ex, Ey, Ez, phi of those sources alone in RunResult::part's sums "sum:field"
  /// ((targets, 4), from Result::sums64 on the CPU; on CUDA from its float32 outputs, which
  /// rounds each share's field to fp32 once), no outputs (merge_sources forms them). Only the
  /// share's sources are read or generated (share_of); method auto is resolved for the whole
  /// set; with the tree, also the share's direct sums at the error subgrid (add_check_sums).
  RunResult run_sources(const ParamSet& params, Backend backend, const RunRequest& request,
                        Progress* progress) {
    const auto t0 = Clock::now();
    RunResult r;
    r.workload = "field";
    r.params = params;
    r.backend = backend;
    const std::size_t total = source_total(params);
    const IndexRange share = resolve(*request.range, total, "field sources");
    bool whole = false;
    field::Sources mine = share_of(params, share, whole);
    mine.generation = 0;  // a device evaluator uploads it, a tree is built for it
    const field::TargetSet ts = field::target_set(params);
    field::Options options = field::options_from(params);
    options.keep_sums64 = true;
    const field::Targets& targets = ts.targets;
    const std::size_t T = targets.size();
    // Auto resolved for the whole set (the unsplit run's choice), not for this share's count.
    field::Method method = field::resolve_method(field::method_from(params), backend, total, T);
    if (backend == Backend::Cuda && field::method_from(params) == field::Method::Auto)
      method = field::Method::Direct;  // as the auto evaluator on CUDA (field.hpp)
    if (!evaluator_ || evaluator_->backend() != backend || evaluator_->method() != method)
      evaluator_ = field::make_evaluator(method, backend);
    evaluator_->keep_outputs_on_device(false);  // the sums are read on the host
    field::Result fr;
    std::vector<double> sums(4 * T, 0.0);
    if (mine.size() > 0) {
      evaluator_->evaluate(mine, targets, IndexRange::all(), options, fr, progress);
      if (fr.sums64.size() == 4 * T) {
        sums = std::move(fr.sums64);
      } else {
        for (std::size_t i = 0; i < T; ++i)
          sums[4 * i] = fr.ex[i], sums[4 * i + 1] = fr.ey[i], sums[4 * i + 2] = fr.ez[i],
                   sums[4 * i + 3] = fr.potential[i];
      }
    }
    evaluator_->keep_outputs_on_device(true);
    r.part = RangePart{"sources", share.begin, share.end, total, {}};
    r.part->sums["sum:field"] = std::move(sums);
    FieldStats s;
    s.sources = double(mine.size());
    s.targets = double(T);
    s.skipped_coincidences = double(fr.skipped_coincidences);
    s.peak_device_bytes = evaluator_->peak_device_bytes();
    if (whole) s.sources_read_whole = 1;
    if (mine.size() > 0) s.set_method(fr, params, r.warnings);
    s.store(r);
    if (method == field::Method::Tree && ts.grid)
      add_check_sums(params, *ts.grid, targets, total, mine, r);
    r.compute_seconds = fr.seconds;
    r.total_seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    return r;
  }

  /// Shares of the sources (run_sources) as the whole run: their fp64 fields added in part
  /// order (or reduced across ranks already: added_sums), then rounded to float32 as an
  /// unsplit run rounds them, |E| formed from the sums; counts summed, warnings from the
  /// whole. Within 1e-12 relative of the unsplit fp64 sums (the same terms, added in another
  /// order); the float32 outputs within one rounding of the unsplit ones.
  RunResult merge_sources(std::vector<RunResult> parts) const {
    check_parts(parts, "sources");
    RunResult r = parts.front();
    r.outputs.clear();
    r.warnings.clear();
    r.stats.clear();
    r.part.reset();
    const std::vector<FieldStats> stats = stats_of(parts);
    const auto shape = field::target_shape(r.params);
    const std::size_t T = shape_size(shape);
    const std::vector<double> sums = added_sums(parts, "sum:field");
    if (sums.size() != 4 * T)
      throw Error("field: cannot merge work ranges: " + std::to_string(sums.size()) +
                  " summed values for " + std::to_string(T) + " targets");
    field::Result added = field::result_from_sums(sums);
    const WorkloadDescriptor& desc = workload_descriptor("field");
    const auto& names = field::output_names();
    std::vector<std::uint64_t> nonfinite;
    for (std::size_t k = 0; k < names.size(); ++k) {
      OutputArray o = desc.make_output(names[k]);
      o.shape = shape;
      std::vector<float>& v = const_cast<std::vector<float>&>(field::output(added, names[k]));
      nonfinite.push_back(std::uint64_t(
          std::count_if(v.begin(), v.end(), [](float x) { return !std::isfinite(x); })));
      o.data = std::move(v);
      r.outputs.push_back(std::move(o));
    }
    FieldStats::merged_shares(stats, double(T)).store(r);
    merge_seconds(parts, r);
    finish_field_result(r, nonfinite);
    if (std::any_of(parts.begin(), parts.end(),
                    [](const RunResult& p) { return p.part->sums.count("sum:check_direct"); }))
      measure_added_error(added_sums(parts, "sum:check_direct"), sums, r);
    for (const FieldStats& p : stats)
      if (p.sources_read_whole) {
        r.warnings.push_back("sources.file " + r.params.get_string("sources.file") +
                             ": a .csv file cannot be read by rows, so each share read all of it "
                             "(the memory of the whole set on every rank); save the sources as "
                             ".npy for a split by sources to read only each share's rows");
        break;
      }
    return r;
  }

  /// The tree split by sources (run_sources): each share's direct fp64 field at the error
  /// view's subgrid (field::error_subgrid of the whole set's count: the same targets for every
  /// share, as the unsplit run's error view) in the sums "sum:check_direct" ((S, 4) Ex, Ey, Ez,
  /// phi; zeros for an empty share), so that merge_sources measures the error of the added field
  /// itself: a share's own measured error is relative to that share's field, which the other
  /// shares' may cancel in part. Costs S x (the share's sources) fp64 pairs.
  static void add_check_sums(const ParamSet& p, const field::Grid& grid, const field::Targets& t,
                             std::size_t total, const field::Sources& mine, RunResult& r) {
    const auto t0 = Clock::now();
    const field::ErrorSubgrid sub =
        field::error_subgrid(grid, int(p.get_int("tree.error_grid")), total);
    field::Targets at;
    for (std::size_t i : sub.targets)
      at.x.push_back(t.x[i]), at.y.push_back(t.y[i]), at.z.push_back(t.z[i]);
    std::vector<double> sums(4 * at.size(), 0.0);
    if (mine.size() > 0 && at.size() > 0) {
      field::Options o = field::options_from(p);
      o.precision = Precision::Fp64;
      o.keep_sums64 = true;
      field::Result fr;
      field::make_evaluator(field::Method::Direct, Backend::Cpu)->evaluate(mine, at, o, fr);
      sums = std::move(fr.sums64);
    }
    r.part->sums["sum:check_direct"] = std::move(sums);
    FieldStats s = FieldStats::from(r);
    s.tree_error_seconds =
        s.tree_error_seconds.value_or(0) + std::chrono::duration<double>(Clock::now() - t0).count();
    s.store(r);
  }

  /// The measured error of a tree run split by sources, of the added field `sums` ((T, 4)) against
  /// the added direct sums `direct` at the error subgrid (add_check_sums): the error view's
  /// outputs (error, error_xyz, as an unsplit tree run gives them) and the stats rms_rel_error
  /// (sqrt(mean over the subgrid |E - E_direct|^2 / mean over all targets |E|^2), the unsplit
  /// run's measure), max_rel_error (the largest |E - E_direct| / |E_direct| there) and
  /// error_samples (the subgrid's targets), replacing the shares' own; a warning when that RMS
  /// error exceeds tree.tolerance.
  void measure_added_error(const std::vector<double>& direct, const std::vector<double>& sums,
                           RunResult& r) const {
    const field::Grid g = field::grid_from(r.params);
    const field::ErrorSubgrid sub = field::error_subgrid(
        g, int(r.params.get_int("tree.error_grid")), std::size_t(FieldStats::from(r).sources));
    field::Result fr;  // target_errors and the measure as the tree evaluator forms them
    try {
      field::measure_added_error(sums, direct, sub.targets, fr);
    } catch (const Error& e) {
      const std::string what = e.what();  // "field: ..."
      throw Error("field: cannot merge work ranges: " + what.substr(what.find(": ") + 2));
    }
    const double rms = fr.tree.rms_rel_error;
    const double tol = r.params.get_double("tree.tolerance");
    FieldStats s = FieldStats::from(r);
    s.error_samples = double(fr.tree.error_samples);
    s.rms_rel_error = rms;
    s.max_rel_error = fr.tree.max_rel_error;
    s.tolerance_met = rms <= tol ? 1 : 0;
    s.store(r);
    add_error_outputs(fr, field::make_targets(g), sub.targets, error_shape(g, sub.m), r);
    if (rms > tol)
      r.warnings.push_back("tree: the measured RMS error " + number(rms) +
                           " of the field added from the shares of the sources exceeds "
                           "tree.tolerance " +
                           number(tol) +
                           " (each share's tree meets it for that share's field, which the "
                           "others cancel in part): lower tree.tolerance or split by targets");
  }

  /// The error outputs of work ranges (each the range's entries of the subgrid of a set of
  /// `sources`, in flat target order) concatenated and given the whole subgrid's shape into `r`;
  /// returns the subgrid's extent m, or nothing (nothing added) when the parts have none.
  static std::optional<int> merge_error_outputs(const std::vector<RunResult>& parts,
                                                std::size_t sources, RunResult& r) {
    if (!parts.front().find(field::error_output().name)) return std::nullopt;
    std::vector<float> err;
    std::vector<double> xyz;
    for (const RunResult& p : parts) {
      const OutputArray* e = p.find(field::error_output().name);
      const OutputArray* c = p.find(error_xyz_output().name);
      if (!e || !c) throw Error("cannot merge work ranges: a part has no error view outputs");
      err.insert(err.end(), e->host().begin(), e->host().end());
      const std::vector<double>& cv = c->data.values<double>();
      xyz.insert(xyz.end(), cv.begin(), cv.end());
    }
    const field::Grid g = field::grid_from(r.params);
    const field::ErrorSubgrid sub =
        field::error_subgrid(g, int(r.params.get_int("tree.error_grid")), sources);
    if (err.size() != sub.targets.size() || xyz.size() != 3 * err.size())
      throw Error("cannot merge work ranges: the error view's parts hold " +
                  std::to_string(err.size()) + " targets, expected " +
                  std::to_string(sub.targets.size()));
    const WorkloadDescriptor& desc = workload_descriptor("field");
    OutputArray e = desc.make_output(field::error_output().name);
    e.shape = error_shape(g, sub.m);
    e.data = std::move(err);
    OutputArray c = desc.make_output(error_xyz_output().name);
    c.shape = e.shape;
    c.shape.push_back(3);
    c.data = std::move(xyz);
    r.outputs.push_back(std::move(e));
    r.outputs.push_back(std::move(c));
    return sub.m;
  }

  /// The key of the source set `p` asks for (its file's size and modification time included:
  /// cache_key).
  static std::string sources_key(const ParamSet& p) {
    return cache_key(p, {"sources.file", "sources.distribution", "sources.count", "sources.seed",
                         "sources.half_width"});
  }

  /// Whether the source set of `p` is read whole even for a share: a file whose rows cannot be
  /// read alone (a .csv file: field::source_rows_readable).
  static bool read_whole(const ParamSet& p) {
    const std::string& file = p.get_string("sources.file");
    return !file.empty() && !field::source_rows_readable(file);
  }

  /// The number of sources of `p` without loading them where it can: the loaded set's size, else
  /// field::source_count (sources.count, or a .npy file's header); a .csv file is loaded (and
  /// kept: sources_for).
  std::size_t source_total(const ParamSet& p) {
    if (sources_key(p) == sources_key_) return sources_.size();
    if (read_whole(p)) return sources_for(p).size();
    return field::source_count(p);
  }

  /// The sources `share` of the set of `p`: a slice of the loaded set when it is loaded (runs
  /// in one process), else only those rows read (a .npy file) or generated
  /// (field::make_source_rows: memory and set-up 1/R of the set on each of R ranks); a .csv
  /// file is loaded whole (sources_for), which sets `read_all` (the stat sources_read_whole: a
  /// warning in the merged run).
  field::Sources share_of(const ParamSet& p, const IndexRange& share, bool& read_all) {
    const bool whole = read_whole(p);
    if (sources_key(p) != sources_key_ && !whole) return field::make_source_rows(p, share);
    const field::Sources& all = sources_for(p);
    field::Sources mine;
    for (auto [dst, src] :
         {std::pair{&mine.x, &all.x}, {&mine.y, &all.y}, {&mine.z, &all.z}, {&mine.q, &all.q}})
      dst->assign(src->begin() + std::ptrdiff_t(share.begin),
                  src->begin() + std::ptrdiff_t(share.end));
    read_all = whole;
    return mine;
  }

  /// Regenerates or reloads the sources only when their parameters changed or the file did
  /// (its size or modification time: cache_key).
  const field::Sources& sources_for(const ParamSet& p) {
    const std::string key = sources_key(p);
    if (key != sources_key_) {
      field::Sources s = field::make_sources(p);
      s.generation = ++generation_;
      sources_ = std::move(s);
      sources_key_ = key;
    }
    return sources_;
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
  std::string sources_key_;
  field::Sources sources_;
  std::uint64_t generation_ = 0;
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
