// simscope.lsq on numpy arrays (or a CUDA cube): the arrays handed to the run layer's lsq entry
// point (app/run/lsq/lsq_arrays.hpp), its result as the module's dict.
#include <pybind11/stl.h>

#include "lsq/lsq_arrays.hpp"
#include "params/c_numeric_locale.hpp"
#include "py_arrays.hpp"
#include "py_call.hpp"
#include "py_result.hpp"

namespace simscope::python {

namespace {

/// The cube of `obj`: its DeviceArray's view; borrowed in place when it is (or numpy.asarray
/// makes it) a C-contiguous, aligned, native-endian float32/float64 array of 3 dimensions
/// (`keep` then holds it for the call); else a C-order copy (to_npy).
app::ArrayInput cube_input(const py::object& obj, py::object& keep) {
  if (const DeviceArray* d = device_array(obj)) return device_input(*d);
  py::array a = py::array::ensure(obj);
  if (a && a.ndim() == 3 && (a.flags() & py::array::c_style) &&
      (a.flags() & py::detail::npy_api::NPY_ARRAY_ALIGNED_) &&
      a.dtype().attr("byteorder").cast<std::string>() != ">" && a.dtype().kind() == 'f' &&
      (a.itemsize() == 4 || a.itemsize() == 8)) {
    keep = a;
    return in_place_input(a);
  }
  return copy_input(obj, "cube", "float32 or float64");
}

}  // namespace

void bind_lsq(py::module_& m) {
  m.def(
      "lsq",
      [](const py::object& cube, const py::object& design, const app::Settings& settings,
         const std::string& backend, const py::object& progress, bool device_results) {
        py::object keep;  // the numpy array a borrowed cube reads, alive for the call
        auto call = checked([&] {
          auto c = std::make_unique<app::LsqArrays>(settings, backend, device_results);
          app::ArrayInput c_in = cube_input(cube, keep);
          app::ArrayInput d_in =
              copy_input(design, "design", "float32, float64, int32, int64 or uint8");
          c->take(std::move(c_in), d_in);
          return c;
        });
        call_released(
            [&](Progress* p) {
              call->solve(p);
              return 0;
            },
            progress, call->choice().backend == Backend::Cuda);
        app::RunResult r = call->result();
        py::dict d = result_dict(std::move(r), call->choice().notice, call->results_device());
        d["input_route"] = call->input_route();
        return d;
      },
      py::call_guard<app::CNumericLocale>(), py::arg("cube"), py::arg("design"),
      py::arg("settings"), py::arg("backend") = "auto", py::arg("progress") = py::none(),
      py::arg("device_results") = false,
      "The lsq workload on arrays (see simscope.lsq); returns the result dict.");
}

}  // namespace simscope::python
