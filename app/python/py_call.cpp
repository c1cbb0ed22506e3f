// simscope's errors as Python exceptions (py_call.hpp).
#include "py_call.hpp"

#include <new>
#include <stdexcept>

#include "job/projection.hpp"

namespace simscope::python {

[[noreturn]] void rethrow_as_python(std::exception_ptr e, bool device) {
  try {
    std::rethrow_exception(e);
  } catch (const InputError& err) {
    throw py::value_error(err.what());  // a bad input found by a (device) back end
  } catch (const Cancelled&) {
    throw std::runtime_error("cancelled");  // only call_released cancels, and it raises first
  } catch (const Error& err) {
    const std::string what = err.what();
    const bool device_failure = what.find("CUDA error") != std::string::npos ||
                                what.find("device memory") != std::string::npos ||
                                what.find("no usable CUDA device") != std::string::npos;
    if (device || device_failure) throw std::runtime_error(what);
    // Failed host allocations raise MemoryError, like std::bad_alloc.
    // Loaders' and generators' messages name the size.
    if (what.find("cannot allocate") != std::string::npos ||
        what.find("out of memory") != std::string::npos) {
      PyErr_SetString(PyExc_MemoryError, what.c_str());
      throw py::error_already_set();
    }
    throw py::value_error(what);
  } catch (const std::bad_alloc&) {
    throw std::bad_alloc();  // pybind11 raises MemoryError
  } catch (const py::error_already_set&) {
    throw;
  } catch (const py::builtin_exception&) {
    throw;
  } catch (const std::exception& other) {
    throw std::runtime_error(other.what());
  }
}

bool progress_takes_info(const py::object& callback) {
  try {
    const py::module_ inspect = py::module_::import("inspect");
    const py::object sig = inspect.attr("signature")(callback);
    const py::object empty = inspect.attr("Parameter").attr("empty");
    int required = 0;  // positional parameters without a default: f(fraction, info)
    for (const py::handle p : sig.attr("parameters").attr("values")()) {
      const std::string kind = py::str(p.attr("kind").attr("name"));
      if (kind == "VAR_POSITIONAL") return true;
      // A second parameter with a default (f(fraction, seen=[]), state kept between calls) is
      // the caller's own, not a place for info.
      const py::object fallback = p.attr("default");
      if ((kind == "POSITIONAL_ONLY" || kind == "POSITIONAL_OR_KEYWORD") && fallback.is(empty))
        ++required;
    }
    return required >= 2;
  } catch (const py::error_already_set&) {
    return false;  // e.g. a builtin without a signature: called with the fraction only
  }
}

py::object progress_info(double units, const std::string& unit, double f0, double t0, double f,
                         double t) {
  const auto p = app::project(units > 0 ? units : 1.0, f0, t0, f, t);
  if (!p) return py::none();
  py::dict d;
  d["rate"] = units > 0 ? py::object(py::float_(p->rate)) : py::object(py::none());
  d["unit"] = units > 0 ? py::object(py::str(unit)) : py::object(py::none());
  d["eta_s"] = p->eta_s;
  d["total_s"] = p->total_s;
  return d;
}

}  // namespace simscope::python
