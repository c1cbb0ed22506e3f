#pragma once
/// @file The field workload's parameter schema and the readers that turn a ParamSet of it into
/// compute/field's Grid, Options, Method and sources.
#include <cstddef>

#include "core/range.hpp"
#include "field/field.hpp"
#include "params/schema.hpp"

namespace simscope::field {

/// The field workload's parameters: sources.file, sources.distribution, sources.count,
/// sources.seed, sources.half_width, k, eps, plane, plane.offset, grid.size, grid.half_width,
/// precision, method (auto|direct|tree, default auto), tree.tolerance (1e-5, in [1e-7, 1e-3]),
/// tree.error_grid (the error view's subgrid size m: 0 automatic, 1..64), view (an output or
/// "error").
const Schema& schema();

/// Reads a Grid / Options from a validated ParamSet of schema(). For plane=box, Grid::offset is
/// |plane.offset| (faces at +-|plane.offset|), and plane.offset = 0 puts the faces at
/// +-grid.half_width (the cube around the samples).
Grid grid_from(const ParamSet& p);
Options options_from(const ParamSet& p);
/// The `method` of a ParamSet of schema().
Method method_from(const ParamSet& p);
/// The sources.* settings of a ParamSet of schema().
SourceSpec source_spec_from(const ParamSet& p);
/// make_sources, source_count and make_source_rows (field.hpp, sources.hpp) of
/// source_spec_from(p). Throw simscope::Error as those do.
Sources make_sources(const ParamSet& p);
std::size_t source_count(const ParamSet& p);
Sources make_source_rows(const ParamSet& p, const IndexRange& rows);

}  // namespace simscope::field
