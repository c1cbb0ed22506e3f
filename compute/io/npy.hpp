#pragma once
/// @file Reading and writing NumPy .npy files (format versions 1.0, 2.0, 3.0).
/// Reference: numpy/lib/format.py, "A Simple File Format for NumPy Arrays" (NEP 1).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace simscope::io {

/// Element types simscope reads and writes.
enum class DType { Float32, Float64, Int32, Int64, UInt8 };

const char* to_string(DType t);  ///< numpy spelling: "float32", ...

/// An array read from a .npy file, converted to native byte order and C (row-major) order.
struct NpyArray {
  DType dtype = DType::Float64;
  std::vector<std::size_t> shape;  ///< e.g. {P, 4}
  std::vector<std::uint8_t> data;  ///< product(shape) * itemsize bytes, C order, native endian

  std::size_t size() const;  ///< number of elements
  /// All elements converted to double (any dtype).
  std::vector<double> to_double() const;
  /// Shape as text, "(3, 4)" as numpy prints it.
  std::string shape_text() const;
};

/// Reads `path`. Accepts '<' / '>' / '|' byte orders, fortran_order True or False, versions
/// 1.0-3.0, dtypes f4, f8, i4, i8, u1. Throws simscope::Error naming the file and the problem
/// (missing, not a .npy file, truncated, unsupported dtype such as 'int8' or 'object', ...).
/// `accepted` names the dtypes the caller's input takes (e.g. "float32 or float64"), for the
/// message about a dtype this reader cannot read; empty: every dtype it reads. The caller still
/// checks the dtype it got (a readable int32 may not suit it).
NpyArray read_npy(const std::string& path, const std::string& accepted = "");

/// Writes a C-order little-endian version-1.0 .npy file. `data` holds product(shape) elements.
/// Throws simscope::Error naming the file when it cannot be written.
void write_npy(const std::string& path, const float* data, const std::vector<std::size_t>& shape);
void write_npy(const std::string& path, const double* data, const std::vector<std::size_t>& shape);
void write_npy(const std::string& path, const std::int32_t* data,
               const std::vector<std::size_t>& shape);
void write_npy(const std::string& path, const std::uint8_t* data,
               const std::vector<std::size_t>& shape);

}  // namespace simscope::io
