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

#include "core/error.hpp"
#include "core/progress.hpp"
#include "py_locale.hpp"

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

/// Runs `work(progress)` -> R on a new thread; the calling thread waits without the GIL.
/// Every 50 ms it takes the GIL to check signals (PyErr_CheckSignals) and call
/// `callback(fraction)`; a None callback is skipped. A signal or a callback exception sets
/// Progress::cancel. The computation stops at its next check, and the Python exception
/// (KeyboardInterrupt or the callback's) is raised once the worker finishes. Computation errors are
/// raised as rethrow_as_python(.., device). The callback gets 1.0 at the end. `work` must not touch
/// Python objects.
template <class F>
auto call_released(F&& work, const py::object& callback, bool device) {
  using R = decltype(work(static_cast<Progress*>(nullptr)));
  Progress progress;
  std::optional<R> result;
  std::exception_ptr error;
  std::mutex m;
  std::condition_variable cv;
  bool done = false;
  std::thread worker([&] {
    const CNumericLocale c_numbers;  // the core's numbers in C format on this thread
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
        callback(progress.fraction.load());
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
  if (!callback.is_none()) callback(1.0);
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
