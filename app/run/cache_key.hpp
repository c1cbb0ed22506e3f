#pragma once
/// @file Cache keys of the workloads' inputs, from the schema: a parameter the schema's rules
/// make unused (Schema::used) does not take part, and a file parameter (ParamType::Path) takes
/// part by its identity (path, size, modification time), so an edited input is reloaded.
#include <string>
#include <vector>

#include "params/schema.hpp"

namespace simscope::app {

/// "PATH@SIZE:MTIME_NS" of the file at `path` ("PATH@?" when it cannot be read: the loader
/// then reports the error); "" for an empty path.
std::string file_identity(const std::string& path);

/// The key of the parameters `names` of `params`: their values (format_value) joined by '|',
/// files by file_identity, unused ones (Schema::used) as "-". Throws Error on an unknown name.
std::string cache_key(const ParamSet& params, const std::vector<std::string>& names);

}  // namespace simscope::app
