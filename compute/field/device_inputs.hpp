#pragma once
/// @file The host-side checks of the field's inputs in CUDA device memory
/// (Evaluator::evaluate_device): what can be said of a DeviceView without reading its values,
/// with the host readers' messages (strided_inputs.hpp), and the message of a bad value that
/// the device conversion found. Pure C++ (no CUDA API): the Python module checks its
/// arguments with these before a back end runs, and tests/compute runs them without a GPU.
#include <cstddef>
#include <string>

#include "core/device_view.hpp"

namespace simscope::field {

/// Throws simscope::InputError, with sources_from_strided's message where it has one, unless
/// `v` is 2-D, float32 or float64, with at least one row of 3 or 4 columns, and its data
/// pointer and strides are multiples of its element size.
void check_sources_view(const DeviceView& v);
/// The same for targets (T,3) (targets_from_strided's messages).
void check_targets_view(const DeviceView& v);

/// Throws the simscope::InputError of the first bad element that the device conversion found,
/// at row `row` of `v`, whose `cols` values `row_values` (that one row, copied to the host:
/// float32 or float64 as v.dtype, C order) are read by the host reader, so the message is the
/// host path's, with `row` as its row. Never returns.
[[noreturn]] void throw_bad_row(const DeviceView& v, std::size_t row, const void* row_values,
                                bool sources);

}  // namespace simscope::field
