// lsq_device_maps.hpp in builds without the CUDA back end: every call throws.
#include "lsq/lsq_device_maps.hpp"

#include "core/error.hpp"

#ifndef SIMSCOPE_HAVE_CUDA
namespace simscope::lsq {

std::shared_ptr<const float> upright_image_on_device(const void*, io::DType, std::size_t,
                                                     std::size_t, std::size_t, int, double*) {
  throw Error("lsq: device maps need the CUDA back end, which this build does not have");
}

std::shared_ptr<const void> concat_blocks_on_device(const std::vector<const void*>&,
                                                    const std::vector<std::size_t>&, std::size_t,
                                                    int) {
  throw Error("lsq: device maps need the CUDA back end, which this build does not have");
}

}  // namespace simscope::lsq
#endif
