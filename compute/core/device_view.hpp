#pragma once
/// @file Input arrays in CUDA device memory, passed to CUDA back ends by pointer without a copy.
/// Sources: DLPack tensors of the caller, e.g. torch CUDA tensors or CuPy arrays.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/dtype.hpp"
#include "core/error.hpp"

namespace simscope {

/// A bad value or layout in an input array, found by a back end while reading it.
/// Example: a non-finite coordinate in a DeviceView, found by a kernel.
/// The caller's input is at fault, not the device. The Python module raises it as ValueError.
class InputError : public Error {
 public:
  using Error::Error;
};

/// A strided array in CUDA device memory, read but never written by a CUDA back end.
///
/// The caller owns the memory. It must stay allocated and unchanged until the reading call returns.
/// `stream` is the CUDA stream whose queued work completes the values, as in DLPack
/// `__dlpack__(stream=...)`: 1 is the legacy default stream, 2 the per-thread default stream,
/// any other value a cudaStream_t. The back end makes its own stream wait on an event recorded
/// on `stream` before the first read. The host never waits.
struct DeviceView {
  const void* data = nullptr;  ///< element [0, ..., 0] (DLPack's data + byte_offset)
  DType dtype = DType::Float32;
  std::vector<std::size_t> shape;
  std::vector<std::ptrdiff_t> strides;  ///< per dimension, in BYTES (any sign)
  int device = 0;                       ///< CUDA device ordinal (DLPack device_id)
  std::uintptr_t stream = 1;            ///< see above; 1: cudaStreamLegacy
  std::string name;                     ///< the argument, for messages ("sources", "cube")

  std::size_t ndim() const { return shape.size(); }
  /// Number of elements: the product of the shape, 1 for 0-d.
  std::size_t size() const {
    std::size_t n = 1;
    for (std::size_t d : shape) n *= d;
    return n;
  }
  /// Bytes per element: 4 or 8 for float types, 1 for uint8.
  std::size_t itemsize() const {
    switch (dtype) {
      case DType::Float64:
      case DType::Int64:
        return 8;
      case DType::UInt8:
        return 1;
      default:
        return 4;
    }
  }
  /// Whether the strides are C order: row-major and contiguous. Dimensions of size 1 are ignored.
  bool c_contiguous() const {
    std::ptrdiff_t expect = std::ptrdiff_t(itemsize());
    for (std::size_t k = shape.size(); k-- > 0;) {
      if (shape[k] != 1 && strides[k] != expect) return false;
      expect *= std::ptrdiff_t(shape[k]);
    }
    return true;
  }
  /// Throws InputError "<name>: device memory not aligned to its <itemsize>-byte elements" unless
  /// the data pointer is non-null and it and every stride are multiples of the element size.
  void check_aligned() const {
    const auto item = std::ptrdiff_t(itemsize());
    bool aligned = data && reinterpret_cast<std::uintptr_t>(data) % std::uintptr_t(item) == 0;
    for (std::ptrdiff_t s : strides) aligned = aligned && s % item == 0;
    if (!aligned)
      throw InputError(name + ": device memory not aligned to its " + std::to_string(item) +
                       "-byte elements");
  }
};

}  // namespace simscope
