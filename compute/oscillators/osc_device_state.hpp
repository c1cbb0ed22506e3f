#pragma once
/// @file Host-side checks of an oscillators initial state in CUDA device memory
/// (Ensemble::load_device). Checks what the DeviceView shows without reading values, with
/// initial_state_from_npy's messages, and builds the message for a non-finite value the device
/// found. Pure C++: the Python module uses it, and tests/compute runs it without a GPU.
#include <cstddef>

#include "core/device_view.hpp"

namespace simscope::oscillators {

/// Throws simscope::InputError unless `v` is float32 or float64 of shape (nodes, 2) or
/// (members, nodes, 2), with its data pointer and strides multiples of its element size.
/// Messages are initial_state_from_npy's, naming v.name.
void check_initial_view(const DeviceView& v, int nodes, int members);

/// Throws the simscope::InputError for non-finite `value` at flat C-order index `flat` of the
/// view, with initial_state_from_npy's message. Never returns.
[[noreturn]] void throw_nonfinite_initial(const DeviceView& v, std::size_t flat, double value);

}  // namespace simscope::oscillators
