#pragma once
/// @file The field's split runs joined into the whole run's result: work ranges of the targets
/// concatenated, shares of the sources added (and, for the tree, the added field's error
/// measured against the shares' direct sums at the error view's targets).
#include <cstddef>
#include <vector>

#include "field/field.hpp"
#include "field/field_params.hpp"
#include "workload.hpp"

namespace simscope::app {

/// Targets concatenated in range order (field::merge_target_ranges' rule: each target's values
/// are the unsplit run's on the CPU), the grid's shape, counts summed, warnings from the whole.
/// `s`: the settings of the parts' parameters. Throws simscope::Error when the parts do not fit.
RunResult merge_field_targets(std::vector<RunResult> parts, const field::Settings& s);

/// Shares of the sources (the workload's run of a "sources" range) as the whole run: their fp64
/// fields added in part order (or reduced across ranks already: added_sums), then rounded to
/// float32 as an unsplit run rounds them (field::result_from_sums), |E| formed from the sums;
/// counts summed, warnings from the whole. Within 1e-12 relative of the unsplit fp64 sums (the
/// same terms, added in another order); the float32 outputs within one rounding of the unsplit
/// ones. A tree split's error is measured on the added field (add_share_check_sums). `s`: the
/// settings of the parts' parameters. Throws simscope::Error when the parts do not fit.
RunResult merge_field_sources(std::vector<RunResult> parts, const field::Settings& s);

/// The tree split by sources: the share `mine`'s direct fp64 field at the error view's subgrid of
/// `grid` (field::error_subgrid of the whole set's count `total`: the same targets for every
/// share, as the unsplit run's error view) among `targets`, in r's part sums "sum:check_direct"
/// ((S, 4) Ex, Ey, Ez, phi; zeros for an empty share), so that merge_field_sources measures the
/// error of the added field itself: a share's own measured error is relative to that share's
/// field, which the other shares' may cancel in part. Costs S x (the share's sources) fp64
/// pairs, added to the stat tree_error_seconds.
void add_share_check_sums(const field::Settings& s, const field::Grid& grid,
                          const field::Targets& targets, std::size_t total,
                          const field::Sources& mine, RunResult& r);

}  // namespace simscope::app
