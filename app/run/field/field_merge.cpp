// The field's split runs joined into the whole run's result (field_merge.hpp).
#include "field/field_merge.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "core/error.hpp"
#include "field/share_sums.hpp"
#include "field/field_targets.hpp"
#include "field/field_view.hpp"
#include "field_result.hpp"
#include "field_stats.hpp"
#include "ranges/split_merge.hpp"

namespace simscope::app {
namespace {

using Clock = std::chrono::steady_clock;

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

/// The non-finite values of `v`, for finish_field_result().
std::uint64_t nonfinite_count(const std::vector<float>& v) {
  return std::uint64_t(
      std::count_if(v.begin(), v.end(), [](float x) { return !std::isfinite(x); }));
}

/// The measured error of a tree run split by sources, of the added field `sums` ((T, 4)) against
/// the added direct sums `direct` at the error subgrid (add_share_check_sums): the error view's
/// outputs (error, error_xyz, as an unsplit tree run gives them) and the stats rms_rel_error
/// (sqrt(mean over the subgrid |E - E_direct|^2 / mean over all targets |E|^2), the unsplit
/// run's measure), max_rel_error (the largest |E - E_direct| / |E_direct| there) and
/// error_samples (the subgrid's targets), replacing the shares' own; a warning when that RMS
/// error exceeds tree.tolerance.
void measure_added_error(const std::vector<double>& direct, const std::vector<double>& sums,
                         const field::Settings& s, RunResult& r) {
  const field::Grid& g = s.grid;
  const field::ErrorSubgrid sub =
      field::error_subgrid(g, s.error_grid, std::size_t(FieldStats::from(r).sources));
  field::Result fr;  // target_errors and the measure as the tree evaluator forms them
  try {
    field::measure_added_error(sums, direct, sub.targets, fr);
  } catch (const Error& e) {
    const std::string what = e.what();  // "field: ..."
    throw Error("field: cannot merge work ranges: " + what.substr(what.find(": ") + 2));
  }
  const double rms = fr.tree.rms_rel_error;
  const double tol = s.options.tolerance;
  FieldStats st = FieldStats::from(r);
  st.error_samples = double(fr.tree.error_samples);
  st.rms_rel_error = rms;
  st.max_rel_error = fr.tree.max_rel_error;
  st.tolerance_met = rms <= tol ? 1 : 0;
  st.store(r);
  add_error_outputs(fr, field::make_targets(g), sub.targets, error_shape(g, sub.m), r);
  if (rms > tol)
    r.warnings.push_back("tree: the measured RMS error " + field_number(rms) +
                         " of the field added from the shares of the sources exceeds "
                         "tree.tolerance " +
                         field_number(tol) +
                         " (each share's tree meets it for that share's field, which the "
                         "others cancel in part): lower tree.tolerance or split by targets");
}

/// The error outputs of work ranges (each the range's entries of the subgrid of a set of
/// `sources`, in flat target order) concatenated and given the whole subgrid's shape into `r`;
/// returns the subgrid's extent m, or nothing (nothing added) when the parts have none.
std::optional<int> merge_error_outputs(const std::vector<RunResult>& parts, std::size_t sources,
                                       const field::Settings& s, RunResult& r) {
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
  const field::Grid& g = s.grid;
  const field::ErrorSubgrid sub = field::error_subgrid(g, s.error_grid, sources);
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

}  // namespace

RunResult merge_field_targets(std::vector<RunResult> parts, const field::Settings& s) {
  check_parts(parts, "targets");
  RunResult r = parts.front();
  r.outputs.clear();
  r.warnings.clear();
  r.part.reset();
  const auto shape = field::target_shape(s);
  std::vector<std::uint64_t> nonfinite;  // per output, for finish_field_result()
  for (const auto& name : field::output_names()) {
    OutputArray o = concat_outputs(parts, name, 0);
    o.shape = shape;
    nonfinite.push_back(nonfinite_count(o.host()));
    r.outputs.push_back(std::move(o));
  }
  FieldStats st = FieldStats::merged_ranges(stats_of(parts), double(shape_size(shape)));
  if (const std::optional<int> m = merge_error_outputs(parts, std::size_t(st.sources), s, r))
    st.error_grid = double(*m);
  st.store(r);
  merge_seconds(parts, r);
  finish_field_result(r, nonfinite);
  return r;
}

RunResult merge_field_sources(std::vector<RunResult> parts, const field::Settings& s) {
  check_parts(parts, "sources");
  RunResult r = parts.front();
  r.outputs.clear();
  r.warnings.clear();
  r.stats.clear();
  r.part.reset();
  const std::vector<FieldStats> stats = stats_of(parts);
  const auto shape = field::target_shape(s);
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
    nonfinite.push_back(nonfinite_count(v));
    o.data = std::move(v);
    r.outputs.push_back(std::move(o));
  }
  FieldStats::merged_shares(stats, double(T)).store(r);
  merge_seconds(parts, r);
  finish_field_result(r, nonfinite);
  if (std::any_of(parts.begin(), parts.end(),
                  [](const RunResult& p) { return p.part->sums.count("sum:check_direct"); }))
    measure_added_error(added_sums(parts, "sum:check_direct"), sums, s, r);
  for (const FieldStats& p : stats)
    if (p.sources_read_whole) {
      r.warnings.push_back("sources.file " + s.sources.file +
                           ": a .csv file cannot be read by rows, so each share read all of it "
                           "(the memory of the whole set on every rank); save the sources as "
                           ".npy for a split by sources to read only each share's rows");
      break;
    }
  return r;
}

void add_share_check_sums(const field::Settings& s, const field::Grid& grid,
                          const field::Targets& targets, std::size_t total,
                          const field::Sources& mine, RunResult& r) {
  const auto t0 = Clock::now();
  const field::ErrorSubgrid sub = field::error_subgrid(grid, s.error_grid, total);
  r.part->sums["sum:check_direct"] = field::direct_sums_at(mine, targets, sub.targets, s.options);
  FieldStats st = FieldStats::from(r);
  st.tree_error_seconds =
      st.tree_error_seconds.value_or(0) + std::chrono::duration<double>(Clock::now() - t0).count();
  st.store(r);
}

}  // namespace simscope::app
