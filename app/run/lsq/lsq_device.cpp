// lsq's maps in device memory (lsq_device.hpp).
#include "lsq_device.hpp"

#include <utility>

#include "core/device_memory.hpp"
#include "core/error.hpp"
#include "lsq/lsq_device_maps.hpp"
#include "ranges/split_merge.hpp"

namespace simscope::app {

namespace {

std::size_t item_bytes(io::DType dtype) {
  switch (dtype) {
    case io::DType::Float64: return 8;
    case io::DType::UInt8: return 1;
    default: return 4;  // Float32, Int32 (OutputData holds no other)
  }
}

std::size_t product(const std::vector<std::size_t>& v, std::size_t from, std::size_t to) {
  std::size_t n = 1;
  for (std::size_t d = from; d < to; ++d) n *= v[d];
  return n;
}

}  // namespace

std::shared_ptr<const LsqDeviceOps> lsq_cuda_ops(int device) {
  auto ops = std::make_shared<LsqDeviceOps>();
  ops->device = device;
  ops->download = [device](void* dst, const void* src, std::size_t bytes) {
    copy_device_to_host(dst, src, bytes, device);
  };
  ops->upright = [device](const void* map, io::DType dtype, std::size_t offset, std::size_t h,
                          std::size_t w, double* max_abs) {
    return lsq::upright_image_on_device(map, dtype, offset, h, w, device, max_abs);
  };
  ops->concat = [device](const std::vector<const void*>& parts,
                         const std::vector<std::size_t>& bytes, std::size_t outer) {
    return lsq::concat_blocks_on_device(parts, bytes, outer, device);
  };
  return ops;
}

OutputData lsq_device_data(std::shared_ptr<const void> memory, io::DType dtype, std::size_t count,
                           const std::shared_ptr<const LsqDeviceOps>& ops) {
  if (!memory) throw Error("lsq: a map is not in device memory");
  const std::size_t item = item_bytes(dtype);
  const void* p = memory.get();
  return OutputData::on_device(std::move(memory), dtype, count,
                               [ops, p, item](void* dst, std::size_t n) {
                                 ops->download(dst, p, n * item);
                               });
}

OutputData lsq_device_image(const OutputData& o, std::size_t offset, std::size_t height,
                            std::size_t width, const std::shared_ptr<const LsqDeviceOps>& ops,
                            double* max_abs) {
  std::shared_ptr<const float> img =
      ops->upright(o.device_bytes(), o.dtype(), offset, height, width, max_abs);
  return lsq_device_data(std::shared_ptr<const void>(img, img.get()), io::DType::Float32,
                         height * width, ops);
}

std::optional<OutputArray> concat_on_device(const std::vector<RunResult>& parts,
                                            const std::string& name, std::size_t dim,
                                            const std::shared_ptr<const LsqDeviceOps>& ops) {
  if (!ops || parts.empty()) return std::nullopt;
  std::vector<const OutputArray*> os;
  for (const RunResult& p : parts) {
    const OutputArray* o = p.find(name);
    if (!o || !device_only(o->data)) return std::nullopt;
    os.push_back(o);
  }
  const OutputArray& first = *os.front();
  if (dim >= first.shape.size()) return std::nullopt;
  OutputArray out = first;
  out.shape = concat_shape(os, name, dim);
  const std::size_t outer = product(first.shape, 0, dim);
  const std::size_t inner = product(first.shape, dim + 1, first.shape.size());
  const std::size_t item = item_bytes(first.data.dtype());
  std::vector<const void*> mem;
  std::vector<std::size_t> bytes;
  for (const OutputArray* o : os) {
    mem.push_back(o->data.device_bytes());
    bytes.push_back(o->shape[dim] * inner * item);
  }
  out.data = lsq_device_data(ops->concat(mem, bytes, outer), first.data.dtype(),
                             product(out.shape, 0, out.shape.size()), ops);
  return out;
}

}  // namespace simscope::app
