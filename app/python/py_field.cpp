// simscope.field on arrays, evaluated by compute/field's evaluator, and simscope.Sources: a
// source set kept with its evaluator (the source tree) across calls, as the app's field workload
// keeps its sources and evaluator between runs.
// Inputs: sources (P,4)/(P,3) (with charges (P,) beside (P,3)) and targets (T,3), or the
// schema's generator and plane/box grid.
// fill_field_result builds the result, with the CLI's outputs, warnings and stats.
#include <pybind11/stl.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "field/device_inputs.hpp"
#include "field/field.hpp"
#include "field/field_params.hpp"
#include "field/field_targets.hpp"
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
  /// The sources of a Sources object (held across calls), or null: `sources`.
  const field::Sources* held = nullptr;
  field::Targets targets;
  std::vector<std::size_t> shape;  ///< of each output: (T,) for given targets, else the grid's
  std::optional<field::Grid> grid;  ///< the grid of the targets, when they are the schema's
  field::Options options;
  field::Method method = field::Method::Direct;  ///< the schema's "method" (auto, direct, tree)
  bool device_results = false;  ///< leave the outputs in device memory (CUDA DLPack results)
  std::vector<std::string> unused;  ///< warnings about settings the arrays override
  /// CUDA inputs read in place by the direct CUDA evaluator (route "device").
  /// Views of the caller's DeviceArrays, alive for the call; null for host inputs.
  const DeviceView* device_sources = nullptr;
  const DeviceView* device_targets = nullptr;
  std::size_t source_count = 0;   ///< P, wherever the sources are
  double host_staging_bytes = 0;  ///< bytes of CUDA inputs copied to the host (route "staged")
  const field::Sources& host_sources() const { return held ? *held : sources; }
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

/// Sets the q of `s` from `charges`, a numpy array (P,) of float32/float64 (any stride), with
/// the checks of a source array's column q. Throws simscope::Error naming "charges".
void set_charges(field::Sources& s, const py::object& charges) {
  if (!py::isinstance<py::array>(charges))
    throw Error("charges: expected a numpy array of shape (P,), float32 or float64");
  const auto a = py::reinterpret_borrow<py::array>(charges);
  const py::dtype d = a.dtype();
  if (d.kind() != 'f' || (d.itemsize() != 4 && d.itemsize() != 8) ||
      d.attr("byteorder").cast<std::string>() == ">")
    throw Error("charges: dtype " + std::string(py::str(py::handle(d))) +
                " is not supported; expected float32 or float64");
  const std::size_t P = s.size();
  if (a.ndim() != 1 || std::size_t(a.shape(0)) != P)
    throw Error("charges: expected (P,) = (" + std::to_string(P) + ",), got " +
                std::string(py::str(a.attr("shape"))));  // numpy's own text: "(999, 2)"
  field::charges_from_strided(s, a.data(), dtype_of(a), a.strides(0), "charges");
}

