// A run's result for Python, and the generic run() (py_result.hpp).
#include "py_result.hpp"

#include "params/c_numeric_locale.hpp"
#include "py_arrays.hpp"
#include "py_call.hpp"
#include "py_dlpack.hpp"
#include "py_params.hpp"
#include "workload.hpp"

namespace simscope::python {

py::dict result_dict(app::RunResult&& r, const std::string& notice, int device) {
  py::dict d, outputs, stats;
  for (app::OutputArray& o : r.outputs) {
    const std::string name = o.name;
    if (device >= 0 && o.data.device_bytes() && !o.data.host_ready() &&
        o.data.dtype() == o.dtype)
      outputs[py::str(name)] = dlpack_of_device(o.data, o.shape, device);
    else
      outputs[py::str(name)] = numpy_of(std::move(o));
  }
  for (const auto& [k, v] : r.stats) stats[py::str(k)] = v;
  for (const auto& [k, v] : r.stat_texts) stats[py::str(k)] = py::str(v);
  d["workload"] = r.workload;
  d["outputs"] = outputs;
  d["warnings"] = r.warnings;
  d["stats"] = stats;
  d["backend"] = std::string(to_string(r.backend));
  d["notice"] = notice;
  d["compute_seconds"] = r.compute_seconds;
  d["total_seconds"] = r.total_seconds;
  d["params"] = r.params.has_schema() ? params_dict(r.params) : py::dict();
  return d;
}

void bind_run(py::module_& m) {
  m.def(
      "run",
      [](const std::string& workload, const Settings& settings, const std::string& backend,
         const py::object& progress, const std::string& command) {
        auto [wl, params, choice] = checked([&] {
          auto w = app::make_workload(workload);
          ParamSet p = params_from(w->schema(), settings);
          w->check_params(p);  // what headless refuses before computing (view=error, direct)
          return std::make_tuple(std::move(w), std::move(p), backend_from(backend));
        });
        app::RunRequest request;
        request.command = checked([&] { return app::parse_run_command(command); });
        // A whole run's work (e.g. a study's K N steps) from the workload's descriptor, for the
        // callback's rate (py_call.hpp).
        const app::WorkloadDescriptor& described = app::workload_descriptor(workload);
        const bool whole = request.command == app::RunCommand::Whole ||
                           request.command == app::RunCommand::Study;
        const double units = whole && described.work ? described.work(params) : 0.0;
        app::RunResult r = call_released(
            [&, &wl = wl, &params = params, &choice = choice](Progress* pr) {
              return wl->run(params, choice.backend, request, pr);
            },
            progress, false, units, described.work_unit);
        return result_dict(std::move(r), choice.notice);
      },
      py::call_guard<app::CNumericLocale>(), py::arg("workload"), py::arg("settings"), py::arg("backend") = "auto",
      py::arg("progress") = py::none(), py::arg("command") = "",
      "Runs `workload` with the (name, text) settings as the headless CLI does; returns the "
      "result dict (see simscope.run).");
}

}  // namespace simscope::python
