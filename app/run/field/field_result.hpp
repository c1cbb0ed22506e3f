#pragma once
/// @file The field's RunResult from one evaluation: outputs (where the evaluator left them),
/// warnings and stats, shared by the workload adapter and the Python module's array path, so both
/// hand back the same outputs, messages and run.json keys.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "field/field.hpp"
#include "workload.hpp"

namespace simscope::app {

/// Appends to `r` (workload "field", params and backend set) the five outputs of `fr` in
/// field::output_names() order with shape `shape` (their sizes multiply to fr.size()): host
/// vectors moved out of `fr` (no copy), or, when fr.on_host is false, `ev`'s device outputs
/// (OutputData::on_device, shared with the evaluator, downloaded on first host() read). Sets
/// the stats sources (`sources`), targets, skipped_coincidences, peak_device_bytes, the tree's
/// (FieldStats::set_method), compute_seconds, then finish_field_result. Throws simscope::Error when
/// a device output is missing.
void fill_field_result(RunResult& r, field::Result& fr, const field::Evaluator& ev,
                       const std::vector<std::size_t>& shape, std::size_t sources);

/// The number of values of an array of `shape`: the product of its extents.
std::size_t shape_size(const std::vector<std::size_t>& shape);

/// The error view's targets' coordinates: an output of the tree method beside `error`.
const OutputSpec& error_xyz_output();

/// The shape of the error view's subgrid of `grid`: (m, m) for a plane, (6, m, m) for a box.
std::vector<std::size_t> error_shape(const field::Grid& grid, int m);

/// The tree method's error view (fr.target_errors at `idx`, the subgrid's targets of `t`) as
/// the outputs "error" (of `shape`) and "error_xyz" (shape + (3,), the targets' coordinates),
/// and the stat "error_grid" (shape's last extent).
void add_error_outputs(const field::Result& fr, const field::Targets& t,
                       const std::vector<std::size_t>& idx, const std::vector<std::size_t>& shape,
                       RunResult& r);

/// The warnings and derived stats of a field result from its outputs' counts of non-finite
/// values (`nonfinite`, in output order) and its stats "sources", "targets",
/// "skipped_coincidences" and compute_seconds: float32 overflow per output, the schema's unused
/// settings (and tree.* when method=auto chose direct sums), tree.error_grid clamped to
/// grid.size, skipped coincidences; "pairs" and "pairs_per_s". The same for a run and for merged
/// work ranges.
void finish_field_result(RunResult& r, const std::vector<std::uint64_t>& nonfinite);

}  // namespace simscope::app