/// The sources of `obj` in the evaluators' layout, fp32 structure of arrays. With `charges`
/// (not None: a numpy array (P,), float32/float64), `obj` must be (P,3) positions and q comes
/// from them.
/// A float32/float64 2-D numpy array is converted once, in place through its strides. Anything
/// else goes through to_npy first, an extra copy. Checks and messages are
/// field::sources_from_npy's.
field::Sources sources_of(const py::object& obj, int& conversions, const py::object& charges) {
  py::array a;
  field::Sources s;
  std::size_t cols = 0;
  if (float_matrix(obj, a)) {
    conversions = 1;
    cols = std::size_t(a.shape(1));
    if (charges.is_none() || cols != 4)  // (P,4) with charges: refused below, before reading
      s = field::sources_from_strided(a.data(), dtype_of(a), std::size_t(a.shape(0)), cols,
                                      a.strides(0), a.strides(1), "sources");
  } else {
    conversions = 2;
    const io::NpyArray n = to_npy(obj, "sources", "float32 or float64");
    cols = n.shape.size() == 2 ? n.shape[1] : 0;
    if (charges.is_none() || cols != 4) s = field::sources_from_npy(n, "sources");
  }
  if (!charges.is_none()) {
    if (cols == 4)
      throw Error(
          "sources: a (P,4) array holds the charges in its column q, and charges= gives them "
          "too: pass (P,3) positions with charges=, or the (P,4) array alone");
    set_charges(s, charges);
  }
  return s;
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

/// Evaluates `job` with `kept` (a Sources object's evaluator, kept across calls) or, when null
/// or for CUDA inputs read in place (the direct CUDA evaluator's evaluate_device), a new one.
app::RunResult evaluate(FieldJob& job, Progress* progress, int& device, field::Evaluator* kept) {
  const auto t0 = Clock::now();
  // CUDA inputs (route "device"): the direct CUDA evaluator reads them in place.
  // method=auto resolves to it for them (field_route).
  const bool device_inputs = job.device_sources || job.device_targets;
  if (device_inputs)  // the caller's device (this is call_released's worker thread)
    cuda_select_device((job.device_sources ? job.device_sources : job.device_targets)->device);
  std::unique_ptr<field::Evaluator> fresh;
  field::Evaluator* evaluator = device_inputs ? nullptr : kept;
  if (!evaluator) {
    fresh = field::make_evaluator(device_inputs ? field::Method::Direct : job.method,
                                  job.choice.backend);
    evaluator = fresh.get();
  }
  // CUDA DLPack results stay where the evaluator computed them.
  if (job.device_results && evaluator->keep_outputs_on_device(true))
    device = evaluator->device();
  else if (evaluator == kept)
    evaluator->keep_outputs_on_device(false);  // an earlier call's choice does not hold
  // On the schema's grid the tree measures its error on the error view's subgrid, as the CLI does.
  std::optional<field::ErrorSubgrid> sub;
  if (job.grid && !device_inputs) {
    sub = field::error_subgrid(*job.grid, int(job.params.get_int("tree.error_grid")),
                               job.source_count);
    job.options.error_targets = sub->targets;
  }
  field::Result fr;
  if (device_inputs)
    evaluator->evaluate_device(job.host_sources(), job.targets, job.device_sources,
                               job.device_targets, job.options, fr, progress);
  else
    evaluator->evaluate(job.host_sources(), job.targets, job.options, fr, progress);
  app::RunResult r;
  r.workload = "field";
  r.params = job.params;
  r.backend = job.choice.backend;
  app::fill_field_result(r, fr, *evaluator, job.shape, job.source_count);
  if (sub && fr.method == field::Method::Tree)
    app::add_error_outputs(fr, job.targets, job.options.error_targets,
                           app::error_shape(*job.grid, sub->m), r);
  // Whether the source tree of an earlier call served (a Sources object's): 1, or 0 when this
  // call built it. A Python key (run.json's headless runs always build).
  if (fr.method == field::Method::Tree) r.stats["tree_kept"] = fr.tree.tree_kept ? 1 : 0;
  r.warnings.insert(r.warnings.end(), job.unused.begin(), job.unused.end());
  r.total_seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return r;
}

/// The job of one call, checked and converted with the GIL: `sources` (an array, a DeviceArray
/// or None for the schema's generator) with `charges` (None or a numpy array (P,)), or `held`
/// (a Sources object's set; `sources` is then None), and `targets` (an array, a DeviceArray or
/// None for the schema's grid). Sets the conversion counts and the route.
FieldJob make_job(const py::object& sources, const py::object& charges,
                  const field::Sources* held, const py::object& targets,
                  const Settings& settings, const std::string& backend, bool device_results,
                  int& source_conversions, int& target_conversions, std::string& route) {
  const DeviceArray* dsrc = device_array(sources);
  const DeviceArray* dtgt = device_array(targets);
  return checked([&] {
    FieldJob j;
    j.params = params_from(field::schema(), settings);
    j.choice = backend_from(backend);
    j.options = field::options_from(j.params);
    j.method = field::method_from(j.params);
    j.device_results = device_results;
    j.held = held;
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
    std::size_t T = rows(targets, dtgt);
    if (targets.is_none()) {  // the schema's plane or box, or targets.file
      T = 1;
      for (std::size_t d : field::target_shape(j.params)) T *= d;
    }
    const std::size_t P0 = held                ? held->size()
                           : sources.is_none() ? std::size_t(j.params.get_int("sources.count"))
                                               : rows(sources, dsrc);
    const DeviceView* first = dsrc ? &dsrc->view() : dtgt ? &dtgt->view() : nullptr;
    route = field_route(j.choice.backend, first, j.method, P0, T);
    // CUDA positions with charges=: both are read on the host, as the tree reads its inputs.
    if (dsrc && !charges.is_none()) route = "staged";
    if (dsrc) require_visible_device(dsrc->view());
    if (dtgt) require_visible_device(dtgt->view());
    auto staged = [&](const DeviceArray& a) {  // route "staged": one host copy
      py::array h = a.to_host();
      j.host_staging_bytes += double(h.nbytes());
      return py::object(h);
    };
    if (!held) {  // else the Sources object's set
      if (dsrc && route == "device")
        j.device_sources = &dsrc->view();
      else if (!sources.is_none())
        j.sources = sources_of(dsrc ? staged(*dsrc) : sources, source_conversions, charges);
      else if (!charges.is_none())
        throw Error("charges: given without sources (pass (P,3) positions with charges=)");
      else
        j.sources = field::make_sources(j.params);
    }
    j.source_count =
        dsrc && route == "device" ? dsrc->view().shape[0] : j.host_sources().size();
    if (targets.is_none()) {
      field::TargetSet ts = field::target_set(j.params);
      j.grid = ts.grid;
      j.targets = std::move(ts.targets);
      j.shape = std::move(ts.shape);
    } else if (dtgt && route == "device") {
      j.device_targets = &dtgt->view();
      j.shape = {dtgt->view().shape[0]};
    } else {
      j.targets = targets_of(dtgt ? staged(*dtgt) : targets, target_conversions);
      j.shape = {j.targets.size()};
    }
    // Settings that the arrays replace are not used.
    std::vector<std::string> unused;
    if (held || !sources.is_none())
      unused.push_back(unused_by_arrays(j.params, "sources are given as an array",
                                        {"sources.file", "sources.distribution", "sources.count",
                                         "sources.seed", "sources.half_width"}));
    if (!targets.is_none())
      unused.push_back(unused_by_arrays(j.params, "targets are given as an array",
                                        {"targets.file", "plane", "plane.offset", "grid.size",
                                         "grid.half_width", "tree.error_grid"}));
    for (std::string& u : unused)
      if (!u.empty()) j.unused.push_back(std::move(u));
    return j;
  });
}

/// The result dict of a call: result_dict with the stats of how the inputs came in and the route.
py::dict field_dict(app::RunResult r, const FieldJob& job, int source_conversions,
                    int target_conversions, const std::string& route, int device) {
  // Copies of each input on its way to the evaluator: 1 is the conversion into its layout, 2
  // adds a to_npy copy, 0 means generated (or held by a Sources object).
  r.stats["sources_conversions"] = source_conversions;
  r.stats["targets_conversions"] = target_conversions;
  // Bytes of CUDA inputs copied to the host: 0 on route "device", their size on "staged".
  // The result's "input_route" names the route.
  r.stats["host_staging_bytes"] = job.host_staging_bytes;
  py::dict d = result_dict(std::move(r), job.choice.notice, device);
  d["input_route"] = route;
  return d;
}

/// A source set kept across field evaluations with its evaluator, and so with the source tree
/// the tree method builds (compute/field/tree: kept while the set's Sources::generation is the
/// same), as the app's field workload keeps its sources and evaluator between runs. The
/// evaluator is made again when a call asks for another method or back end (which drops the
/// tree). Each call restarts the tree's ladder (Options::restart_ladder), so its outputs equal a
/// new simscope.field call's bit for bit. One call at a time; another thread's call raises
/// RuntimeError while one runs.
class FieldSources {
 public:
  /// `sources` (P,4)/(P,3) as simscope.field reads them, with `charges` (None, or (P,) beside
  /// (P,3)); a DeviceArray is copied to the host once (staging_bytes).
  FieldSources(const py::object& sources, const py::object& charges) {
    checked([&] {
      if (sources.is_none()) throw Error("sources: expected an array (P,4), or (P,3) positions");
      py::object host = sources;
      if (const DeviceArray* d = device_array(sources)) {
        field::check_sources_view(d->view());
        py::array h = d->to_host();
        staging_bytes_ = double(h.nbytes());
        host = h;
      }
      sources_ = sources_of(host, conversions_, charges);
      return 0;
    });
  }

  py::dict field(const py::object& targets, const Settings& settings, const std::string& backend,
                 const py::object& progress, bool device_results) {
    std::unique_lock<std::mutex> lock(busy_, std::try_to_lock);
    if (!lock.owns_lock())
      throw std::runtime_error("Sources: another thread is evaluating its field");
    int target_conversions = 0, unused_conversions = 0;
    std::string route;
    FieldJob job = make_job(py::none(), py::none(), &sources_, targets, settings, backend,
                            device_results, unused_conversions, target_conversions, route);
    job.options.restart_ladder = true;  // each call as a new evaluator evaluates it
    checked([&] {
      // The app's rule (field_workload.cpp): another method or back end, another evaluator.
      if (!evaluator_ || evaluator_->backend() != job.choice.backend ||
          evaluator_->method() != job.method) {
        evaluator_.reset();  // free the old tree first
        evaluator_ = field::make_evaluator(job.method, job.choice.backend);
      }
      return 0;
    });
    const bool on_device = job.choice.backend == Backend::Cuda;
    int device = -1;
    app::RunResult r = call_released(
        [&](Progress* p) { return evaluate(job, p, device, evaluator_.get()); }, progress,
        on_device);
    return field_dict(std::move(r), job, 0, target_conversions, route, device);
  }

  /// Drops the evaluator and its tree (the next call builds it again).
  void release() {
    std::unique_lock<std::mutex> lock(busy_, std::try_to_lock);
    if (!lock.owns_lock())
      throw std::runtime_error("Sources: another thread is evaluating its field");
    evaluator_.reset();
  }

  std::size_t size() const { return sources_.size(); }
  int conversions() const { return conversions_; }
  double staging_bytes() const { return staging_bytes_; }
  py::array positions() const {
    std::vector<float> v(3 * sources_.size());
    for (std::size_t i = 0; i < sources_.size(); ++i)
      v[3 * i] = sources_.x[i], v[3 * i + 1] = sources_.y[i], v[3 * i + 2] = sources_.z[i];
    return numpy_from(std::move(v), {sources_.size(), 3});
  }
  py::array charges() const {
    std::vector<float> q = sources_.q;
    return numpy_from(std::move(q), {sources_.size()});
  }

 private:
  field::Sources sources_;
  int conversions_ = 0;
  double staging_bytes_ = 0;
  std::unique_ptr<field::Evaluator> evaluator_;
  std::mutex busy_;
};

}  // namespace

