#pragma once
/// @file A GL pixel buffer of floats that a CUDA kernel or the host fills, and from which views
/// upload their textures (GL_PIXEL_UNPACK_BUFFER).
#include <cstddef>
#include <memory>
#include <string>

struct CUstream_st;  // the CUDA runtime's stream type (cudaStream_t), without its headers

namespace simscope::render {

/// A CUDA stream (cudaStream_t) for the interop calls; nullptr: the legacy default stream.
using CudaStream = CUstream_st*;

/// A GL buffer object holding `size()` floats (4 bytes each). Create, use and destroy it while
/// its GL context is current.
///
/// Paths, as path() reports them:
///  - "host upload": the last data came from host memory (glNamedBufferSubData);
///  - "cuda-gl interop": from device memory through CUDA-GL interop: the buffer is registered
///    once with cudaGraphicsGLRegisterBuffer(..., cudaGraphicsRegisterFlagsWriteDiscard), then per
///    upload cudaGraphicsMapResources, cudaGraphicsResourceGetMappedPointer, a device-to-device
///    cudaMemcpyAsync, cudaGraphicsUnmapResources, all three on the caller's stream (CUDA runtime
///    API, "Graphics Interoperability": the unmap orders the stream's earlier work before GL's
///    later use; a kernel on another stream, e.g. a cudaStreamNonBlocking compute stream, would
///    not be ordered, and GL could read a half-written buffer);
///  - "device->host copy": from device memory when registration failed (no CUDA device, a Mesa
///    context, WSL, a hybrid laptop whose GL runs on another GPU): cudaMemcpy device to host and
///    a host upload. The reason is in fallback_reason() and printed once per process to stderr.
class InteropBuffer {
 public:
  InteropBuffer();  ///< an empty buffer; needs a current GL 4.5 context. Throws RenderError.
  ~InteropBuffer();
  InteropBuffer(const InteropBuffer&) = delete;
  InteropBuffer& operator=(const InteropBuffer&) = delete;

  /// Copies n floats from host memory (n > 0), growing the buffer when needed.
  void upload_host(const float* data, size_t n);

  /// Copies n floats from CUDA device memory (see the paths above) on `stream`: map, copy and
  /// unmap are ordered after the work already queued on it (so `device_ptr` may be written by a
  /// kernel queued there). Throws RenderError "built without CUDA" in builds without CUDA, and
  /// on any CUDA failure (message with the CUDA error name); the previous contents then stay.
  void upload_device(const float* device_ptr, size_t n, CudaStream stream = nullptr);

  /// For kernels that write straight into the buffer: resizes it to n floats and, when the
  /// interop path works, maps it on `stream` and returns its device pointer (valid until
  /// unmap_device()); returns nullptr when interop is not available (use upload_device or
  /// upload_host then). The kernels writing it must run on `stream` (unmap_device() unmaps on
  /// it, which orders them before GL reads the buffer).
  float* map_device(size_t n, CudaStream stream = nullptr);
  /// Ends map_device() on map_device's stream; path() becomes "cuda-gl interop". A no-op when
  /// nothing is mapped.
  void unmap_device();

  size_t size() const;         ///< floats the buffer holds
  unsigned gl_buffer() const;  ///< the GL buffer name
  std::string path() const;    ///< "none" before the first upload, else one of the paths above
  std::string fallback_reason() const;  ///< why interop is not used; empty when it is or untried

  /// Whether this build has the CUDA paths (SIMSCOPE_HAVE_CUDA at build time).
  static bool cuda_compiled();

 private:
  void reserve(size_t n);
  bool ensure_registered();

  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace simscope::render
