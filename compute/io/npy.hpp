#pragma once
/// @file Reading and writing NumPy .npy files, format versions 1.0, 2.0 and 3.0.
/// Reference: numpy/lib/format.py and NEP 1, "A Simple File Format for NumPy Arrays".
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/dtype.hpp"

namespace simscope::io {

/// The element types of core/dtype.hpp, which .npy files hold.
using simscope::DType;
using simscope::to_string;

/// An array read from a .npy file, converted to native byte order and C order.
struct NpyArray {
  DType dtype = DType::Float64;
  std::vector<std::size_t> shape;  ///< e.g. {P, 4}
  std::vector<std::uint8_t> data;  ///< product(shape) * itemsize bytes, C order, native endian

  std::size_t size() const;  ///< number of elements
  /// All elements converted to double, from any dtype.
  std::vector<double> to_double() const;
  /// Shape as numpy prints it, e.g. "(3, 4)".
  std::string shape_text() const;
};

/// Reads `path`. Accepts byte orders '<', '>' and '|', either fortran_order, versions 1.0-3.0,
/// and dtypes f4, f8, i4, i8, u1, and b1 (numpy's bool, read as uint8 0/1). Throws simscope::Error naming the file and the problem:
/// missing, not a .npy file, truncated, or an unsupported dtype such as 'int8' or 'object'.
/// `accepted` names the dtypes the caller takes, e.g. "float32 or float64", for the message
/// about an unreadable dtype. Empty means every readable dtype.
/// The caller must still check the returned dtype: a readable int32 may not suit it.
NpyArray read_npy(const std::string& path, const std::string& accepted = "");

/// A .npy file's header. read_npy_header() checks it as read_npy() does, without reading the data.
struct NpyHeader {
  DType dtype = DType::Float64;
  std::vector<std::size_t> shape;
  bool fortran_order = false;
  bool byteswap = false;          ///< stored in the other byte order than this machine's
  std::uint64_t data_offset = 0;  ///< bytes before the data (magic, version, length, dict)

  /// Elements per index of axis 0: the product of shape[1:], 1 for a 1-D array.
  std::size_t row_elements() const;
  /// Shape as numpy prints it, e.g. "(3, 4)".
  std::string shape_text() const;
};

/// Reads and checks the header of `path`: magic, version, dict, dtype, shape, and that the file
/// holds all the data the shape says. Same checks and messages as read_npy() before the data.
/// Throws simscope::Error as read_npy() does.
NpyHeader read_npy_header(const std::string& path, const std::string& accepted = "");

/// Reads rows [begin, end) along axis 0 of the array in `path`, as read_npy(path) would give them.
/// Result: shape (end - begin, shape[1:]...), native byte order, C order, whatever the file's
/// order.
/// Reads only the header and those rows' bytes. C order: one contiguous read.
/// Fortran order: one read of (end - begin) elements per element of a row.
/// Throws simscope::Error as read_npy() does, including for truncation of the whole file.
/// Throws "<path>: rows [b, e) asked for, the array has N rows" unless
/// begin <= end <= shape[0], and for a 0-d array.
NpyArray read_npy_rows(const std::string& path, std::size_t begin, std::size_t end,
                       const std::string& accepted = "");

/// Writes a C-order little-endian version-1.0 .npy file, whole or not at all, via AtomicFile.
/// With `durable`, the file is flushed to disk before it replaces the target.
/// `data` holds product(shape) elements. Throws simscope::Error naming the file on failure.
void write_npy(const std::string& path, const float* data, const std::vector<std::size_t>& shape,
               bool durable = false);
void write_npy(const std::string& path, const double* data, const std::vector<std::size_t>& shape,
               bool durable = false);
void write_npy(const std::string& path, const std::int32_t* data,
               const std::vector<std::size_t>& shape, bool durable = false);
void write_npy(const std::string& path, const std::uint8_t* data,
               const std::vector<std::size_t>& shape, bool durable = false);

}  // namespace simscope::io