void bind_field(py::module_& m) {
  m.def(
      "field",
      [](const py::object& sources, const py::object& targets, const Settings& settings,
         const std::string& backend, const py::object& progress, bool device_results,
         const py::object& charges) {
        int source_conversions = 0, target_conversions = 0;
        std::string route = "host";
        FieldJob job = make_job(sources, charges, nullptr, targets, settings, backend,
                                device_results, source_conversions, target_conversions, route);
        const bool on_device = job.choice.backend == Backend::Cuda;
        int device = -1;
        app::RunResult r = call_released(
            [&](Progress* p) { return evaluate(job, p, device, nullptr); }, progress, on_device);
        return field_dict(std::move(r), job, source_conversions, target_conversions, route,
                          device);
      },
      py::call_guard<CNumericLocale>(), py::arg("sources"), py::arg("targets"), py::arg("settings"), py::arg("backend") = "auto",
      py::arg("progress") = py::none(), py::arg("device_results") = false,
      py::arg("charges") = py::none(),
      "The field workload on arrays (see simscope.field); returns the result dict.");
  py::class_<FieldSources>(m, "FieldSources",
                           "A source set kept with its evaluator and tree (see simscope.Sources).")
      .def(py::init<const py::object&, const py::object&>(), py::call_guard<CNumericLocale>(),
           py::arg("sources"), py::arg("charges") = py::none())
      .def("field", &FieldSources::field, py::call_guard<CNumericLocale>(), py::arg("targets"),
           py::arg("settings"), py::arg("backend") = "auto", py::arg("progress") = py::none(),
           py::arg("device_results") = false)
      .def("release", &FieldSources::release)
      .def_property_readonly("size", &FieldSources::size)
      .def_property_readonly("conversions", &FieldSources::conversions)
      .def_property_readonly("staging_bytes", &FieldSources::staging_bytes)
      .def_property_readonly("positions", &FieldSources::positions)
      .def_property_readonly("charges", &FieldSources::charges);
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
