#include "core/dtype.hpp"

namespace simscope {

const char* to_string(DType t) {
  switch (t) {
    case DType::Float32:
      return "float32";
    case DType::Float64:
      return "float64";
    case DType::Int32:
      return "int32";
    case DType::Int64:
      return "int64";
    case DType::UInt8:
      return "uint8";
  }
  return "unknown";
}

}  // namespace simscope
