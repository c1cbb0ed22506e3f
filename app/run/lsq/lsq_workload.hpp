#pragma once
/// @file What an lsq run hands its GUI extras (RunResult::payload): the problem (cube and design
/// matrix) and the solver's result, to plot a clicked pixel's data against its fit.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "lsq/lsq.hpp"
#include "workload.hpp"

namespace simscope::app {

/// RunResult::payload of the lsq workload (RunResult::payload_as<LsqPayload>()).
struct LsqPayload final : RunPayload {
  std::shared_ptr<const lsq::Synth> problem;  ///< the full cube and A (and the synthetic truth)
  std::shared_ptr<const lsq::Result> result;  ///< over every stride-th pixel of the cube
  std::size_t stride = 1;                     ///< > 1 for a coarse preview
  lsq::Options options;
  Backend backend = Backend::Cpu;
};

/// The warnings of an lsq solve, as the CLI prints them after a run (the workload adds them to
/// RunResult::warnings; the Python module to simscope.lsq's result): one for each class of
/// pixels that are not ok (the status counts `under`determined, `rank`-deficient, all
/// `missing`; N unknowns; the wording depends on whether lambda > 0), and one for each of the
/// solution and residual when values overflow float32 (`solution_inf`, `residual_inf`: their
/// counts of inf once rounded to float32).
std::vector<std::string> lsq_result_warnings(std::uint64_t under, std::uint64_t rank,
                                             std::uint64_t missing, std::uint64_t N, double lambda,
                                             std::size_t solution_inf, std::size_t residual_inf);

/// The lsq maps are drawn like numpy/matplotlib's imshow (row 0 at the top): image sample (i, j)
/// of LsqWorkload::view_image (i to the right, j up) is pixel (h, w) = (H - 1 - j, i) of the
/// result's (H, W) maps.
inline void lsq_image_to_pixel(const lsq::Result& r, int i, int j, std::size_t& h, std::size_t& w) {
  h = r.height - 1 - std::size_t(j);
  w = std::size_t(i);
}

}  // namespace simscope::app
