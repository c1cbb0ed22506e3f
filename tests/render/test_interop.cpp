// The interop buffer: host uploads, and device uploads that use CUDA-GL interop, fall back to a
// device->host copy, or fail cleanly.
#include <glad/gl.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "render/error.hpp"
#include "render/interop_buffer.hpp"
#include "render/offscreen.hpp"
#include "render/plane_view.hpp"
#include "render_test_support.hpp"

#ifdef SIMSCOPE_RENDER_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif
#include "../compute/test_cuda_skip.hpp"

namespace simscope::render {
namespace {

using test::RenderTest;

TEST_F(RenderTest, InteropHostUploadAndGrowth) {
  InteropBuffer buf;
  EXPECT_EQ(buf.path(), "none");
  std::vector<float> a(10, 1.0f), b(1000, 2.0f);
  buf.upload_host(a.data(), a.size());
  EXPECT_EQ(buf.size(), 10u);
  buf.upload_host(b.data(), b.size());
  EXPECT_EQ(buf.size(), 1000u);
  buf.upload_host(a.data(), a.size());
  EXPECT_EQ(buf.size(), 10u);
  EXPECT_EQ(buf.path(), "host upload");
  EXPECT_NE(buf.gl_buffer(), 0u);
  EXPECT_THROW(buf.upload_host(a.data(), 0), RenderError);
  EXPECT_THROW(buf.upload_host(nullptr, 4), RenderError);
}

TEST_F(RenderTest, InteropDeviceUpload) {
  InteropBuffer buf;
  if (!InteropBuffer::cuda_compiled()) {
    std::vector<float> host(4, 1.0f);
    try {
      buf.upload_device(host.data(), host.size());
      FAIL() << "no exception";
    } catch (const RenderError& e) {
      EXPECT_NE(std::string(e.what()).find("built without CUDA"), std::string::npos) << e.what();
    }
    EXPECT_EQ(buf.map_device(4), nullptr);
    EXPECT_EQ(buf.fallback_reason(), "built without CUDA");
    CUDA_TEST_SKIP("built without CUDA: checked that upload_device throws cleanly");
  }
#ifdef SIMSCOPE_RENDER_HAVE_CUDA
  int devices = 0;
  const cudaError_t e = cudaGetDeviceCount(&devices);
  if (e != cudaSuccess || devices == 0) {
    cudaGetLastError();
    // No device: registration fails, the fallback's cudaMemcpy fails too -> a clean error.
    std::vector<float> host(4, 1.0f);
    try {
      buf.upload_device(host.data(), host.size());
      FAIL() << "no exception";
    } catch (const RenderError& err) {
      EXPECT_NE(std::string(err.what()).find("cudaMemcpy"), std::string::npos) << err.what();
    }
    EXPECT_NE(buf.fallback_reason().find("no usable CUDA device"), std::string::npos)
        << buf.fallback_reason();
    EXPECT_EQ(buf.map_device(4), nullptr);
    CUDA_TEST_SKIP("no CUDA device (" << cudaGetErrorName(e)
                 << "): checked the clean failure of upload_device");
  }
  // A device: a plane through upload_device must look exactly like the host upload.
  const int rows = 64, cols = 48;
  std::vector<float> host(rows * cols);
  for (int k = 0; k < rows * cols; ++k) host[k] = static_cast<float>((k * 37) % 101);
  float* dev = nullptr;
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&dev), host.size() * sizeof(float)), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(dev, host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice),
            cudaSuccess);
  ViewSettings s;
  s.colorbar = false;
  PlaneView from_host, from_device;
  from_host.set_settings(s);
  from_device.set_settings(s);
  from_host.set_data_host(host.data(), rows, cols);
  from_device.set_data_device(dev, rows, cols);
  Offscreen fa(rows, cols), fb(rows, cols);
  fa.bind();
  from_host.draw(0, 0, rows, cols);
  fb.bind();
  from_device.draw(0, 0, rows, cols);
  EXPECT_EQ(fa.read_rgba(), fb.read_rgba());
  const std::string path = from_device.upload_path();
  // Interop needs the GL context on an NVIDIA GPU (on the device platform the CUDA device's own
  // EGL device is chosen, egl_context.cpp); Mesa (llvmpipe, or another vendor's GPU) falls back.
  if (context_->vendor().find("NVIDIA") != std::string::npos) {
    EXPECT_EQ(path, "cuda-gl interop") << from_device.upload_fallback_reason();
    // The zero-copy path: write into the mapped pixel buffer, unmap, draw.
    float* mapped = from_device.map_device(rows, cols);
    ASSERT_NE(mapped, nullptr);
    ASSERT_EQ(cudaMemcpy(mapped, dev, host.size() * sizeof(float), cudaMemcpyDeviceToDevice),
              cudaSuccess);
    from_device.unmap_device();
    fb.bind();
    from_device.draw(0, 0, rows, cols);
    EXPECT_EQ(fa.read_rgba(), fb.read_rgba());
  } else {
    EXPECT_EQ(path, "device->host copy");
    EXPECT_FALSE(from_device.upload_fallback_reason().empty());
  }
  std::printf("[ info ] device upload path: %s %s\n", path.c_str(),
              from_device.upload_fallback_reason().c_str());
  cudaFree(dev);
