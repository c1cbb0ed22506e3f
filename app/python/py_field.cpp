// simscope.field on numpy arrays: sources (P,4)/(P,3) and arbitrary targets (T,3), or the
// schema's generator and plane/box grid, evaluated by compute/field's evaluator.
#include <pybind11/stl.h>

#include <chrono>
#include <cmath>

#include "field/field.hpp"
#include "field/field_stats.hpp"
#include "py_arrays.hpp"
#include "py_call.hpp"
#include "py_params.hpp"
#include "py_result.hpp"

namespace simscope::python {

namespace {

using Clock = std::chrono::steady_clock;

/// What one call evaluates (built with the GIL, from the arguments).
struct FieldJob {
  ParamSet params;
  BackendChoice choice;
  field::Sources sources;
  field::Targets targets;
  std::vector<std::size_t> shape;  ///< of each output: (T,) for given targets, else the grid's
  field::Options options;
  field::Method method = field::Method::Direct;  ///< the schema's "method" (auto, direct, tree)
  std::string unused;  ///< a warning about settings the arrays override, or ""
};

app::RunResult evaluate(FieldJob& job, Progress* progress) {
  const auto t0 = Clock::now();
  auto evaluator = field::make_evaluator(job.method, job.choice.backend);
  field::Result fr;
  evaluator->evaluate(job.sources, job.targets, job.options, fr, progress);
  app::RunResult r;
  r.workload = "field";
  r.params = job.params;
  r.backend = job.choice.backend;
  const app::WorkloadDescriptor& desc = app::workload_descriptor("field");
  for (const auto& name : field::output_names()) {
    app::OutputArray o = desc.make_output(name);
    o.shape = job.shape;
    o.data = field::output(fr, name);
    r.outputs.push_back(std::move(o));
  }
  if (fr.skipped_coincidences > 0)
    r.warnings.push_back(std::to_string(fr.skipped_coincidences) +
                         " source-target coincidences skipped (eps = 0): those terms are "
                         "singular; set eps > 0 to soften them");
  r.stats["sources"] = double(job.sources.size());
  r.stats["targets"] = double(job.targets.size());
  r.stats["pairs"] = double(job.sources.size()) * double(job.targets.size());
  r.stats["skipped_coincidences"] = double(fr.skipped_coincidences);
  r.stats["pairs_per_s"] = fr.seconds > 0 ? r.stats["pairs"] / fr.seconds : 0;
  r.stats["peak_device_bytes"] = evaluator->peak_device_bytes();
  app::add_tree_stats(fr, r);  // as the workload adapter reports them
  r.compute_seconds = fr.seconds;
  r.total_seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return r;
}

}  // namespace

void bind_field(py::module_& m) {
  m.def(
      "field",
      [](const py::object& sources, const py::object& targets, const Settings& settings,
         const std::string& backend, const py::object& progress) {
        FieldJob job = checked([&] {
          FieldJob j;
          j.params = params_from(field::schema(), settings);
          j.choice = backend_from(backend);
          j.options = field::options_from(j.params);
          j.method = field::method_from(j.params);
          j.sources = sources.is_none()
                          ? field::make_sources(j.params)
                          : field::sources_from_npy(
                                to_npy(sources, "sources", "float32 or float64"), "sources");
          if (targets.is_none()) {
            const field::Grid grid = field::grid_from(j.params);
            j.targets = field::make_targets(grid);
            j.shape = field::grid_shape(grid);
          } else {
            j.targets = field::targets_from_npy(to_npy(targets, "targets", "float32 or float64"),
                                                "targets");
            j.shape = {j.targets.size()};
          }
          if (!sources.is_none()) {  // the generator's settings are not used then
            const std::string c =
                j.params.changed({"sources.file", "sources.distribution", "sources.count",
                                  "sources.seed", "sources.half_width"});
            if (!c.empty()) j.unused = "sources are given as an array, so " + c + " not used";
          }
          return j;
        });
        const bool device = job.choice.backend == Backend::Cuda;
        app::RunResult r =
            call_released([&](Progress* p) { return evaluate(job, p); }, progress, device);
        if (!job.unused.empty()) r.warnings.push_back(job.unused);
        for (std::string& w : field::schema().unused_warnings(job.params))
          r.warnings.push_back(std::move(w));
        return result_dict(std::move(r), job.choice.notice);
      },
      py::arg("sources"), py::arg("targets"), py::arg("settings"), py::arg("backend") = "auto",
      py::arg("progress") = py::none(),
      "The field workload on arrays (see simscope.field); returns the result dict.");
}

}  // namespace simscope::python
