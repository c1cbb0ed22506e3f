#pragma once
/// @file The targets of a field run: the schema's plane or box, or the points of targets.file.
#include <cstddef>
#include <optional>
#include <vector>

#include "field/field.hpp"
#include "field/field_params.hpp"
#include "params/schema.hpp"

namespace simscope::field {

/// The targets a ParamSet of schema() asks for.
struct TargetSet {
  std::optional<Grid> grid;         ///< the plane or box; nothing: points of targets.file
  Targets targets;                  ///< make_targets(*grid) or the file's points
  std::vector<std::size_t> shape;   ///< grid_shape(*grid), or {T} for points
};

/// True when targets.file is set: scattered points, no plane or box.
bool scattered_targets(const ParamSet& p);
/// The targets of `p`; a preview's grid is coarser (grid.size / 4, at least 16); points stay.
/// Throws simscope::Error naming targets.file for a file load_targets refuses.
TargetSet target_set(const ParamSet& p, bool preview = false);
/// The output shape of `p`'s targets without making them (a .npy file's header only).
std::vector<std::size_t> target_shape(const ParamSet& p);
/// target_set and target_shape of settings already read (settings_from).
TargetSet target_set(const Settings& s, bool preview = false);
std::vector<std::size_t> target_shape(const Settings& s);

}  // namespace simscope::field
