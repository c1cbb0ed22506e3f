// simscope.field on arrays: sources (P,4)/(P,3) and arbitrary targets (T,3), or the schema's
// generator and plane/box grid, evaluated by compute/field's evaluator; the result built by the
// workload adapter's fill_field_result (same outputs, warnings and stats as the CLI).
#include <pybind11/stl.h>

#include <chrono>

#include "field/field.hpp"
#include "field/field_result.hpp"
#include "field/strided_inputs.hpp"
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
  bool device_results = false;  ///< leave the outputs in device memory (CUDA DLPack results)
  std::string unused;           ///< a warning about settings the arrays override, or ""
};

/// Whether `obj` is a 2-D numpy array of native-endian float32/float64 (any strides), put in
/// `a` then: what sources_from_strided / targets_from_strided read in place.
bool float_matrix(const py::object& obj, py::array& a) {
  if (!py::isinstance<py::array>(obj)) return false;
  a = py::reinterpret_borrow<py::array>(obj);
  const py::dtype d = a.dtype();
  return a.ndim() == 2 && d.kind() == 'f' && (d.itemsize() == 4 || d.itemsize() == 8) &&
         d.attr("byteorder").cast<std::string>() != ">";
}

io::DType dtype_of(const py::array& a) {
  return a.itemsize() == 4 ? io::DType::Float32 : io::DType::Float64;
}

/// The sources of `obj`: a float32/float64 2-D numpy array is converted once, in place through
/// its strides, into the evaluators' layout (fp32 structure of arrays: the (P,4) rows cannot be
/// borrowed); anything else is read by to_npy first (an extra copy: other dtypes, byte-swapped
/// arrays, lists), with the same checks and messages (field::sources_from_npy).
field::Sources sources_of(const py::object& obj, int& conversions) {
  py::array a;
  if (float_matrix(obj, a)) {
    conversions = 1;
    return field::sources_from_strided(a.data(), dtype_of(a), std::size_t(a.shape(0)),
                                       std::size_t(a.shape(1)), a.strides(0), a.strides(1),
                                       "sources");
  }
  conversions = 2;
  return field::sources_from_npy(to_npy(obj, "sources", "float32 or float64"), "sources");
}

/// The targets of `obj` (T,3), as sources_of reads sources (the evaluators' fp64 structure of
/// arrays).
field::Targets targets_of(const py::object& obj, int& conversions) {
  py::array a;
  if (float_matrix(obj, a)) {
    conversions = 1;
    return field::targets_from_strided(a.data(), dtype_of(a), std::size_t(a.shape(0)),
                                       std::size_t(a.shape(1)), a.strides(0), a.strides(1),
                                       "targets");
  }
  conversions = 2;
  return field::targets_from_npy(to_npy(obj, "targets", "float32 or float64"), "targets");
}

app::RunResult evaluate(FieldJob& job, Progress* progress, int& device) {
  const auto t0 = Clock::now();
  auto evaluator = field::make_evaluator(job.method, job.choice.backend);
  // CUDA DLPack results: the outputs stay where the evaluator computed them (no host copy).
  if (job.device_results && evaluator->keep_outputs_on_device(true)) device = evaluator->device();
  field::Result fr;
  evaluator->evaluate(job.sources, job.targets, job.options, fr, progress);
  app::RunResult r;
  r.workload = "field";
  r.params = job.params;
  r.backend = job.choice.backend;
  app::fill_field_result(r, fr, *evaluator, job.shape, job.sources.size());
  if (!job.unused.empty()) r.warnings.push_back(job.unused);
  r.total_seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return r;
}

}  // namespace

void bind_field(py::module_& m) {
  m.def(
      "field",
      [](const py::object& sources, const py::object& targets, const Settings& settings,
         const std::string& backend, const py::object& progress, bool device_results) {
        int source_conversions = 0, target_conversions = 0;
        FieldJob job = checked([&] {
          FieldJob j;
          j.params = params_from(field::schema(), settings);
          j.choice = backend_from(backend);
          j.options = field::options_from(j.params);
          j.method = field::method_from(j.params);
          j.device_results = device_results;
          j.sources = sources.is_none() ? field::make_sources(j.params)
                                        : sources_of(sources, source_conversions);
          if (targets.is_none()) {
            const field::Grid grid = field::grid_from(j.params);
            j.targets = field::make_targets(grid);
            j.shape = field::grid_shape(grid);
          } else {
            j.targets = targets_of(targets, target_conversions);
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
        const bool on_device = job.choice.backend == Backend::Cuda;
        int device = -1;
        app::RunResult r = call_released([&](Progress* p) { return evaluate(job, p, device); },
                                         progress, on_device);
        // How often each input array was copied on its way to the evaluator (1: the one
        // conversion into its layout; 2: a to_npy copy before it; 0: generated).
        r.stats["sources_conversions"] = source_conversions;
        r.stats["targets_conversions"] = target_conversions;
        return result_dict(std::move(r), job.choice.notice, device);
      },
      py::arg("sources"), py::arg("targets"), py::arg("settings"), py::arg("backend") = "auto",
      py::arg("progress") = py::none(), py::arg("device_results") = false,
      "The field workload on arrays (see simscope.field); returns the result dict.");
}

}  // namespace simscope::python
