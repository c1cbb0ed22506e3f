#include "core/precision.hpp"

namespace simscope {

const char* to_string(Precision p) { return p == Precision::Fp32 ? "fp32" : "fp64"; }

}  // namespace simscope
