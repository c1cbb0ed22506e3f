#include "render/interop_buffer.hpp"

#include <glad/gl.h>

#include <atomic>
#include <cstdint>
#include <iostream>
#include <vector>

#include "render/detail/gl_check.hpp"
#include "render/error.hpp"
#ifdef SIMSCOPE_RENDER_HAVE_CUDA
#include "render/detail/interop_cuda.hpp"
#endif

namespace simscope::render {

using detail::check_gl;

struct InteropBuffer::Impl {
  GLuint buffer = 0;
  size_t capacity = 0;  // floats allocated
  size_t size = 0;      // floats of the last upload
  std::string path = "none";
  std::string reason;
#ifdef SIMSCOPE_RENDER_HAVE_CUDA
  detail::CudaGlBuffer* cuda = nullptr;
  bool tried_register = false;
  bool mapped = false;
  CudaStream mapped_stream = nullptr;  // map_device's stream, for unmap_device
  std::vector<float> staging;
#endif
};

InteropBuffer::InteropBuffer() : impl_(std::make_unique<Impl>()) {
  detail::require_gl("InteropBuffer");
  glCreateBuffers(1, &impl_->buffer);
  check_gl("glCreateBuffers (interop buffer)");
  if (!cuda_compiled()) impl_->reason = "built without CUDA";
}

InteropBuffer::~InteropBuffer() {
#ifdef SIMSCOPE_RENDER_HAVE_CUDA
  if (impl_->mapped) {
    try {
      detail::unmap_gl_buffer(impl_->cuda, impl_->mapped_stream);
    } catch (const RenderError&) {
    }
  }
  detail::unregister_gl_buffer(impl_->cuda);
#endif
  if (impl_->buffer != 0) glDeleteBuffers(1, &impl_->buffer);
}

void InteropBuffer::reserve(size_t n) {
  if (n == 0) throw RenderError("interop buffer: an upload needs at least one value");
  if (n > static_cast<size_t>(PTRDIFF_MAX) / sizeof(float)) {
    throw RenderError("interop buffer: " + std::to_string(n) + " floats do not fit in memory");
  }
  if (n > impl_->capacity) {
#ifdef SIMSCOPE_RENDER_HAVE_CUDA
    if (impl_->mapped) throw RenderError("interop buffer: resized while mapped for CUDA");
    // A registered buffer's storage must not be re-specified: unregister, reallocate, retry.
    detail::unregister_gl_buffer(impl_->cuda);
    impl_->cuda = nullptr;
    impl_->tried_register = false;
#endif
    glNamedBufferData(impl_->buffer, static_cast<GLsizeiptr>(n * sizeof(float)), nullptr,
                      GL_STREAM_DRAW);
    check_gl("allocating the interop buffer (glNamedBufferData)");
    impl_->capacity = n;
  }
  impl_->size = n;
}

void InteropBuffer::upload_host(const float* data, size_t n) {
  if (data == nullptr) throw RenderError("interop buffer: upload_host given a null pointer");
  reserve(n);
  glNamedBufferSubData(impl_->buffer, 0, static_cast<GLsizeiptr>(n * sizeof(float)), data);
  check_gl("uploading to the interop buffer (glNamedBufferSubData)");
  impl_->path = "host upload";
}

bool InteropBuffer::ensure_registered() {
#ifdef SIMSCOPE_RENDER_HAVE_CUDA
  if (impl_->cuda != nullptr) return true;
  if (!impl_->tried_register) {
    impl_->tried_register = true;
    impl_->cuda = detail::register_gl_buffer(impl_->buffer, impl_->reason);
    if (impl_->cuda == nullptr) {
      static std::atomic<bool> logged{false};
      if (!logged.exchange(true)) {
        std::cerr << "simscope: CUDA-GL interop unavailable, using device->host copies: "
                  << impl_->reason << "\n";
      }
    } else {
      impl_->reason.clear();
    }
  }
  return impl_->cuda != nullptr;
#else
  return false;
#endif
}

void InteropBuffer::upload_device(const float* device_ptr, size_t n, CudaStream stream) {
#ifdef SIMSCOPE_RENDER_HAVE_CUDA
  if (device_ptr == nullptr)
    throw RenderError("interop buffer: upload_device given a null pointer");
  reserve(n);
  if (ensure_registered()) {
    detail::copy_device_to_gl_buffer(impl_->cuda, device_ptr, n * sizeof(float), stream);
    impl_->path = "cuda-gl interop";
    return;
  }
  impl_->staging.resize(n);
  detail::copy_device_to_host(impl_->staging.data(), device_ptr, n * sizeof(float), stream);
  upload_host(impl_->staging.data(), n);
  impl_->path = "device->host copy";
#else
  (void)device_ptr;
  (void)n;
  (void)stream;
  throw RenderError(
      "upload_device: simscope was built without CUDA; hand host memory to upload_host");
#endif
}

float* InteropBuffer::map_device(size_t n, CudaStream stream) {
#ifdef SIMSCOPE_RENDER_HAVE_CUDA
  if (impl_->mapped) throw RenderError("interop buffer: map_device called twice");
  reserve(n);
  if (!ensure_registered()) return nullptr;
  float* ptr = detail::map_gl_buffer(impl_->cuda, n * sizeof(float), stream);
  impl_->mapped = true;
  impl_->mapped_stream = stream;
  return ptr;
#else
  (void)n;
  (void)stream;
  return nullptr;
#endif
}

void InteropBuffer::unmap_device() {
#ifdef SIMSCOPE_RENDER_HAVE_CUDA
  if (!impl_->mapped) return;
  impl_->mapped = false;
  detail::unmap_gl_buffer(impl_->cuda, impl_->mapped_stream);
  impl_->path = "cuda-gl interop";
#endif
}

size_t InteropBuffer::size() const { return impl_->size; }
unsigned InteropBuffer::gl_buffer() const { return impl_->buffer; }
std::string InteropBuffer::path() const { return impl_->path; }
std::string InteropBuffer::fallback_reason() const { return impl_->reason; }

bool InteropBuffer::cuda_compiled() {
#ifdef SIMSCOPE_RENDER_HAVE_CUDA
  return true;
#else
  return false;
#endif
}

}  // namespace simscope::render
