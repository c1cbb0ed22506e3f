#pragma once
/// @file compute's vocabulary, part of the run layer's API for the callers that include the run
/// layer alone (the Python module): errors (Error, InputError, Cancelled), back ends (Backend,
/// BackendChoice, choose_backend, cuda_status, cuda_device_count, cuda_select_device), the CPU
/// kernels' level (isa_level, isa_name, built_isa_levels), progress and cancel (Progress),
/// element types (DType) and the .npy array (io::NpyArray), arrays in CUDA memory (DeviceView)
/// and copies out of it (copy_device_to_host). A caller names these through this header, never
/// through compute/ (docs/dev/layout.md); the run layer's own functions take and return them.
#include "core/backend.hpp"
#include "core/device_memory.hpp"
#include "core/device_view.hpp"
#include "core/error.hpp"
#include "core/isa.hpp"
#include "core/progress.hpp"
#include "io/npy.hpp"