#endif
}

// Issue 16 item 4: map, write and unmap on the caller's non-blocking stream (as the compute
// back ends' streams are): a large copy queued on that stream into the mapped buffer is done
// before GL reads it, and upload_device on that stream after a copy queued there reads the
// copied data (the copy, map and unmap are ordered on the one stream).
TEST_F(RenderTest, InteropOnACallerStream) {
#ifdef SIMSCOPE_RENDER_HAVE_CUDA
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    cudaGetLastError();
    CUDA_TEST_SKIP("no CUDA device");
  }
  if (context_->vendor().find("NVIDIA") == std::string::npos)
    CUDA_TEST_SKIP("GL on " << context_->vendor() << ": no CUDA-GL interop to order");
  const size_t n = size_t(1) << 24;  // 64 MiB: the copy takes long enough to be caught racing
  std::vector<float> host(n);
  for (size_t k = 0; k < n; ++k) host[k] = float(k % 9973);
  float *a = nullptr, *b = nullptr;
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&a), n * sizeof(float)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&b), n * sizeof(float)), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(a, host.data(), n * sizeof(float), cudaMemcpyHostToDevice), cudaSuccess);
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  InteropBuffer buf;
  float* mapped = buf.map_device(n, stream);
  ASSERT_NE(mapped, nullptr) << buf.fallback_reason();
  ASSERT_EQ(cudaMemcpyAsync(mapped, a, n * sizeof(float), cudaMemcpyDeviceToDevice, stream),
            cudaSuccess);
  buf.unmap_device();  // on `stream`: no host wait here
  std::vector<float> from_gl(n);
  glGetNamedBufferSubData(buf.gl_buffer(), 0, GLsizeiptr(n * sizeof(float)), from_gl.data());
  EXPECT_EQ(from_gl, host);
  // upload_device: b is filled on the stream, then uploaded on the same stream.
  ASSERT_EQ(cudaMemsetAsync(b, 0, n * sizeof(float), stream), cudaSuccess);
  ASSERT_EQ(cudaMemcpyAsync(b, a, n * sizeof(float), cudaMemcpyDeviceToDevice, stream),
            cudaSuccess);
  buf.upload_device(b, n, stream);
  EXPECT_EQ(buf.path(), "cuda-gl interop");
  std::fill(from_gl.begin(), from_gl.end(), -1.0f);
  glGetNamedBufferSubData(buf.gl_buffer(), 0, GLsizeiptr(n * sizeof(float)), from_gl.data());
  EXPECT_EQ(from_gl, host);
  cudaStreamDestroy(stream);
  cudaFree(a);
  cudaFree(b);
#else
  CUDA_TEST_SKIP("built without CUDA");
#endif
}

}  // namespace
}  // namespace simscope::render
