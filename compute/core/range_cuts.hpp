#pragma once
/// @file Work ranges cut at given places (range.hpp's IndexRange): for axes whose items cost the
/// same but may only be cut at some indices (the oscillators' reduction groups).
#include <cstddef>
#include <vector>

#include "core/range.hpp"

namespace simscope {

/// [0, cuts.back()) cut into `parts` consecutive ranges that start and end at `cuts` (sorted,
/// from 0): range k ends at the cut nearest (k + 1) n / parts (ties: the lower), so the ranges
/// are as even as the cuts allow; some ranges are empty when parts exceeds the cuts. Throws
/// simscope::Error when parts is 0 or the cuts do not start at 0 and increase.
std::vector<IndexRange> split_at_cuts(const std::vector<std::size_t>& cuts, std::size_t parts);

}  // namespace simscope
