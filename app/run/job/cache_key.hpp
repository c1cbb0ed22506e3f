#pragma once
/// @file Cache keys of the workloads' inputs, from the schema.
/// Parameters the schema makes unused (Schema::used) do not take part. File parameters
/// (ParamType::Path) take part by identity (path, size, modification time), so an edited input is
/// reloaded.
#include <string>
#include <vector>

#include "params/schema.hpp"

namespace simscope::app {

/// "PATH@SIZE:MTIME_NS" of the file at `path`; "" for an empty path.
/// "PATH@?" when the file cannot be read; the loader then reports the error.
std::string file_identity(const std::string& path);

/// Key of the parameters `names` of `params`: values (format_value) joined by '|'.
/// Files appear as file_identity, unused parameters (Schema::used) as "-".
/// Throws Error on an unknown name.
std::string cache_key(const ParamSet& params, const std::vector<std::string>& names);

}  // namespace simscope::app
