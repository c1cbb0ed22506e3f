#pragma once
/// @file A data cube's file checked before it is read (lsq.hpp: load_cube).
#include <string>

namespace simscope::lsq {

/// Checks `path` as load_cube() does before it reads the data: the name, the file, its .npy
/// header, dtype and shape (reads only the header). Throws simscope::Error as load_cube() does,
/// naming the file, e.g. "cube.npy: cannot open (No such file or directory)".
void check_cube_file(const std::string& path);

}  // namespace simscope::lsq
