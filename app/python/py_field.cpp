// simscope.field on arrays (numpy or CUDA), and simscope.Sources: a source set kept with its
// evaluator (the source tree) across calls; the arrays handed to the run layer's entry points
// (app/run/field/field_arrays.hpp), their results as the module's dicts.
#include <pybind11/stl.h>

#include <memory>
#include <mutex>
#include <string>

#include "field/field_arrays.hpp"
#include "params/c_numeric_locale.hpp"
#include "py_arrays.hpp"
#include "py_call.hpp"
#include "py_dlpack.hpp"
#include "py_result.hpp"

namespace simscope::python {

namespace {

/// `obj` as the sources or targets of a call: None, a DeviceArray's view, a 2-D
/// float32/float64 numpy array read in place through its strides, else a C-order copy.
app::ArrayInput points_input(const py::object& obj, const std::string& name) {
  return matrix_input(obj, name, "float32 or float64");
}

/// `charges` as a call takes them: None, or a numpy array of float32/float64 (any shape and
/// strides: the run layer checks (P,)). Throws simscope::Error naming "charges" otherwise.
app::ArrayInput charges_input(const py::object& charges) {
  if (charges.is_none()) return {};
  if (!py::isinstance<py::array>(charges))
    throw Error("charges: expected a numpy array of shape (P,), float32 or float64");
  const auto a = py::reinterpret_borrow<py::array>(charges);
  const py::dtype d = a.dtype();
  if (d.kind() != 'f' || (d.itemsize() != 4 && d.itemsize() != 8) ||
      d.attr("byteorder").cast<std::string>() == ">")
    throw Error("charges: dtype " + std::string(py::str(py::handle(d))) +
                " is not supported; expected float32 or float64");
  return in_place_input(a);
}

/// Evaluates `call` (taken) with the GIL released; the result dict with the call's route.
py::dict evaluated(app::FieldArrays& call, const py::object& progress) {
  call_released(
      [&](Progress* p) {
        call.evaluate(p);
        return 0;
      },
      progress, call.choice().backend == Backend::Cuda);
  py::dict d = result_dict(call.result(), call.choice().notice, call.results_device());
  d["input_route"] = call.route();
  return d;
}

/// simscope.Sources' compiled part: app::KeptSources, one call at a time (another thread's call
/// raises RuntimeError while one runs).
class FieldSources {
 public:
  FieldSources(const py::object& sources, const py::object& charges) {
    kept_ = checked([&] {
      if (sources.is_none())
        throw Error("sources: expected an array (P,4), or (P,3) positions");
      const app::ArrayInput s = points_input(sources, "sources");
      return std::make_unique<app::KeptSources>(s, charges_input(charges));
    });
  }

  py::dict field(const py::object& targets, const app::Settings& settings,
                 const std::string& backend, const py::object& progress, bool device_results) {
    std::unique_lock<std::mutex> lock(busy_, std::try_to_lock);
    if (!lock.owns_lock())
      throw std::runtime_error("Sources: another thread is evaluating its field");
    auto call = checked([&] {
      auto c = std::make_unique<app::FieldArrays>(settings, backend, device_results);
      c->take({}, {}, kept_.get(), points_input(targets, "targets"));
      return c;
    });
    return evaluated(*call, progress);
  }

  void release() {
    std::unique_lock<std::mutex> lock(busy_, std::try_to_lock);
    if (!lock.owns_lock())
      throw std::runtime_error("Sources: another thread is evaluating its field");
    kept_->release();
  }

  std::size_t size() const { return kept_->size(); }
  int conversions() const { return kept_->conversions(); }
  double staging_bytes() const { return kept_->staging_bytes(); }
  py::array positions() const { return numpy_from(kept_->positions(), {kept_->size(), 3}); }
  py::array charges() const {
    std::vector<float> q = kept_->charges();
    return numpy_from(std::move(q), {kept_->size()});
  }

 private:
  std::unique_ptr<app::KeptSources> kept_;
  std::mutex busy_;
};

}  // namespace

void bind_field(py::module_& m) {
  m.def(
      "field",
      [](const py::object& sources, const py::object& targets, const app::Settings& settings,
         const std::string& backend, const py::object& progress, bool device_results,
         const py::object& charges) {
        auto call = checked([&] {
          auto c = std::make_unique<app::FieldArrays>(settings, backend, device_results);
          const app::ArrayInput s = points_input(sources, "sources");
          const app::ArrayInput t = points_input(targets, "targets");
          c->take(s, charges_input(charges), nullptr, t);
          return c;
        });
        return evaluated(*call, progress);
      },
      py::call_guard<app::CNumericLocale>(), py::arg("sources"), py::arg("targets"),
      py::arg("settings"), py::arg("backend") = "auto", py::arg("progress") = py::none(),
      py::arg("device_results") = false, py::arg("charges") = py::none(),
      "The field workload on arrays (see simscope.field); returns the result dict.");
  py::class_<FieldSources>(m, "FieldSources",
                           "A source set kept with its evaluator and tree (see simscope.Sources).")
      .def(py::init<const py::object&, const py::object&>(),
           py::call_guard<app::CNumericLocale>(), py::arg("sources"),
           py::arg("charges") = py::none())
      .def("field", &FieldSources::field, py::call_guard<app::CNumericLocale>(),
           py::arg("targets"), py::arg("settings"), py::arg("backend") = "auto",
           py::arg("progress") = py::none(), py::arg("device_results") = false)
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
          return app::field_route(b, a ? &a->view() : nullptr, method,
                                  sources, targets);
        });
      },
      py::call_guard<app::CNumericLocale>(), py::arg("first_input"), py::arg("backend"),
      py::arg("method"), py::arg("sources"), py::arg("targets"),
      "For tests: app::field_route() (app/run/field/field_arrays.hpp) of a DeviceArray (or "
      "None) on backend \"cpu\" or \"cuda\" (not chosen: taken as given).");
}

}  // namespace simscope::python
