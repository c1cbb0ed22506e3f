#pragma once
/// @file The host-side checks of an oscillators initial state in CUDA device memory
/// (Ensemble::load_device): what can be said of its DeviceView without reading values, with
/// initial_state_from_npy's messages, and the message of a non-finite value the device found.
/// Pure C++ (no CUDA API): the Python module checks its argument with these, and
/// tests/compute runs them without a GPU.
#include <cstddef>

#include "core/device_view.hpp"

namespace simscope::oscillators {

/// Throws simscope::InputError unless `v` is float32/float64 of shape (nodes, 2) or (members,
/// nodes, 2) (initial_state_from_npy's messages, naming v.name) with its data pointer and
/// strides multiples of its element size.
void check_initial_view(const DeviceView& v, int nodes, int members);

/// Throws the simscope::InputError of the non-finite value `value` at flat C-order index `flat`
/// of the view (initial_state_from_npy's message and index). Never returns.
[[noreturn]] void throw_nonfinite_initial(const DeviceView& v, std::size_t flat, double value);

}  // namespace simscope::oscillators
