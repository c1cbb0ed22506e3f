#pragma once
/// @file Sources and targets read in place from a 2-D array of any strides, such as the Python
/// module's numpy arrays: field::sources_from_npy and targets_from_npy without a C-order copy.
#include <cstddef>
#include <string>

#include "field/field.hpp"

namespace simscope::field {

/// sources_from_npy and targets_from_npy on a 2-D array in place: `rows` x `cols` elements of
/// `dtype` at `data`, with strides `row_stride` and `col_stride` in bytes, any sign, native
/// byte order. Converts into the evaluators' layout (Sources: fp32 SoA; Targets: fp64 SoA) with
/// the same checks and messages, `name` in place of the file name, and no intermediate copy.
/// Throws simscope::Error as those do.
Sources sources_from_strided(const void* data, io::DType dtype, std::size_t rows, std::size_t cols,
                             std::ptrdiff_t row_stride, std::ptrdiff_t col_stride,
                             const std::string& name);
Targets targets_from_strided(const void* data, io::DType dtype, std::size_t rows, std::size_t cols,
                             std::ptrdiff_t row_stride, std::ptrdiff_t col_stride,
                             const std::string& name);
/// Sets s.q from s.size() values of `dtype` (float32 or float64) at `data`, `stride` bytes
/// apart, native byte order: the charges given beside positions. The checks and messages of a
/// source array's column q, `name` in place of the file name ("name: row 7: non-finite q value
/// (nan); ..."). Throws simscope::Error.
void charges_from_strided(Sources& s, const void* data, io::DType dtype, std::ptrdiff_t stride,
                          const std::string& name);

}  // namespace simscope::field
