#pragma once
/// @file A GL pixel buffer of floats, filled by a CUDA kernel or the host.
/// Views upload their textures from it (GL_PIXEL_UNPACK_BUFFER).
#include <cstddef>
#include <memory>
#include <string>

struct CUstream_st;  // the CUDA runtime's stream type (cudaStream_t), without its headers

namespace simscope::render {

/// A CUDA stream (cudaStream_t) for the interop calls; nullptr: the legacy default stream.
using CudaStream = CUstream_st*;

/// A GL buffer object holding `size()` floats of 4 bytes.
/// Create, use and destroy it while its GL context is current.
///
/// Paths, as path() reports them:
///  - "host upload": the last data came from host memory (glNamedBufferSubData).
///  - "cuda-gl interop": from device memory through CUDA-GL interop. The buffer is registered once
///    with cudaGraphicsGLRegisterBuffer and cudaGraphicsRegisterFlagsWriteDiscard. Each upload runs
///    cudaGraphicsMapResources, cudaGraphicsResourceGetMappedPointer, a device-to-device
///    cudaMemcpyAsync and cudaGraphicsUnmapResources, all on the caller's stream. The unmap orders
///    the stream's earlier work before GL's later use (CUDA runtime API, "Graphics
///    Interoperability"). Work on another stream is not ordered, so GL could read a half-written
///    buffer.
///  - "device->host copy": from device memory when registration failed, e.g. no CUDA device, a
///    Mesa context, WSL, or GL on another GPU. Uses cudaMemcpy to host and a host upload.
///    fallback_reason() holds the reason; it is printed once per process to stderr.
class InteropBuffer {
 public:
  InteropBuffer();  ///< an empty buffer; needs a current GL 4.5 context. Throws RenderError.
  ~InteropBuffer();
  InteropBuffer(const InteropBuffer&) = delete;
  InteropBuffer& operator=(const InteropBuffer&) = delete;

  /// Copies n > 0 floats from host memory, growing the buffer when needed.
  void upload_host(const float* data, size_t n);

  /// Copies n floats from CUDA device memory on `stream`.
  /// Map, copy and unmap are ordered after work already queued on `stream`, so a kernel queued
  /// there may write `device_ptr`. Throws RenderError "built without CUDA" in builds without CUDA,
  /// and on any CUDA failure with the CUDA error name; the previous contents then stay.
  void upload_device(const float* device_ptr, size_t n, CudaStream stream = nullptr);

  /// Resizes the buffer to n floats and, when interop works, maps it on `stream` for kernels to
  /// write. Returns its device pointer, valid until unmap_device(), or nullptr when interop is
  /// unavailable; then use upload_device or upload_host. Kernels writing it must run on `stream`,
  /// so the unmap orders them before GL reads the buffer.
  float* map_device(size_t n, CudaStream stream = nullptr);
  /// Ends map_device() on its stream; path() becomes "cuda-gl interop".
  /// A no-op when nothing is mapped.
  void unmap_device();

  size_t size() const;         ///< floats the buffer holds
  unsigned gl_buffer() const;  ///< the GL buffer name
  std::string path() const;    ///< "none" before the first upload, else one of the paths above
  std::string fallback_reason() const;  ///< why interop is not used; empty when it is or untried

  /// Whether this build has the CUDA paths (SIMSCOPE_HAVE_CUDA).
  static bool cuda_compiled();

 private:
  void reserve(size_t n);
  bool ensure_registered();

  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace simscope::render
