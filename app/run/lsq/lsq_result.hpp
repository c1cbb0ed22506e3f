#pragma once
/// @file lsq's RunResult from one solve: the outputs, i.e. the solver's maps moved in and held
/// once, the stats and the warnings. Shared by the workload adapter and the Python module, so
/// both hand back the same outputs, messages and stats keys.
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/backend.hpp"
#include "lsq/lsq.hpp"
#include "lsq_device.hpp"
#include "workload.hpp"

namespace simscope::app {

/// lsq's stats, named in to_map(): run.json "stats" and Python's result.stats.
struct LsqStats {
  double pixels = 0, observations = 0, unknowns = 0;
  double status_ok = 0, status_underdetermined = 0, status_rank_deficient = 0,
         status_all_missing = 0;
  double fallback_pixels = 0, gap_free_pixels = 0, downdate_pixels = 0, minnorm_pixels = 0;
  double pattern_pixels = 0;  ///< pixels solved by a shared pattern's operator (CPU)
  double host_pixels = 0;      ///< pixels solved one by one on the host (lsq::Result)
  double design_rank = -1;     ///< numerical rank of A; -1: unused
  double peak_device_bytes = 0;
  double method_on_host = 0;   ///< 1: the CUDA back end ran the per-pixel method on the host
  double pixels_per_s = 0;

  /// The stats of `res`, a solve with `options` on `backend` over a cube of `observations`
  /// rows. `peak_device_bytes` comes from the solver.
  static LsqStats of(const lsq::Result& res, const lsq::Options& options, Backend backend,
                     std::size_t observations, double peak_device_bytes);
  /// The stats as run.json names them. from_map reads them back; throws simscope::Error naming
  /// a missing key.
  std::map<std::string, double> to_map() const;
  static LsqStats from_map(const std::map<std::string, double>& stats);
  /// The stats of consecutive row ranges as one run's: counts summed, rank and peaks the
  /// largest, pixels_per_s over `compute_seconds`.
  static LsqStats merged(const std::vector<LsqStats>& parts, double compute_seconds);
};

/// Appends to `r` the outputs of `res` as the descriptor declares them; r's workload "lsq",
/// params and backend must be set. Outputs: solution (N, H, W) float64, or float32 when
/// options.precision is fp32; residual and condition float32, count int32, status uint8, each
/// (H, W). Host maps are moved out of `res` without a copy (the solution held in place,
/// OutputData::held, as the solver wrote it, float32 when it wrote solution32); res keeps its counts and
/// dimensions. When res.on_host is false they are `solver`'s device outputs, shared with it
/// and downloaded through `ops` on the first host read; r.payload is then an LsqPayload with
/// `ops` and res.device_inf for the warnings, and the workload adds the problem. Logs
/// res.device_note as one line on stderr when set. Sets the stats (LsqStats) and
/// compute_seconds. Throws simscope::Error when res.on_host is false and `solver` or `ops` is
/// missing or a map is not in device memory.
void fill_lsq_result(RunResult& r, lsq::Result& res, const lsq::Options& options,
                     std::size_t observations, double peak_device_bytes,
                     const lsq::Solver* solver = nullptr,
                     const std::shared_ptr<const LsqDeviceOps>& ops = nullptr);

/// The warnings of an lsq result from its stats and outputs: one for each class of pixels that
/// are not ok, and one each for the solution and the residual when values overflow float32.
/// Overflows are counted on the host values or, for a map only in device memory, taken from
/// LsqPayload::device_inf without a download, or, when `counted` is the solve's lsq::Result with
/// host_inf_counted, taken from its host_inf without a pass over the maps.
void add_lsq_result_warnings(RunResult& r, const lsq::Result* counted = nullptr);

/// The warnings of an lsq solve: one for each class of pixels that are not ok, from the status
/// counts `under`determined, `rank`-deficient and all `missing`, with N unknowns; the wording
/// depends on whether lambda > 0. One each for the solution and the residual when values
/// overflow float32; `solution_inf` and `residual_inf` count inf values once rounded to float32.
std::vector<std::string> lsq_result_warnings(std::uint64_t under, std::uint64_t rank,
                                             std::uint64_t missing, std::uint64_t N, double lambda,
                                             std::size_t solution_inf, std::size_t residual_inf);

/// The maps of an lsq RunResult, from its outputs, held by `r` where they are. Nothing is
/// downloaded here.
struct LsqMaps {
  std::size_t n = 0, height = 0, width = 0;
  const OutputData* solution = nullptr;  ///< (N, H, W); float64 or float32
  const OutputData* residual = nullptr;  ///< (H, W) float32
  const OutputData* condition = nullptr;  ///< (H, W) float32
  const OutputData* count = nullptr;      ///< (H, W) int32
  const OutputData* status = nullptr;     ///< (H, W) uint8
  /// The payload's device operations for maps in device memory; null otherwise.
  std::shared_ptr<const LsqDeviceOps> ops;
  /// Value i of `map`, one of the above, as double: from its host values when present, else
  /// that one value copied from the device, without a host copy of the map.
  double at(const OutputData& map, std::size_t i) const;
};
/// The maps of `r`. Throws simscope::Error when an output is missing or of another dtype.
LsqMaps lsq_maps(const RunResult& r);

}  // namespace simscope::app
