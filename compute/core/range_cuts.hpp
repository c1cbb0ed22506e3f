#pragma once
/// @file Work ranges that may be cut only at given indices, for axes of equal-cost items.
/// Used for the oscillators' reduction groups.
#include <cstddef>
#include <vector>

#include "core/range.hpp"

namespace simscope {

/// Cuts [0, cuts.back()) into `parts` consecutive ranges that start and end at `cuts`.
/// `cuts` must be sorted and start at 0. Range k ends at the cut nearest (k + 1) n / parts;
/// ties go to the lower cut. Some ranges are empty when parts exceeds the number of cuts.
/// Throws simscope::Error when parts is 0 or the cuts do not start at 0 and increase.
std::vector<IndexRange> split_at_cuts(const std::vector<std::size_t>& cuts, std::size_t parts);

}  // namespace simscope
