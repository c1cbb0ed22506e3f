#pragma once
/// @file Device-side helpers for lsq's maps kept in CUDA device memory (Solver::
/// keep_outputs_on_device): the upright view image of one map and the concatenation of row
/// ranges, both without a host copy. Pure C++ declarations; CUDA builds implement them
/// (lsq_device_maps.cu), other builds throw simscope::Error.
#include <cstddef>
#include <memory>
#include <vector>

#include "io/npy.hpp"

namespace simscope::lsq {

/// The upright float32 image of the (height, width) map of `dtype` (Float32, Float64, Int32 or
/// UInt8) at element `offset` of `map` on CUDA device `device`: width x height values, sample
/// (i, j) at [i * height + j] = pixel (height - 1 - j, i), as the lsq view draws it. New device
/// memory, freed when the last holder lets go. With `max_abs`, also the largest finite |value|
/// of the image (0 when none), reduced on the device. Throws simscope::Error on a device
/// failure or another dtype.
std::shared_ptr<const float> upright_image_on_device(const void* map, io::DType dtype,
                                                     std::size_t offset, std::size_t height,
                                                     std::size_t width, int device,
                                                     double* max_abs = nullptr);

/// The C-order arrays `parts` (device memory of `device`) concatenated within each of `outer`
/// blocks: part k holds outer blocks of bytes[k] bytes, the result outer blocks of sum(bytes)
/// bytes, part k's at the sum of the earlier parts' bytes (row ranges: (N, h_k, W) solutions
/// with outer = N, (h_k, W) maps with outer = 1). New device memory, freed when the last holder
/// lets go. Throws simscope::Error on a device failure or sizes that do not match.
std::shared_ptr<const void> concat_blocks_on_device(const std::vector<const void*>& parts,
                                                    const std::vector<std::size_t>& bytes,
                                                    std::size_t outer, int device);

}  // namespace simscope::lsq
