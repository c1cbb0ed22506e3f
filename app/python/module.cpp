// simscope._core: the run library (simscope_run) for Python.
// The public API, with keyword arguments and docstrings, is simscope/__init__.py.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "arrays/vocabulary.hpp"

namespace simscope::python {
namespace py = pybind11;
void bind_params(py::module_& m);
void bind_run(py::module_& m);
void bind_field(py::module_& m);
void bind_lsq(py::module_& m);
void bind_oscillators(py::module_& m);
void bind_dlpack(py::module_& m);
}  // namespace simscope::python

PYBIND11_MODULE(_core, m) {
  namespace sp = simscope::python;
  m.doc() = "simscope's run library (compiled part; use the simscope package)";
  m.attr("version") = SIMSCOPE_VERSION;
  m.def(
      "cuda_status",
      [] {
        const simscope::CudaStatus& s = simscope::cuda_status();
        pybind11::dict d;
        d["compiled"] = s.compiled;
        d["usable"] = s.usable;
        d["device"] = s.device;
        d["reason"] = s.reason;
        d["total_bytes"] = s.total_bytes;
        return d;
      },
      "What the CUDA runtime reports: compiled, usable, device, reason, total_bytes.");
  m.def(
      "cpu_kernels",
      [] {
        pybind11::dict d;
        try {
          d["level"] = simscope::isa_name(simscope::isa_level());
          d["chosen_by"] = simscope::isa_chosen_by();
        } catch (const simscope::Error& e) {
          throw pybind11::value_error(e.what());
        }
        pybind11::list built;
        for (simscope::IsaLevel l : simscope::built_isa_levels())
          built.append(simscope::isa_name(l));
        d["built"] = built;
        return d;
      },
      "The CPU kernels' level: level, chosen_by, built (core/isa.hpp).");
  sp::bind_params(m);
  sp::bind_run(m);
  sp::bind_field(m);
  sp::bind_lsq(m);
  sp::bind_oscillators(m);
  sp::bind_dlpack(m);
}
