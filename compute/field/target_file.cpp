// Target points read from a file (target_file.hpp).
#include "field/target_file.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>

#include "core/error.hpp"
#include "io/csv.hpp"
#include "io/npy.hpp"

namespace simscope::field {

namespace {

std::string lower_extension(const std::string& path) {
  std::string e = std::filesystem::path(path).extension().string();
  for (char& c : e) c = char(std::tolower(static_cast<unsigned char>(c)));
  return e;
}

[[noreturn]] void unknown_type(const std::string& path) {
  throw Error(path + ": unknown target file type '" + lower_extension(path) +
              "'; expected a .npy file of shape (T, 3) or a .csv file with columns x, y, z");
}

Targets load_csv_targets(const std::string& path) {
  const io::CsvTable t = io::read_csv(path);
  if (t.rows == 0) throw Error(path + ": no target points (no data rows)");
  if (t.cols != 3)
    throw Error(path + ": " + std::to_string(t.cols) + " columns; x, y, z expected");
  Targets out;
  out.x.resize(t.rows), out.y.resize(t.rows), out.z.resize(t.rows);
  for (std::size_t i = 0; i < t.rows; ++i) {
    const double* v = &t.values[3 * i];
    for (int c = 0; c < 3; ++c)
      if (!std::isfinite(v[c]))
        throw Error(path + ": data row " + std::to_string(i + 1) + ": coordinate " +
                    "xyz"[c] + " is not finite");
    out.x[i] = v[0], out.y[i] = v[1], out.z[i] = v[2];
  }
  return out;
}

}  // namespace

Targets load_targets(const std::string& path) {
  const std::string ext = lower_extension(path);
  if (path.empty()) throw Error("targets.file: no file given");
  if (ext == ".npy") return targets_from_npy(io::read_npy(path, "float32 or float64"), path);
  if (ext == ".csv") return load_csv_targets(path);
  unknown_type(path);
}

std::size_t target_file_count(const std::string& path) {
  const std::string ext = lower_extension(path);
  if (ext == ".npy") {
    const io::NpyHeader h = io::read_npy_header(path, "float32 or float64");
    if (h.dtype != io::DType::Float32 && h.dtype != io::DType::Float64)
      throw Error(path + ": dtype " + io::to_string(h.dtype) +
                  " is not supported for targets; expected float32 or float64");
    if (h.shape.size() != 2 || h.shape[1] != 3)
      throw Error(path + ": (T,3) expected, got " + h.shape_text() + " (columns x, y, z)");
    if (h.shape[0] == 0) throw Error(path + ": no targets (shape " + h.shape_text() + ")");
    return h.shape[0];
  }
  if (ext == ".csv") return load_csv_targets(path).size();
  unknown_type(path);
}

}  // namespace simscope::field
