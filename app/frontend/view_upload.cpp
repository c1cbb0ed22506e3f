#include "view_upload.hpp"

#include <string>

#include "core/error.hpp"

namespace simscope::app {

void upload_image(render::PlaneView& view, const ViewImage& image) {
  const std::size_t n = std::size_t(image.rows) * std::size_t(image.cols);
  if (image.data.size() < n)
    throw Error("view: image of " + std::to_string(image.rows) + " x " +
                std::to_string(image.cols) + " holds only " + std::to_string(image.data.size()) +
                " values");
  if (const float* device = image.data.device())
    view.set_data_device(device, image.rows, image.cols);
  else
    view.set_data_host(image.data.host().data(), image.rows, image.cols);
}

std::string outputs_location(const RunResult& r) {
  bool device = !r.outputs.empty(), copied = false;
  for (const OutputArray& o : r.outputs) {
    if (!o.data.device_bytes()) device = false;
    else if (o.data.host_ready()) copied = true;
  }
  if (!device) return "maps on the host";
  return copied ? "maps on the device, copied to the host" : "maps on the device";
}

std::string upload_path_words(const std::string& path) {
  if (path == "cuda-gl interop") return "CUDA-GL interop";
  if (path == "host upload") return "host copy to texture";
  if (path == "device->host copy") return "device to host copy to texture";
  if (path == "none" || path.empty()) return "none yet";
  return path;
}

}  // namespace simscope::app
