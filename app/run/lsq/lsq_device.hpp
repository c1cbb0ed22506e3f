#pragma once
/// @file How the run layer reaches lsq's maps when the CUDA solver kept them in device memory
/// (lsq::Solver::keep_outputs_on_device): downloads, the view's upright image and the merge of
/// row ranges. Only the download makes a host copy. One interface, so the CPU tests run the
/// same paths over fake device memory made of host memory and counters.
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "io/npy.hpp"
#include "output/output_data.hpp"
#include "workload.hpp"

namespace simscope::app {

/// Operations on device memory of one device, for lsq's maps.
struct LsqDeviceOps {
  int device = -1;  ///< the CUDA device of the memory
  /// Copies `bytes` from device memory `src` into host memory `dst`. Throws simscope::Error.
  std::function<void(void* dst, const void* src, std::size_t bytes)> download;
  /// The upright float32 image of the (height, width) map of `dtype` at element `offset` of
  /// `map`, in new device memory: width x height, lsq::upright_image_on_device's layout. With
  /// `max_abs`, also the image's largest finite |value|; 0 when none.
  std::function<std::shared_ptr<const float>(const void* map, io::DType dtype, std::size_t offset,
                                             std::size_t height, std::size_t width,
                                             double* max_abs)>
      upright;
  /// The parts concatenated within each of `outer` blocks, in new device memory
  /// (lsq::concat_blocks_on_device).
  std::function<std::shared_ptr<const void>(const std::vector<const void*>& parts,
                                            const std::vector<std::size_t>& bytes,
                                            std::size_t outer)>
      concat;
};

/// The CUDA implementation on `device`: core/device_memory.hpp's copy and lsq_device_maps.hpp.
std::shared_ptr<const LsqDeviceOps> lsq_cuda_ops(int device);

/// An output of `count` values of `dtype` at `memory`, device memory of `ops` held by the
/// result. ops.download copies it on the first host read.
OutputData lsq_device_data(std::shared_ptr<const void> memory, io::DType dtype, std::size_t count,
                           const std::shared_ptr<const LsqDeviceOps>& ops);

/// Whether `o` is held in device memory and not yet on the host.
inline bool device_only(const OutputData& o) { return o.device_bytes() && !o.host_ready(); }

/// The upright view image of map `o` in device memory: (H, W), or (N, H, W) from element
/// `offset`. Made by ops.upright, as an OutputData whose device() the view uploads through
/// interop. `max_abs` as ops.upright's.
OutputData lsq_device_image(const OutputData& o, std::size_t offset, std::size_t height,
                            std::size_t width, const std::shared_ptr<const LsqDeviceOps>& ops,
                            double* max_abs = nullptr);

/// Output `name` of consecutive row ranges `parts`, concatenated along dimension `dim` on the
/// device by ops.concat when every part holds it there. Null otherwise; the caller then merges
/// on the host. The parts' shapes are checked as split_merge's concat_outputs checks them.
std::optional<OutputArray> concat_on_device(const std::vector<RunResult>& parts,
                                            const std::string& name, std::size_t dim,
                                            const std::shared_ptr<const LsqDeviceOps>& ops);

}  // namespace simscope::app
