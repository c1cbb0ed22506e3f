#pragma once
/// @file The field workload's source set, kept between runs: generated or loaded again only when
/// its parameters or its file change, and read by shares for a split by sources.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/range.hpp"
#include "field/field.hpp"
#include "field/field_params.hpp"
#include "params/schema.hpp"

namespace simscope::app {

/// The source set of the last run. Each call takes the run's ParamSet (its sources' cache key:
/// the file's size and modification time included, cache_key) and its Settings (what to make).
class FieldSourceCache {
 public:
  /// The sources of `p`, regenerated or reloaded only when their parameters changed or the file
  /// did. Throws simscope::Error naming sources.file.
  const field::Sources& sources(const ParamSet& p, const field::Settings& s);
  /// The number of sources of `p` without loading them where it can: the loaded set's size, else
  /// field::source_count (sources.count, or a .npy file's header); a .csv file is loaded (and
  /// kept: sources).
  std::size_t total(const ParamSet& p, const field::Settings& s);
  /// The sources `share` of the set of `p`: a slice of the loaded set when it is loaded (runs
  /// in one process), else only those rows read (a .npy file) or generated
  /// (field::make_source_rows: memory and set-up 1/R of the set on each of R ranks); a .csv
  /// file is loaded whole (sources), which sets `read_all` (the stat sources_read_whole: a
  /// warning in the merged run).
  field::Sources share(const ParamSet& p, const field::Settings& s, const IndexRange& share,
                       bool& read_all);

 private:
  std::string key_;
  field::Sources sources_;
  std::uint64_t generation_ = 0;
};

}  // namespace simscope::app
