#pragma once
/// @file Progress reporting and cooperative cancellation for long computations.
#include <atomic>

#include "core/error.hpp"

namespace simscope {

/// Shared by a worker thread, which writes `fraction` and polls `cancel`, and the UI thread,
/// which reads `fraction` and sets `cancel`. All members are atomic. One instance per running job.
struct Progress {
  std::atomic<double> fraction{0.0};  ///< 0..1 of the job done
  std::atomic<bool> cancel{false};    ///< set by the owner to request a stop

  /// Throws simscope::Cancelled when cancellation was requested. Call between work chunks.
  void check() const {
    if (cancel.load(std::memory_order_relaxed)) throw Cancelled();
  }
  void set(double f) { fraction.store(f, std::memory_order_relaxed); }
};

/// Null-safe helpers for optional Progress pointers.
inline void progress_check(const Progress* p) {
  if (p) p->check();
}
inline void progress_set(Progress* p, double f) {
  if (p) p->set(f);
}

}  // namespace simscope
