#pragma once
/// @file Host-side checks of an lsq cube in CUDA device memory, for Solver::solve_device.
/// Checks what its DeviceView shows without reading values, with the cube loader's messages
/// (borrow_cube), and formats an inf entry found on the device. Pure C++ without the CUDA API:
/// the Python module checks its arguments with these, and tests/compute runs them without a
/// GPU.
#include <cstddef>

#include "core/device_view.hpp"

namespace simscope::lsq {

/// Throws simscope::InputError unless `v` is a non-empty (M, H, W) float32/float64 array whose
/// data pointer and strides are multiples of its element size. Messages: borrow_cube's for the
/// dtype and an empty shape, naming v.name; cube_from_npy's for the number of dimensions.
void check_cube_view(const DeviceView& v);

/// Throws the simscope::InputError of an inf entry at flat C-order index `flat` of the view.
/// `value` is that entry, copied to the host, of v.dtype. The message is the loader's:
/// "NAME: entry [i, h, w] is inf; only NaN may mark a missing observation". Never returns.
[[noreturn]] void throw_inf_entry(const DeviceView& v, std::size_t flat, const void* value);

}  // namespace simscope::lsq
