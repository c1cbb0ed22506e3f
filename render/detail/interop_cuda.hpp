#pragma once
/// @file Internal: the CUDA runtime calls of InteropBuffer (render/interop_cuda.cu).
/// Compiled and called only when SIMSCOPE_RENDER_HAVE_CUDA is defined. All functions except
/// register_gl_buffer throw RenderError with the CUDA error's name on failure.
#include <cstddef>
#include <string>

#include "render/interop_buffer.hpp"  // CudaStream

namespace simscope::render::detail {

struct CudaGlBuffer;  ///< an opaque cudaGraphicsResource for one GL buffer

/// Registers GL buffer `gl_buffer` of the current context for write-discard access.
/// On failure returns nullptr and sets `reason`, e.g. "no usable CUDA device:
/// cudaErrorInsufficientDriver".
CudaGlBuffer* register_gl_buffer(unsigned gl_buffer, std::string& reason);
/// Unregisters. Never throws; errors are ignored at teardown.
void unregister_gl_buffer(CudaGlBuffer* resource) noexcept;
/// Maps the resource on `stream` and returns its device pointer; `bytes` must fit the mapped size.
float* map_gl_buffer(CudaGlBuffer* resource, size_t bytes, CudaStream stream);
/// Unmaps on `stream`: work queued there before finishes before GL uses the buffer.
void unmap_gl_buffer(CudaGlBuffer* resource, CudaStream stream);
/// map + cudaMemcpyAsync device-to-device of `bytes` + unmap, all on `stream`.
void copy_device_to_gl_buffer(CudaGlBuffer* resource, const float* device_ptr, size_t bytes,
                              CudaStream stream);
/// cudaMemcpyAsync device-to-host on `stream`, then waits for the stream.
void copy_device_to_host(float* host, const float* device_ptr, size_t bytes, CudaStream stream);
/// The calling thread's current CUDA device (cudaGetDevice); -1 when no device is usable.
int current_cuda_device_or_none() noexcept;

}  // namespace simscope::render::detail
