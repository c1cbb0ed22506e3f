#pragma once
/// @file Work ranges of whole runs (issue 11 item 5): a run cut into R ranges of its workload's
/// independent axis (Workload::work_axis: the field's targets, lsq's pixel rows, the oscillators'
/// members in whole study blocks or at their reduction groups), each range run on its own
/// (RunRequest::range: in one process one after the other, or on MPI ranks, app/mpi/), and the
/// parts merged into the result of the whole run (Workload::merge_ranges). On the CPU back end
/// the merged result equals the unsplit one bit for bit: outputs, warnings and stats other than
/// timings.
///
/// The pieces every adapter's merge uses live here: the ranges, the checks that parts fit
/// together, and the concatenation of outputs along the axis.
#include <cstddef>
#include <string>
#include <vector>

#include "core/range.hpp"
#include "workload.hpp"

namespace simscope::app {

/// [0, axis.length) cut into `parts` consecutive ranges balanced by cost: every item of an axis
/// costs the same (a target, a pixel row, a member), so the granules (WorkAxis::granule) are
/// shared out as evenly as split_evenly does; the last granule may be shorter. When parts
/// exceeds the granules and the axis has finer cuts (WorkAxis::cuts), the ranges end at the
/// cuts nearest to equal shares (split_at_cuts). Some ranges are empty when parts exceeds the
/// granules (or the cuts). Throws simscope::Error when parts is 0 or the axis is
/// empty (a workload that cannot be split).
std::vector<IndexRange> split_work(const WorkAxis& axis, std::size_t parts);

/// Checks that `parts` are results of consecutive ranges of one axis covering it all (part 0
/// from 0, each from where the previous one ended, the last at the axis' length; every part
/// carrying RunResult::part with axis `axis`) and returns that length. Throws simscope::Error
/// "<workload>: cannot merge ..." naming the part that does not fit.
std::size_t check_parts(const std::vector<RunResult>& parts, const std::string& axis);

/// The outputs `name` of `parts` joined along dimension `dim` (0 or 1; the other dimensions must
/// agree), as one OutputArray with the first part's name, label, unit and dtype. The values
/// are copied in the dtype the parts hold, never converted. Throws simscope::Error when a part
/// lacks the output, or the shapes or dtypes do not fit.
OutputArray concat_outputs(const std::vector<RunResult>& parts, const std::string& name,
                           std::size_t dim);

/// The fp64 sums `name` of part `p` (RunResult::part->sums). Throws simscope::Error when missing.
const std::vector<double>& part_sums(const RunResult& p, const std::string& name);

/// The element-wise sum, in part order, of the sums `name` ("sum:...": WorkAxis::reduced) of
/// the parts that carry them (after a reduction across ranks only rank 0's part does). Throws
/// simscope::Error when none does or their lengths differ.
std::vector<double> added_sums(const std::vector<RunResult>& parts, const std::string& name);

/// Runs `w` with `params` on `backend` as `parts` work ranges one after the other and merges
/// them (what R ranks do, in one process; for tests and chunked runs), along `axis`
/// (Workload::split_axis; empty: work_axis()). parts == 1 runs one range covering the whole
/// axis; empty ranges are not run, except on a WorkAxis::reduced axis. Progress over the whole;
/// throws as Workload::run and merge_ranges.
RunResult run_split(Workload& w, const ParamSet& params, Backend backend, std::size_t parts,
                    Progress* progress = nullptr, const std::string& axis = "");

}  // namespace simscope::app
