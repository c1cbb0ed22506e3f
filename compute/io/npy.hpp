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

/// What a .npy file's header says: read_npy_header() checks it as read_npy() does, without
/// reading the data.
struct NpyHeader {
  DType dtype = DType::Float64;
  std::vector<std::size_t> shape;
  bool fortran_order = false;
  bool byteswap = false;          ///< stored in the other byte order than this machine's
  std::uint64_t data_offset = 0;  ///< bytes before the data (magic, version, length, dict)

  /// Elements per row (index of axis 0): the product of shape[1:] (1 for a 1-D array).
  std::size_t row_elements() const;
  /// Shape as text, "(3, 4)" as numpy prints it.
  std::string shape_text() const;
};

/// Reads and checks the header of `path` (magic, version, dict, dtype, shape) and that the file
/// holds all the data the shape says, exactly the checks and messages of read_npy() before it
/// reads the data. Throws simscope::Error as read_npy() does.
NpyHeader read_npy_header(const std::string& path, const std::string& accepted = "");

/// Rows [begin, end) (indices along axis 0) of the array in `path`, as read_npy(path) would give
/// them: shape (end - begin, shape[1:]...), native byte order, C order, whatever the file's order.
/// Reads the header and only those rows' bytes: one contiguous read in C order; in Fortran order
/// one read of (end - begin) elements per element of a row (shape[1:]'s product, e.g. 4 for a
/// (P, 4) array), each column's rows being contiguous there. Throws simscope::Error as read_npy()
/// does (the whole file's truncation included: read_npy_header()), and "<path>: rows [b, e)
/// asked for, the array has N rows" unless begin <= end <= shape[0], or for a 0-d array.
NpyArray read_npy_rows(const std::string& path, std::size_t begin, std::size_t end,
                       const std::string& accepted = "");

/// Writes a C-order little-endian version-1.0 .npy file, whole or not at all (AtomicFile;
/// `durable`: flushed to disk before it replaces the target). `data` holds product(shape)
/// elements. Throws simscope::Error naming the file when it cannot be written.
void write_npy(const std::string& path, const float* data, const std::vector<std::size_t>& shape,
               bool durable = false);
void write_npy(const std::string& path, const double* data, const std::vector<std::size_t>& shape,
               bool durable = false);
void write_npy(const std::string& path, const std::int32_t* data,
               const std::vector<std::size_t>& shape, bool durable = false);
void write_npy(const std::string& path, const std::uint8_t* data,
               const std::vector<std::size_t>& shape, bool durable = false);

}  // namespace simscope::io
