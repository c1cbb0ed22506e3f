// The status bar's word on where a result's outputs live (view_upload.hpp: outputs_location):
// lsq's maps kept on the CUDA device read "maps on the device" until something copies them to
// the host, host outputs "maps on the host". Device memory is faked with host memory.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "view_upload.hpp"

namespace simscope::app {
namespace {

OutputData fake_device(std::size_t n) {
  std::shared_ptr<const float> mem(new float[n](), [](const float* p) { delete[] p; });
  return OutputData::on_device(mem, io::DType::Float32, n, [mem](void* dst, std::size_t k) {
    std::copy(mem.get(), mem.get() + k, static_cast<float*>(dst));
  });
}

TEST(OutputsLocation, SaysWhereTheMapsLive) {
  RunResult r;
  r.outputs.resize(2);
  r.outputs[0].data = fake_device(4);
  r.outputs[1].data = fake_device(4);
  EXPECT_EQ(outputs_location(r), "maps on the device");
  r.outputs[1].data.host();  // e.g. the residual histogram
  EXPECT_EQ(outputs_location(r), "maps on the device, copied to the host");
  r.outputs[1].data = std::vector<float>{1, 2, 3, 4};
  EXPECT_EQ(outputs_location(r), "maps on the host");
  EXPECT_EQ(outputs_location(RunResult{}), "maps on the host");
}

}  // namespace
}  // namespace simscope::app
