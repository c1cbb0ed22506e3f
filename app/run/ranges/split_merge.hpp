#pragma once
/// @file Work ranges of whole runs: split a run, run the ranges, merge the parts.
/// A run is cut into R ranges of its workload's independent axis (Workload::work_axis): the field's
/// targets, lsq's pixel rows, the oscillators' members in study blocks or reduction groups. Each
/// range runs on its own (RunRequest::range), in one process or on MPI ranks (app/mpi/).
/// Workload::merge_ranges joins the parts. On the CPU back end the merged result equals the unsplit
/// one bit for bit: outputs, warnings, and stats other than timings.
///
/// This file holds what every merge uses: the ranges, the fit checks, and concatenation.
#include <cstddef>
#include <string>
#include <vector>

#include "core/range.hpp"
#include "workload.hpp"

namespace simscope::app {

/// [0, axis.length) cut into `parts` consecutive ranges of balanced cost.
/// Every item costs the same, so granules (WorkAxis::granule) are shared as evenly as split_evenly
/// does; the last granule may be shorter. When parts exceeds the granules and the axis has
/// WorkAxis::cuts, ranges end at the cuts nearest to equal shares (split_at_cuts). Some ranges are
/// empty when parts exceeds the granules or cuts. Throws simscope::Error when parts is 0 or the
/// axis is empty.
std::vector<IndexRange> split_work(const WorkAxis& axis, std::size_t parts);

/// Checks that `parts` cover one axis in consecutive ranges and returns its length.
/// Part 0 starts at 0, each starts where the previous ended, the last ends at the length, and each
/// carries RunResult::part with axis `axis`. Throws simscope::Error "<workload>: cannot merge ..."
/// naming the part that does not fit.
std::size_t check_parts(const std::vector<RunResult>& parts, const std::string& axis);

/// Output `name` of `parts` joined along dimension `dim` (0 or 1); other dimensions must agree.
/// Returns one OutputArray with the first part's name, label, unit and dtype. Values are copied in
/// their dtype, never converted. Throws simscope::Error when a part lacks the output or the shapes
/// or dtypes differ.
OutputArray concat_outputs(const std::vector<RunResult>& parts, const std::string& name,
                           std::size_t dim);
/// The shape of outputs `os` (output `name` of each part, in order) joined along dimension
/// `dim`: the first's with that dimension summed. Throws simscope::Error naming the part whose
/// rank, dtype, other dimensions or value count differ.
std::vector<std::size_t> concat_shape(const std::vector<const OutputArray*>& os,
                                      const std::string& name, std::size_t dim);

/// The fp64 sums `name` of part `p` (RunResult::part->sums). Throws simscope::Error if missing.
const std::vector<double>& part_sums(const RunResult& p, const std::string& name);

/// Element-wise sum, in part order, of sums `name` ("sum:...", WorkAxis::reduced) over the parts
/// that carry them. After a reduction across ranks only rank 0's part does.
/// Throws simscope::Error when none does or their lengths differ.
std::vector<double> added_sums(const std::vector<RunResult>& parts, const std::string& name);

/// Runs `w` as `parts` work ranges in sequence along `axis` and merges them, as R ranks would.
/// `axis` is Workload::split_axis; empty means work_axis(). parts == 1 runs one range over the
/// whole axis. Empty ranges are skipped, except on a WorkAxis::reduced axis. Progress covers the
/// whole run. Throws as Workload::run and merge_ranges.
RunResult run_split(Workload& w, const ParamSet& params, Backend backend, std::size_t parts,
                    Progress* progress = nullptr, const std::string& axis = "");

}  // namespace simscope::app
