#pragma once
/// @file How the Python module runs a computation.
/// Work runs on a worker thread with the GIL released; the calling thread polls Ctrl+C and the
/// progress callback. simscope's errors become Python exceptions.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>

#include "arrays/vocabulary.hpp"
#include "params/c_numeric_locale.hpp"

namespace simscope::python {

namespace py = pybind11;

/// Rethrows computation exception `e` as the module's documented Python exception. Never returns.
///   - simscope::InputError -> ValueError: a bad input array, found on any back end.
///   - simscope::Error -> ValueError with the product's message; RuntimeError when `device` (a
///     CUDA run) or for a CUDA or device-memory failure; MemoryError when host memory could not be
///     allocated ("cannot allocate", "out of memory").
///   - std::bad_alloc -> MemoryError.
///   - anything else -> RuntimeError.
[[noreturn]] void rethrow_as_python(std::exception_ptr e, bool device);

/// Whether a progress callback takes info as its second argument (two positional parameters
/// without defaults, or *args, by inspect.signature; f(fraction, seen=[]) does not); false when
/// its signature cannot be read.
bool progress_takes_info(const py::object& callback);

/// The second argument of a progress callback: None until the rate is measured (app::project),
/// then {"rate": units per second or None, "unit": `unit` (e.g. "osc-steps") or None, "eta_s",
/// "total_s"}: the seconds left and the whole call's seconds at that rate.
py::object progress_info(double units, const std::string& unit, double f0, double t0, double f,
                         double t);

/// Runs `work(progress)` -> R on a new thread; the calling thread waits without the GIL.
/// Every 50 ms it takes the GIL to check signals (PyErr_CheckSignals) and call
/// `callback(fraction)`, or `callback(fraction, info)` when it takes a second argument
/// (progress_info; `units`: the call's work in `unit`s, the workload descriptor's work and
/// work_unit, 0 when not counted); a None
/// callback is skipped. A signal or a callback exception sets Progress::cancel. The computation
/// stops at its next check, and the Python exception (KeyboardInterrupt or the callback's) is
/// raised once the worker finishes. Computation errors are raised as rethrow_as_python(..,
/// device). The callback gets 1.0 at the end. `work` must not touch Python objects.
template <class F>
auto call_released(F&& work, const py::object& callback, bool device, double units = 0,
                   const std::string& unit = {}) {
  using R = decltype(work(static_cast<Progress*>(nullptr)));
  const bool info = !callback.is_none() && progress_takes_info(callback);
  const auto start = std::chrono::steady_clock::now();
  double f0 = -1, t0 = 0;
  const auto report = [&](double f) {
    if (!info) {
      callback(f);
      return;
    }
    const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (f0 < 0 && f > 0) f0 = f, t0 = t;
    callback(f, progress_info(units, unit, f0, t0, f, t));
  };
  Progress progress;
  std::optional<R> result;
  std::exception_ptr error;
  std::mutex m;
  std::condition_variable cv;
  bool done = false;
  std::thread worker([&] {
    const app::CNumericLocale c_numbers;  // the core's numbers in C format on this thread
    try {
      result.emplace(work(&progress));
    } catch (...) {
      error = std::current_exception();
    }
    {
      std::lock_guard<std::mutex> lock(m);
      done = true;
    }
    cv.notify_all();
  });
  auto stop = [&] {  // with the GIL held; returns with the worker joined
    progress.cancel.store(true);
    py::gil_scoped_release unlocked;
    worker.join();
  };
  for (;;) {
    {
      py::gil_scoped_release unlocked;
      std::unique_lock<std::mutex> lock(m);
      cv.wait_for(lock, std::chrono::milliseconds(50), [&] { return done; });
    }
    if (done) break;
    if (PyErr_CheckSignals() != 0) {
      py::error_already_set interrupt;  // KeyboardInterrupt (or the signal handler's error)
      stop();
      throw interrupt;
    }
    if (!callback.is_none()) {
      try {
        report(progress.fraction.load());
      } catch (...) {
        stop();
        throw;
      }
    }
  }
  {
    py::gil_scoped_release unlocked;
    worker.join();
  }
  if (error) rethrow_as_python(error, device);
  if (!callback.is_none()) report(1.0);
  return std::move(*result);
}

/// Runs `f()` with the GIL, for argument checks and input conversion.
/// Raises its simscope::Error as ValueError (rethrow_as_python).
template <class F>
auto checked(F&& f) {
  try {
    return f();
  } catch (const py::error_already_set&) {
    throw;
  } catch (const py::builtin_exception&) {
    throw;
  } catch (...) {
    rethrow_as_python(std::current_exception(), false);
  }
}

}  // namespace simscope::python
