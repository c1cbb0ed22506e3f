// Issue 29: an lsq residual map kept in CUDA device memory goes into the view's GL pixel buffer
// through InteropBuffer (CUDA-GL interop on the EGL device platform, the device->host copy
// elsewhere) as the upright image made on the device (lsq::upright_image_on_device, what the lsq
// view draws); read back from GL it equals, pixel for pixel, the host upload of the same map
// downloaded and made upright on the host (the window's host path). Skips where no CUDA device
// is usable.
#include <glad/gl.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "core/backend.hpp"
#include "core/device_memory.hpp"
#include "lsq/lsq.hpp"
#include "lsq/lsq_device_maps.hpp"
#include "render/interop_buffer.hpp"
#include "render_test_support.hpp"
#include "../compute/test_cuda_skip.hpp"

namespace simscope::render {
namespace {

using test::RenderTest;

std::vector<float> read_gl(const InteropBuffer& b, std::size_t n) {
  std::vector<float> v(n);
  glGetNamedBufferSubData(b.gl_buffer(), 0, GLsizeiptr(n * sizeof(float)), v.data());
  EXPECT_EQ(glGetError(), GLenum(GL_NO_ERROR));
  return v;
}

TEST_F(RenderTest, LsqResidualMapFromCudaThroughGlBufferEqualsTheHostUpload) {
  SKIP_WITHOUT_CUDA();
  lsq::SynthSpec s;
  s.height = 45, s.width = 62, s.m = 24, s.n = 6, s.nan_fraction = 0.35;
  lsq::Synth syn = lsq::generate(s);
  float* c = reinterpret_cast<float*>(syn.cube.bytes.data());  // pixel 100: all missing
  for (std::size_t i = 0; i < s.m; ++i) c[i * syn.cube.pixels() + 100] = NAN;
  auto solver = lsq::make_solver(Backend::Cuda);
  ASSERT_TRUE(solver->keep_outputs_on_device(true));
  lsq::Result res;
  solver->solve(syn.cube, syn.design, lsq::Options{}, res);
  ASSERT_FALSE(res.on_host) << res.device_note;
  const std::size_t H = s.height, W = s.width, n = H * W;
  const std::shared_ptr<const void> residual = solver->device_output("residual");
  ASSERT_NE(residual, nullptr);

  // Interop: the upright image made on the device, uploaded from there.
  const std::shared_ptr<const float> img = lsq::upright_image_on_device(
      residual.get(), io::DType::Float32, 0, H, W, solver->device());
  InteropBuffer device_buffer;
  device_buffer.upload_device(img.get(), n);
  if (context_->vendor().find("NVIDIA") != std::string::npos)  // else Mesa: the host copy
    EXPECT_EQ(device_buffer.path(), "cuda-gl interop") << device_buffer.fallback_reason();
  const std::vector<float> from_device = read_gl(device_buffer, n);

  // Host: the map downloaded, made upright on the host, uploaded from host memory.
  std::vector<float> map(n), upright(n);
  copy_device_to_host(map.data(), residual.get(), n * sizeof(float), solver->device());
  for (std::size_t i = 0; i < W; ++i)
    for (std::size_t j = 0; j < H; ++j) upright[i * H + j] = map[(H - 1 - j) * W + i];
  InteropBuffer host_buffer;
  host_buffer.upload_host(upright.data(), n);
  const std::vector<float> from_host = read_gl(host_buffer, n);

  ASSERT_EQ(from_device.size(), from_host.size());
  std::size_t nan = 0;
  for (std::size_t k = 0; k < n; ++k) {
    nan += std::isnan(from_host[k]);
    EXPECT_EQ(std::memcmp(&from_device[k], &from_host[k], sizeof(float)), 0) << k;
  }
  EXPECT_GT(nan, 0u);  // all-missing pixels are NaN in both
  std::printf("[ info ] lsq residual %zu x %zu: path %s, %zu NaN pixels\n", H, W,
              device_buffer.path().c_str(), nan);
}

}  // namespace
}  // namespace simscope::render
