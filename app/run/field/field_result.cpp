// The field's RunResult from one evaluation (field_result.hpp).
#include "field_result.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <utility>

#include "core/device_memory.hpp"
#include "core/error.hpp"
#include "field/field_params.hpp"
#include "field_stats.hpp"

namespace simscope::app {

namespace {

/// The evaluator's last result's output `name` (`count` floats) in device memory, shared with
/// it: the evaluator writes later results elsewhere while this is held (field.hpp).
OutputData device_data(const field::Evaluator& ev, const std::string& name, std::size_t count) {
  std::shared_ptr<const float> p = ev.device_output(name);
  if (!p) throw Error("field: output '" + name + "' is not in device memory");
  const int device = ev.device();
  return OutputData::on_device(p, io::DType::Float32, count, [p, device](void* dst, std::size_t n) {
    copy_device_to_host(dst, p.get(), n * sizeof(float), device);
  });
}

}  // namespace

std::size_t shape_size(const std::vector<std::size_t>& shape) {
  std::size_t n = 1;
  for (std::size_t d : shape) n *= d;
  return n;
}

void fill_field_result(RunResult& r, field::Result& fr, const field::Evaluator& ev,
                       const std::vector<std::size_t>& shape, std::size_t sources) {
  const WorkloadDescriptor& desc = workload_descriptor("field");
  const auto& names = field::output_names();
  std::vector<std::uint64_t> nonfinite;  // per output, for finish_field_result()
  for (std::size_t k = 0; k < names.size(); ++k) {
    OutputArray o = desc.make_output(names[k]);
    o.shape = shape;
    std::uint64_t bad = 0;
    if (fr.on_host) {
      // fr is the caller's own result: its vectors move into the outputs, no copy.
      o.data = std::move(const_cast<std::vector<float>&>(field::output(fr, names[k])));
      const std::vector<float>& v = o.host();
      bad = std::uint64_t(
          std::count_if(v.begin(), v.end(), [](float x) { return !std::isfinite(x); }));
    } else {
      o.data = device_data(ev, names[k], fr.size());
      bad = fr.device_nonfinite[k];
    }
    nonfinite.push_back(bad);
    r.outputs.push_back(std::move(o));
  }
  FieldStats s;
  s.sources = double(sources);
  s.targets = double(shape_size(shape));
  s.skipped_coincidences = double(fr.skipped_coincidences);
  s.peak_device_bytes = ev.peak_device_bytes();
  s.set_method(fr, r.params, r.warnings);
  s.store(r);
  r.compute_seconds = fr.seconds;
  finish_field_result(r, nonfinite);
}

const OutputSpec& error_xyz_output() {
  static const OutputSpec spec{"error_xyz", "error view targets (x, y, z)", "length",
                               io::DType::Float64};
  return spec;
}

std::vector<std::size_t> error_shape(const field::Grid& grid, int m) {
  if (grid.kind == field::PlaneKind::Box) return {6, std::size_t(m), std::size_t(m)};
  return {std::size_t(m), std::size_t(m)};
}

void add_error_outputs(const field::Result& fr, const field::Targets& t,
                       const std::vector<std::size_t>& idx, const std::vector<std::size_t>& shape,
                       RunResult& r) {
  if (idx.empty()) return;  // no error view: scattered targets (targets.file)
  const WorkloadDescriptor& desc = workload_descriptor("field");
  OutputArray e = desc.make_output(field::error_output().name);
  e.shape = shape;
  e.data = std::vector<float>(fr.target_errors);
  OutputArray xyz = desc.make_output(error_xyz_output().name);
  xyz.shape = shape;
  xyz.shape.push_back(3);
  std::vector<double> coordinates;
  for (std::size_t i : idx) coordinates.insert(coordinates.end(), {t.x[i], t.y[i], t.z[i]});
  xyz.data = std::move(coordinates);
  r.outputs.push_back(std::move(e));
  r.outputs.push_back(std::move(xyz));
  FieldStats s = FieldStats::from(r);
  s.error_grid = double(shape.back());
  s.store(r);
}

/// The tree's settings where they do not apply as given: unused because method=auto chose direct
/// sums, and tree.error_grid above grid.size (the subgrid is clamped to the grid).
static void add_tree_param_warnings(const FieldStats& s, RunResult& r) {
  const bool tree = s.method_tree && *s.method_tree != 0;
  const std::string method = r.params.get_string("method");
  // method=auto that chose direct sums: the tree's settings are unused, as with method=direct.
  if (!tree && method == "auto") {
    const std::string list = r.params.changed({"tree.tolerance", "tree.error_grid"});
    char pairs[32];
    std::snprintf(pairs, sizeof pairs, "%.3g", s.sources * s.targets);
    if (!list.empty())
      r.warnings.push_back("method=auto chose direct sums (" + std::string(pairs) +
                           " source-target pairs), so " + list +
                           (list.find(',') == std::string::npos ? " is" : " are") +
                           " not used (direct sums are exact)");
  }
  // The error view's subgrid is no finer than the grid (field::error_subgrid clamps it).
  const std::int64_t m = r.params.get_int("tree.error_grid"), n = r.params.get_int("grid.size");
  if (tree && m > n && r.params.get_string("targets.file").empty())
    r.warnings.push_back("tree.error_grid = " + std::to_string(m) + " is more than grid.size = " +
                         std::to_string(n) + ": the error view uses " + std::to_string(n) + " x " +
                         std::to_string(n) + " samples (it cannot be finer than the grid)");
}

void finish_field_result(RunResult& r, const std::vector<std::uint64_t>& nonfinite) {
  for (std::size_t k = 0; k < r.outputs.size() && k < nonfinite.size(); ++k)
    if (nonfinite[k] > 0)
      r.warnings.push_back(r.outputs[k].name + ": " + std::to_string(nonfinite[k]) +
                           " values overflow float32 (inf): k is too large or a source sits "
                           "almost on a target; lower k or set eps > 0");
  // The file wins over the generator: say so when generator settings were changed too.
  for (std::string& w : field::schema().unused_warnings(r.params))
    r.warnings.push_back(std::move(w));
  FieldStats s = FieldStats::from(r);
  add_tree_param_warnings(s, r);
  const auto skipped = std::uint64_t(s.skipped_coincidences);
  if (skipped > 0)
    r.warnings.push_back(std::to_string(skipped) +
                         " source-target coincidences skipped (eps = 0): those terms are "
                         "singular; set eps > 0 to soften them");
  s.pairs = s.sources * s.targets;
  s.pairs_per_s = r.compute_seconds > 0 ? *s.pairs / r.compute_seconds : 0;
  s.store(r);
}

}  // namespace simscope::app
