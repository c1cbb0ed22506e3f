#pragma once
/// @file The field of added source shares: each share's fp64 sums at every target are added
/// across shares, rounded to the outputs as one evaluation rounds them, and their error measured
/// against the shares' added direct sums at the error view's targets.
#include <cstddef>
#include <vector>

#include "field/field.hpp"

namespace simscope::field {

/// The fp64 sums (T, 4) of an evaluation `r` of T targets: Ex, Ey, Ez, phi per target. Its
/// sums64 (Options::keep_sums64 on a CPU evaluator), moved out; else its float32 outputs widened
/// (a CUDA evaluation: each component rounded to float32 once). The outputs must be on the host.
std::vector<double> sums_of(Result& r);

/// The direct fp64 sums (S, 4) of `sources` at the targets `at` (S indices into `targets`) on
/// the CPU: Ex, Ey, Ez, phi per target, with `options`' k and eps (its precision is taken as
/// fp64). Zeros where there are no sources. The check a tree share adds for measure_added_error.
/// Costs S x sources.size() fp64 pairs.
std::vector<double> direct_sums_at(const Sources& sources, const Targets& targets,
                                   const std::vector<std::size_t>& at, Options options);

/// Outputs of the fp64 sums `sums`, shape (T, 4): Ex, Ey, Ez, phi per target. Each component is
/// rounded to float32 once; |E| comes from the fp64 components. Sets the five outputs only,
/// on the host.
Result result_from_sums(const std::vector<double>& sums);

/// Error of added sums `sums` (T, 4) against direct fp64 sums `direct` (S, 4) at the targets
/// `at`, S indices into T. Sets out.target_errors[k] = |E - E_direct| / |E_direct| at at[k],
/// inf where E_direct is 0 and E is not. Sets out.tree's error_samples = S, max_rel_error = the
/// largest finite one, and rms_rel_error = sqrt(mean over `at` |E - E_direct|^2 / mean over
/// all T |E|^2), the tree evaluator's measure. Throws simscope::Error when the sizes disagree.
void measure_added_error(const std::vector<double>& sums, const std::vector<double>& direct,
                         const std::vector<std::size_t>& at, Result& out);

}  // namespace simscope::field
