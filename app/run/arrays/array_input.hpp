#pragma once
/// @file An array a caller holds, handed to a workload's array entry point
/// (app/run/NAME/NAME_arrays.hpp): nothing, host values read in place through their strides, a
/// C-order copy the caller made, or an array in CUDA memory. The Python module makes one of each
/// argument (app/python/py_arrays.hpp); the entry point reads it with its workload's readers and
/// messages.
#include <cstddef>
#include <vector>

#include "arrays/vocabulary.hpp"

namespace simscope::app {

/// A caller's array, as the caller holds it. The memory (`data`, `device`) is the caller's: alive
/// and unchanged until the call that reads it returns.
struct ArrayInput {
  enum class Kind {
    None,     ///< not given: the schema makes it (a generator, a grid)
    InPlace,  ///< host values at `data`, read in place through `strides`
    Copy,     ///< host values copied by the caller into `copy` (C order)
    Device,   ///< CUDA memory: `device`
  };
  Kind kind = Kind::None;
  /// InPlace: element [0, ..., 0], native byte order, `dtype`; `strides` per dimension in bytes
  /// (any sign).
  const void* data = nullptr;
  DType dtype = DType::Float32;
  std::vector<std::size_t> shape;
  std::vector<std::ptrdiff_t> strides;
  io::NpyArray copy;                  ///< Copy
  const DeviceView* device = nullptr;  ///< Device

  bool given() const { return kind != Kind::None; }
  /// The number of rows (the first dimension), 0 when not given or 0-d.
  std::size_t rows() const {
    const std::vector<std::size_t>& s =
        kind == Kind::Copy ? copy.shape : kind == Kind::Device ? device->shape : shape;
    return kind == Kind::None || s.empty() ? 0 : s[0];
  }
};

}  // namespace simscope::app
