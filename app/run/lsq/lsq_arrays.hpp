#pragma once
/// @file The lsq workload on a caller's arrays (simscope.lsq): a cube (M, H, W) with NaN gaps and
/// a design matrix (M, N), solved by compute/lsq's solver, with the CLI's outputs, warnings and
/// stats (lsq_result.hpp).
#include <chrono>
#include <memory>
#include <string>

#include "arrays/array_input.hpp"
#include "arrays/call_settings.hpp"
#include "lsq/lsq.hpp"
#include "lsq_device.hpp"
#include "workload.hpp"

namespace simscope::app {

/// One call: made and given its arrays on the caller's thread, solved on a worker (solve), its
/// result taken once (result).
class LsqArrays {
 public:
  /// The call's parameters and back end; throws simscope::Error with the CLI's messages.
  /// `device_results`: leave the maps in device memory when the CUDA solver computes them (the
  /// caller gave CUDA arrays).
  LsqArrays(const Settings& settings, const std::string& backend, bool device_results);

  /// Takes the cube and the design, checked as the loaders check them (their messages, naming
  /// "cube" and "design"). The cube: InPlace, a C-order aligned (M, H, W) float32/float64 array
  /// borrowed without a copy (lsq::borrow_cube; the caller keeps it for the call); Copy, read as
  /// the .npy loader reads it; Device, read in place by the CUDA solver (a CUDA back end on a
  /// visible device, else simscope::Error). The design: Copy.
  void take(ArrayInput cube, const ArrayInput& design);

  /// Solves, on the calling thread (the caller's device for a CUDA cube).
  void solve(Progress* progress);

  /// The CLI's result of the solve (fill_lsq_result, add_lsq_result_warnings), with the settings
  /// the arrays replace warned about, and stats "cube_copied_bytes" (0 when read in place, else
  /// the bytes of its copy) and "host_staging_bytes" (bytes of a CUDA cube copied to the host
  /// for the pixels solved there). total_seconds counts from construction. Once, after solve.
  RunResult result();

  const BackendChoice& choice() const { return choice_; }
  /// The device the result's maps are on (device_results), or -1 on the host. After result().
  int results_device() const { return results_device_; }
  /// "device" for a CUDA cube read in place, else "host".
  const char* input_route() const { return device_cube_ ? "device" : "host"; }

 private:
  std::chrono::steady_clock::time_point t0_;
  ParamSet params_;
  BackendChoice choice_;
  lsq::Cube cube_;  ///< the host cube, or (device_cube_) a header of its dimensions only
  lsq::Design design_;
  lsq::Options options_;
  const DeviceView* device_cube_ = nullptr;
  bool device_results_ = false;
  lsq::Result res_;
  double peak_ = 0, staged_ = 0;
  std::unique_ptr<lsq::Solver> solver_;  ///< holds the device maps (shared with the outputs)
  std::shared_ptr<const LsqDeviceOps> ops_;  ///< set when it kept them
  int results_device_ = -1;
};

}  // namespace simscope::app
