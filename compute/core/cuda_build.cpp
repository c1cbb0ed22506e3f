#include "core/cuda_build.hpp"

#include "core/cuda_build_reason.hpp"  // generated: SIMSCOPE_NO_CUDA_REASON (compute/CMakeLists.txt)

namespace simscope {

std::string cuda_build_note() {
#ifdef SIMSCOPE_HAVE_CUDA
  return {};
#else
  return std::string("built without CUDA: ") + SIMSCOPE_NO_CUDA_REASON;
#endif
}

}  // namespace simscope
