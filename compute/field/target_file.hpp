#pragma once
/// @file Target points read from a file (the field's targets.file): scattered points instead of
/// a plane or box.
#include <string>

#include "field/field.hpp"

namespace simscope::field {

/// Loads target points from .npy (float32/float64, shape (T, 3) x, y, z) or CSV (columns x, y,
/// z, optional header). The extension decides, case-insensitive. Throws simscope::Error naming
/// the file: another extension, dtype or shape, no points, a non-finite coordinate with its row
/// (0-based for .npy, "data row" 1-based for CSV).
Targets load_targets(const std::string& path);

/// The number of points load_targets(path) gives, reading only the header of a .npy file
/// (a CSV file is read whole). Throws simscope::Error as load_targets does.
std::size_t target_file_count(const std::string& path);

}  // namespace simscope::field
