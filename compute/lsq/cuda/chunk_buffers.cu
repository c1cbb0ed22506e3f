// The chunk buffers of the CUDA lsq solver (chunk_buffers.cuh): allocated for a chunk size, M, N,
// the cube's dtype and the precision, freed, and the pitched copy of a chunk's slab.
#include <cuda_runtime.h>

#include <cstddef>
#include <string>

#include "core/bytes.hpp"
#include "core/cuda_check.hpp"
#include "lsq/cuda/solver.cuh"

namespace simscope::lsq::detail {

void CudaSolver::copy_2d(void* dst, std::size_t dpitch, const void* src, std::size_t spitch,
                         std::size_t width, std::size_t height, cudaMemcpyKind kind,
                         cudaStream_t stream) {
  if (dpitch <= max_pitch_ && spitch <= max_pitch_) {
    SIMSCOPE_CUDA_CHECK(cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, height, kind, stream));
    return;
  }
  for (std::size_t r = 0; r < height; ++r)
    SIMSCOPE_CUDA_CHECK(cudaMemcpyAsync(static_cast<char*>(dst) + r * dpitch,
                                        static_cast<const char*>(src) + r * spitch, width, kind,
                                        stream));
}

void CudaSolver::free_buffers(Buffers& b) {
  for (auto* d : {&b.cube, &b.wt, &b.gram}) d->reset();
  for (auto* d : {&b.bpm, &b.r, &b.h, &b.y, &b.x}) d->reset();
  for (auto* d : {&b.mpm, &b.status, &b.kind}) d->reset();
  b.residual.reset(), b.condition.reset(), b.count.reset(), b.flag.reset();
  b.records.reset();
  b.host = HostStaging{};
  b.capacity_key.clear();
  b.resident_generation = 0;
}

template <class T>
void CudaSolver::ensure_buffers(Buffers& b, std::size_t pc, int M, int N, std::size_t csize) {
  const std::string key = std::to_string(pc) + "/" + std::to_string(M) + "/" + std::to_string(N) +
                          "/" + std::to_string(csize) + "/" + std::to_string(sizeof(T));
  if (key == b.capacity_key) return;
  free_buffers(b);
  const std::size_t NT = std::size_t(N) * (N + 1) / 2, Mz = std::size_t(M);
  b.cube = buffer<unsigned char>(Mz * pc * csize, "a chunk of the cube");
  b.wt = buffer<unsigned char>(Mz * pc * sizeof(T), "a chunk's mask");
  b.bpm = buffer<double>(Mz * pc, "a chunk's data");
  b.mpm = buffer<std::uint8_t>(Mz * pc, "a chunk's pixel-major mask");
  b.r = buffer<double>(Mz * pc, "a chunk's residuals");
  b.gram = buffer<unsigned char>(NT * pc * sizeof(T), "a chunk's Gram matrices");
  b.h = buffer<double>(std::size_t(N) * pc, "a chunk's right-hand sides");
  b.y = buffer<double>(std::size_t(N) * pc, "a chunk's downdate products");
  b.x = buffer<double>(std::size_t(N) * pc, "a chunk's solutions");
  b.residual = buffer<float>(pc, "a chunk's residual map");
  b.condition = buffer<float>(pc, "a chunk's condition map");
  b.status = buffer<std::uint8_t>(pc, "a chunk's status map");
  b.kind = buffer<std::uint8_t>(pc, "a chunk's pixel kinds");
  b.count = buffer<int>(pc, "a chunk's counts");
  b.flag = buffer<int>(2, "a chunk's flags");
  // The staging: x, residual, condition, count (4-byte aligned after the doubles), status,
  // then the flag at the next multiple of 8.
  const std::size_t status_at = std::size_t(N) * pc * 8 + pc * 12;
  const std::size_t flag_at = (status_at + 2 * pc + 7) / 8 * 8, bytes = flag_at + 8;
  const cudaError_t e = b.host.block.allocate(bytes);
  if (e != cudaSuccess) {
    throw Error("lsq (CUDA): cannot allocate " + format_bytes(double(bytes)) +
                " of pinned host memory for a chunk's outputs: " + cudaGetErrorString(e));
  }
  char* h = static_cast<char*>(b.host.block.get());
  b.host.x = reinterpret_cast<double*>(h);
  b.host.residual = reinterpret_cast<float*>(h + std::size_t(N) * pc * 8);
  b.host.condition = b.host.residual + pc;
  b.host.count = reinterpret_cast<int*>(b.host.condition + pc);
  b.host.status = reinterpret_cast<std::uint8_t*>(h + status_at);
  b.host.kind = b.host.status + pc;
  b.host.flag = reinterpret_cast<int*>(h + flag_at);
  b.capacity_key = key;
}

template void CudaSolver::ensure_buffers<float>(Buffers&, std::size_t, int, int, std::size_t);
template void CudaSolver::ensure_buffers<double>(Buffers&, std::size_t, int, int, std::size_t);

}  // namespace simscope::lsq::detail
