#pragma once
/// @file What an lsq run hands its GUI extras (RunResult::payload): the problem (cube and design
/// matrix) and the solve's counts, to plot a clicked pixel's data against its fit. The maps
/// themselves are the run's outputs; see lsq_maps.
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <memory>
#include <string>
#include <vector>

#include "lsq/lsq.hpp"
#include "lsq_device.hpp"
#include "workload.hpp"

namespace simscope::app {

/// RunResult::payload of the lsq workload; read with RunResult::payload_as<LsqPayload>().
struct LsqPayload final : RunPayload {
  std::shared_ptr<const lsq::Synth> problem;  ///< the full cube and A (and the synthetic truth)
  /// The solve over every stride-th pixel of the cube: dimensions and counts. Its maps are in
  /// RunResult::outputs, where lsq_maps reads them.
  std::shared_ptr<const lsq::Result> result;
  std::size_t stride = 1;                     ///< > 1 for a coarse preview
  lsq::Options options;
  Backend backend = Backend::Cpu;
  /// Non-null when the maps (RunResult::outputs) are in device memory. The view draws them
  /// through it without a host copy (LsqDeviceOps::upright), and the panel reads single pixels.
  std::shared_ptr<const LsqDeviceOps> device_ops;
  /// With device_ops: the counts of the solution's and the residual's values that are inf once
  /// rounded to float32, counted on the device (lsq::Result::device_inf), for the warnings.
  std::optional<std::array<std::uint64_t, 2>> device_inf;
};

/// The lsq maps are drawn like numpy/matplotlib's imshow, row 0 at the top. Image sample (i, j)
/// of LsqWorkload::view_image, i to the right and j up, is pixel (h, w) = (H - 1 - j, i) of the
/// result's (H, W) maps.
inline void lsq_image_to_pixel(const lsq::Result& r, int i, int j, std::size_t& h, std::size_t& w) {
  h = r.height - 1 - std::size_t(j);
  w = std::size_t(i);
}

}  // namespace simscope::app
