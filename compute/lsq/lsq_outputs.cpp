// The lsq workload's outputs and method names (lsq.hpp: outputs, to_string).
#include "lsq/lsq.hpp"

namespace simscope::lsq {

const std::vector<io::OutputSpec>& outputs() {
  using D = io::DType;
  static const std::vector<io::OutputSpec> all = {
      {"solution", "x", "", D::Float64},  // float32 when precision=fp32 (lsq_workload.cpp)
      {"residual", "RMS residual", "data", D::Float32},
      {"count", "observed rows", "", D::Int32},
      {"status", "status", "", D::UInt8},
      {"condition", "condition", "", D::Float32}};
  return all;
}

const char* to_string(Method m) {
  switch (m) {
    case Method::Normal:
      return "normal";
    case Method::Qr:
      return "qr";
    case Method::Svd:
      return "svd";
    case Method::Downdate:
      return "downdate";
    default:
      return "auto";
  }
}

}  // namespace simscope::lsq
