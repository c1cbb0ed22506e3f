#pragma once
/// @file Internal: the CUDA runtime calls of InteropBuffer (render/interop_cuda.cu). Only
/// compiled and called when SIMSCOPE_RENDER_HAVE_CUDA is defined. All functions throw
/// RenderError with the CUDA error's name on failure, except register_gl_buffer.
#include <cstddef>
#include <string>

namespace simscope::render::detail {

struct CudaGlBuffer;  ///< an opaque cudaGraphicsResource for one GL buffer

/// Registers GL buffer `gl_buffer` (current context) for write-discard access; nullptr and
/// `reason` set (e.g. "no usable CUDA device: cudaErrorInsufficientDriver") when it fails.
CudaGlBuffer* register_gl_buffer(unsigned gl_buffer, std::string& reason);
/// Unregisters; never throws (errors are ignored at teardown).
void unregister_gl_buffer(CudaGlBuffer* resource) noexcept;
/// Maps the resource and returns its device pointer; `bytes` must fit the mapped size.
float* map_gl_buffer(CudaGlBuffer* resource, size_t bytes);
void unmap_gl_buffer(CudaGlBuffer* resource);
/// map + cudaMemcpy device-to-device of `bytes` + unmap.
void copy_device_to_gl_buffer(CudaGlBuffer* resource, const float* device_ptr, size_t bytes);
/// cudaMemcpy device-to-host.
void copy_device_to_host(float* host, const float* device_ptr, size_t bytes);

}  // namespace simscope::render::detail
