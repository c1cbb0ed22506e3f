#pragma once
/// @file The element types of the arrays simscope reads and writes: .npy files (io/npy.hpp) and
/// the caller's device arrays (core/device_view.hpp).
namespace simscope {

enum class DType { Float32, Float64, Int32, Int64, UInt8 };

const char* to_string(DType t);  ///< numpy spelling: "float32", ...

}  // namespace simscope
