#pragma once
/// @file Host-side checks of the field's inputs in CUDA device memory, for
/// Evaluator::evaluate_device. Checks what a DeviceView shows without reading its values, with
/// the host readers' messages (strided_inputs.hpp), and formats a bad value found by the
/// device conversion. Pure C++ without the CUDA API: the Python module checks its arguments
/// with these before a back end runs, and tests/compute runs them without a GPU.
#include <cstddef>
#include <string>

#include "core/device_view.hpp"

namespace simscope::field {

/// Throws simscope::InputError, with sources_from_strided's message where it has one, unless
/// `v` is 2-D, float32 or float64, with at least one row of 3 or 4 columns, and its data
/// pointer and strides are multiples of its element size.
void check_sources_view(const DeviceView& v);
/// The same for targets (T,3), with targets_from_strided's messages.
void check_targets_view(const DeviceView& v);

/// Throws the simscope::InputError of the first bad element found by the device conversion, at
/// row `row` of `v`. `row_values` holds that row's `cols` values, copied to the host as
/// v.dtype in C order. The host reader reads them, so the message is the host path's with `row`
/// as its row. Never returns.
[[noreturn]] void throw_bad_row(const DeviceView& v, std::size_t row, const void* row_values,
                                bool sources);

}  // namespace simscope::field
