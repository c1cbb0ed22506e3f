#pragma once
/// @file The field workload's parameter schema and the readers that turn a ParamSet of it into
/// compute/field's Grid, Options, Method and sources, or into Settings, all of them at once.
#include <cstddef>
#include <string>

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

/// A ParamSet of schema() read once, typed: what the workload's runs, merges and views use.
struct Settings {
  Grid grid;                     ///< grid_from; not used when targets.file is set
  std::string targets_file;      ///< targets.file: scattered points instead of the grid
  SourceSpec sources;            ///< source_spec_from
  Options options;               ///< options_from: k, eps, precision, tree.tolerance
  Method method = Method::Auto;  ///< method_from
  int error_grid = 0;            ///< tree.error_grid: the error view's subgrid size, 0 automatic
  std::string view;              ///< the output shown, or error_output()'s name
  /// True when targets.file is set: scattered points, no plane or box.
  bool scattered() const { return !targets_file.empty(); }
  /// True when the view is the tree method's error.
  bool error_view() const { return view == error_output().name; }
};
/// The Settings of a validated ParamSet of schema().
Settings settings_from(const ParamSet& p);
/// make_sources, source_count and make_source_rows of s.sources. Throw simscope::Error naming
/// sources.file as the ParamSet readers do.
Sources make_sources(const Settings& s);
std::size_t source_count(const Settings& s);
Sources make_source_rows(const Settings& s, const IndexRange& rows);

}  // namespace simscope::field
