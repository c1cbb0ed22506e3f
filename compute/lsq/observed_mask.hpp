#pragma once
/// @file A mask of observed entries for an lsq cube: where it is false, the observation is
/// missing (NaN), as if the cube held NaN there.
#include <string>

#include "io/npy.hpp"
#include "lsq/lsq.hpp"

namespace simscope::lsq {

/// Sets cube entries to NaN where `mask` is 0. `mask` has the cube's shape (M, H, W) and holds
/// 0 (missing) or 1 (observed): numpy bool or uint8, or int32/int64 0/1. An entry already NaN
/// stays missing. The cube gets a fresh generation. Throws simscope::Error naming `name` for
/// another shape ("expected the cube's (M, H, W) = (...)"), another dtype, or a value other
/// than 0 or 1 (with its index). A borrowed cube is copied first (its owner's memory is not
/// written).
void apply_observed_mask(Cube& cube, const io::NpyArray& mask, const std::string& name);

}  // namespace simscope::lsq
