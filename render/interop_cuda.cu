// CUDA-GL interop for InteropBuffer.
// Reference: CUDA runtime API, "OpenGL Interoperability" (cudaGraphicsGLRegisterBuffer) and
// "Graphics Interoperability" (cudaGraphicsMapResources, cudaGraphicsResourceGetMappedPointer,
// cudaGraphicsUnmapResources, cudaGraphicsUnregisterResource). glad's header comes first, so
// cuda_gl_interop.h needs no system GL headers.
#include <glad/gl.h>
// clang-format off
#include <cuda_gl_interop.h>
#include <cuda_runtime_api.h>
// clang-format on

#include <string>

#include "render/detail/interop_cuda.hpp"
#include "render/error.hpp"

namespace simscope::render::detail {

struct CudaGlBuffer {
  cudaGraphicsResource_t resource = nullptr;
};

namespace {

std::string describe(cudaError_t e) {
  return std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e);
}

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    cudaGetLastError();  // clear a non-sticky error
    throw RenderError(std::string("CUDA ") + what + " failed (" + describe(e) + ")");
  }
}

}  // namespace

CudaGlBuffer* register_gl_buffer(unsigned gl_buffer, std::string& reason) {
  int devices = 0;
  cudaError_t e = cudaGetDeviceCount(&devices);
  if (e != cudaSuccess || devices == 0) {
    cudaGetLastError();
    reason = "no usable CUDA device (" + (e != cudaSuccess ? describe(e) : "0 devices") + ")";
    return nullptr;
  }
  auto* out = new CudaGlBuffer;
  e = cudaGraphicsGLRegisterBuffer(&out->resource, gl_buffer,
                                   cudaGraphicsRegisterFlagsWriteDiscard);
  if (e != cudaSuccess) {
    cudaGetLastError();
    delete out;
    reason = "cudaGraphicsGLRegisterBuffer failed (" + describe(e) +
             "): the GL context is not on a CUDA device";
    return nullptr;
  }
  return out;
}

void unregister_gl_buffer(CudaGlBuffer* resource) noexcept {
  if (resource == nullptr) return;
  if (resource->resource != nullptr) cudaGraphicsUnregisterResource(resource->resource);
  cudaGetLastError();
  delete resource;
}

float* map_gl_buffer(CudaGlBuffer* resource, size_t bytes, CudaStream stream) {
  check(cudaGraphicsMapResources(1, &resource->resource, stream), "cudaGraphicsMapResources");
  void* ptr = nullptr;
  size_t size = 0;
  const cudaError_t e = cudaGraphicsResourceGetMappedPointer(&ptr, &size, resource->resource);
  if (e != cudaSuccess || size < bytes) {
    cudaGraphicsUnmapResources(1, &resource->resource, stream);
    if (e != cudaSuccess) check(e, "cudaGraphicsResourceGetMappedPointer");
    throw RenderError("CUDA mapped GL buffer holds " + std::to_string(size) + " bytes, " +
                      std::to_string(bytes) + " needed");
  }
  return static_cast<float*>(ptr);
}

void unmap_gl_buffer(CudaGlBuffer* resource, CudaStream stream) {
  check(cudaGraphicsUnmapResources(1, &resource->resource, stream), "cudaGraphicsUnmapResources");
}

void copy_device_to_gl_buffer(CudaGlBuffer* resource, const float* device_ptr, size_t bytes,
                              CudaStream stream) {
  float* dst = map_gl_buffer(resource, bytes, stream);
  const cudaError_t e = cudaMemcpyAsync(dst, device_ptr, bytes, cudaMemcpyDeviceToDevice, stream);
  const cudaError_t u = cudaGraphicsUnmapResources(1, &resource->resource, stream);
  check(e, "cudaMemcpyAsync device->GL buffer");
  check(u, "cudaGraphicsUnmapResources");
}

void copy_device_to_host(float* host, const float* device_ptr, size_t bytes, CudaStream stream) {
  check(cudaMemcpyAsync(host, device_ptr, bytes, cudaMemcpyDeviceToHost, stream),
        "cudaMemcpy device->host");
  check(cudaStreamSynchronize(stream), "cudaMemcpy device->host (cudaStreamSynchronize)");
}

int current_cuda_device_or_none() noexcept {
  int n = 0, d = -1;
  if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0 || cudaGetDevice(&d) != cudaSuccess) {
    cudaGetLastError();
    return -1;
  }
  return d;
}

}  // namespace simscope::render::detail
