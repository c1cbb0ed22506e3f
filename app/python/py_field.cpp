// simscope.field on arrays, evaluated by compute/field's evaluator.
// Inputs: sources (P,4)/(P,3) and targets (T,3), or the schema's generator and plane/box grid.
// fill_field_result builds the result, with the CLI's outputs, warnings and stats.
#include <pybind11/stl.h>

#include <chrono>
#include <optional>

#include "field/device_inputs.hpp"
#include "field/field.hpp"
#include "field/field_params.hpp"
#include "field/field_result.hpp"
#include "field/strided_inputs.hpp"
#include "py_arrays.hpp"
#include "py_call.hpp"
#include "py_dlpack.hpp"
#include "py_params.hpp"
#include "py_result.hpp"
#include "py_locale.hpp"

namespace simscope::python {

namespace {

using Clock = std::chrono::steady_clock;

/// What one call evaluates; built from the arguments with the GIL.
struct FieldJob {
  ParamSet params;
  BackendChoice choice;
  field::Sources sources;
  field::Targets targets;
  std::vector<std::size_t> shape;  ///< of each output: (T,) for given targets, else the grid's
  std::optional<field::Grid> grid;  ///< the grid of the targets, when they are the schema's
  field::Options options;
  field::Method method = field::Method::Direct;  ///< the schema's "method" (auto, direct, tree)
  bool device_results = false;  ///< leave the outputs in device memory (CUDA DLPack results)
  std::string unused;           ///< a warning about settings the arrays override, or ""
  /// CUDA inputs read in place by the direct CUDA evaluator (route "device").
  /// Views of the caller's DeviceArrays, alive for the call; null for host inputs.
  const DeviceView* device_sources = nullptr;
  const DeviceView* device_targets = nullptr;
  std::size_t source_count = 0;   ///< P, wherever the sources are
  double host_staging_bytes = 0;  ///< bytes of CUDA inputs copied to the host (route "staged")
};

/// `obj` as a DeviceArray (a CUDA array taken through DLPack), or null.
const DeviceArray* device_array(const py::object& obj) {
  return py::isinstance<DeviceArray>(obj) ? &obj.cast<const DeviceArray&>() : nullptr;
}

/// Whether `obj` is a 2-D numpy array of native-endian float32/float64 with any strides.
/// If so, stores it in `a` for sources_from_strided / targets_from_strided to read in place.
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

/// The sources of `obj` in the evaluators' layout, fp32 structure of arrays.
/// A float32/float64 2-D numpy array is converted once, in place through its strides. Anything
/// else goes through to_npy first, an extra copy. Checks and messages are
/// field::sources_from_npy's.
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

/// The (T,3) targets of `obj` in the evaluators' fp64 structure of arrays, read as sources_of does.
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

}  // namespace

/// How a field call takes its inputs:
///   - "host": no CUDA input.
///   - "device": CUDA inputs read in place by the direct CUDA evaluator
///     (Evaluator::evaluate_device).
///   - "staged": the method resolves to the tree, whose CUDA evaluator builds trees on the host.
///     Each CUDA input is copied to the host once, counted in stats["host_staging_bytes"].
/// `first_device_input` is the first CUDA input, sources before targets, or null.
/// Throws simscope::Error naming that argument when `backend` is not CUDA.
std::string field_route(Backend backend, const DeviceView* first_device_input, field::Method method,
                        std::size_t sources, std::size_t targets) {
  if (!first_device_input) return "host";
  require_cuda_backend(*first_device_input, backend);
  return field::resolve_method(method, Backend::Cuda, sources, targets) == field::Method::Direct
             ? "device"
             : "staged";
}

namespace {

app::RunResult evaluate(FieldJob& job, Progress* progress, int& device) {
  const auto t0 = Clock::now();
  // CUDA inputs (route "device"): the direct CUDA evaluator reads them in place.
  // method=auto resolves to it for them (field_route).
  const bool device_inputs = job.device_sources || job.device_targets;
  if (device_inputs)  // the caller's device (this is call_released's worker thread)
    cuda_select_device((job.device_sources ? job.device_sources : job.device_targets)->device);
  auto evaluator =
      field::make_evaluator(device_inputs ? field::Method::Direct : job.method, job.choice.backend);
  // CUDA DLPack results stay where the evaluator computed them.
  if (job.device_results && evaluator->keep_outputs_on_device(true)) device = evaluator->device();
  // On the schema's grid the tree measures its error on the error view's subgrid, as the CLI does.
  std::optional<field::ErrorSubgrid> sub;
  if (job.grid && !device_inputs) {
    sub = field::error_subgrid(*job.grid, int(job.params.get_int("tree.error_grid")),
                               job.source_count);
    job.options.error_targets = sub->targets;
  }
  field::Result fr;
  if (device_inputs)
    evaluator->evaluate_device(job.sources, job.targets, job.device_sources, job.device_targets,
                               job.options, fr, progress);
  else
    evaluator->evaluate(job.sources, job.targets, job.options, fr, progress);
  app::RunResult r;
  r.workload = "field";
  r.params = job.params;
  r.backend = job.choice.backend;
  app::fill_field_result(r, fr, *evaluator, job.shape, job.source_count);
  if (sub && fr.method == field::Method::Tree)
    app::add_error_outputs(fr, job.targets, job.options.error_targets,
                           app::error_shape(*job.grid, sub->m), r);
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
        const DeviceArray* dsrc = device_array(sources);
        const DeviceArray* dtgt = device_array(targets);
        std::string route = "host";
        FieldJob job = checked([&] {
          FieldJob j;
          j.params = params_from(field::schema(), settings);
          j.choice = backend_from(backend);
          j.options = field::options_from(j.params);
          j.method = field::method_from(j.params);
          j.device_results = device_results;
          // CUDA inputs: the views' checks first, with the host readers' messages, then the route.
          if (dsrc) field::check_sources_view(dsrc->view());
          if (dtgt) field::check_targets_view(dtgt->view());
          // P and T for method=auto's pair count; a host array's rows come from its shape.
          auto rows = [](const py::object& o, const DeviceArray* d) -> std::size_t {
            if (d) return d->view().shape[0];
            if (py::isinstance<py::array>(o) && o.cast<py::array>().ndim() >= 1)
              return std::size_t(o.cast<py::array>().shape(0));
            return 0;
          };
          field::Grid grid;
          std::size_t T = rows(targets, dtgt);
          if (targets.is_none()) {
            grid = field::grid_from(j.params);
            T = 1;
            for (std::size_t d : field::grid_shape(grid)) T *= d;
          }
          const std::size_t P0 = sources.is_none() ? std::size_t(j.params.get_int("sources.count"))
                                                   : rows(sources, dsrc);
          const DeviceView* first = dsrc ? &dsrc->view() : dtgt ? &dtgt->view() : nullptr;
          route = field_route(j.choice.backend, first, j.method, P0, T);
          if (dsrc) require_visible_device(dsrc->view());
          if (dtgt) require_visible_device(dtgt->view());
          auto staged = [&](const DeviceArray& a) {  // route "staged": one host copy
            py::array h = a.to_host();
            j.host_staging_bytes += double(h.nbytes());
            return py::object(h);
          };
          if (dsrc && route == "device")
            j.device_sources = &dsrc->view();
          else if (!sources.is_none())
            j.sources = sources_of(dsrc ? staged(*dsrc) : sources, source_conversions);
          else
            j.sources = field::make_sources(j.params);
          j.source_count = dsrc && route == "device" ? dsrc->view().shape[0] : j.sources.size();
          if (targets.is_none()) {
            j.grid = grid;
            j.targets = field::make_targets(grid);
            j.shape = field::grid_shape(grid);
          } else if (dtgt && route == "device") {
            j.device_targets = &dtgt->view();
            j.shape = {dtgt->view().shape[0]};
          } else {
            j.targets = targets_of(dtgt ? staged(*dtgt) : targets, target_conversions);
            j.shape = {j.targets.size()};
          }
          if (!sources.is_none())  // the generator's settings are not used then
            j.unused = unused_by_arrays(j.params, "sources are given as an array",
                                        {"sources.file", "sources.distribution", "sources.count",
                                         "sources.seed", "sources.half_width"});
          return j;
        });
        const bool on_device = job.choice.backend == Backend::Cuda;
        int device = -1;
        app::RunResult r = call_released([&](Progress* p) { return evaluate(job, p, device); },
                                         progress, on_device);
        // Copies of each input on its way to the evaluator: 1 is the conversion into its layout, 2
        // adds a to_npy copy, 0 means generated.
        r.stats["sources_conversions"] = source_conversions;
        r.stats["targets_conversions"] = target_conversions;
        // Bytes of CUDA inputs copied to the host: 0 on route "device", their size on "staged".
        // The result's "input_route" names the route.
        r.stats["host_staging_bytes"] = job.host_staging_bytes;
        py::dict d = result_dict(std::move(r), job.choice.notice, device);
        d["input_route"] = route;
        return d;
      },
      py::call_guard<CNumericLocale>(), py::arg("sources"), py::arg("targets"), py::arg("settings"), py::arg("backend") = "auto",
      py::arg("progress") = py::none(), py::arg("device_results") = false,
      "The field workload on arrays (see simscope.field); returns the result dict.");
  m.def(
      "_field_route",
      [](const py::object& first, const std::string& backend, const std::string& method,
         std::size_t sources, std::size_t targets) {
        return checked([&] {
          const DeviceArray* a = device_array(first);
          const Backend b = backend == "cuda" ? Backend::Cuda : Backend::Cpu;
          return field_route(b, a ? &a->view() : nullptr, field::method_from_string(method),
                             sources, targets);
        });
      },
      py::call_guard<CNumericLocale>(), py::arg("first_input"), py::arg("backend"), py::arg("method"), py::arg("sources"),
      py::arg("targets"),
      "For tests: field_route() (py_field.cpp) of a DeviceArray (or None) on backend \"cpu\" "
      "or \"cuda\" (not chosen: taken as given).");
}

}  // namespace simscope::python
