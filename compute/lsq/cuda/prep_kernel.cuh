#pragma once
// Step 1 of a chunk (solver.cuh): the tile transpose that turns the chunk's slab of the cube into
// the 0/1 mask W for the Gram product, the data with gaps zeroed and the mask pixel-major, and
// each pixel's count of observed rows. Launched by chunks.cu. Include from .cu files only.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace simscope::lsq::detail {
namespace {

/// Mask, zero-filled data and counts of a chunk: a 32 x 32 tile transpose through shared memory.
/// cube: M rows of pc values, pitch pc. wt: pc x M column-major, 0/1 in T. bpm, mpm: M x pc
/// pixel-major, b with gaps = 0 and mask bytes. count: pc ints, zeroed before the call.
template <class C, class T>
__global__ void prep_kernel(const C* __restrict__ cube, int M, int pc, T* __restrict__ wt,
                            double* __restrict__ bpm, std::uint8_t* __restrict__ mpm,
                            int* __restrict__ count) {
  __shared__ double tile[32][33];
  __shared__ std::uint8_t mtile[32][33];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int p = blockIdx.x * 32 + tx;
  int cnt = 0;
  for (int r = ty; r < 32; r += 8) {
    const int i = blockIdx.y * 32 + r;
    double v = 0;
    bool ok = false;
    if (i < M && p < pc) {
      const double raw = double(cube[std::size_t(i) * pc + p]);
      ok = !isnan(raw);
      v = ok ? raw : 0.0;
      wt[std::size_t(i) * pc + p] = ok ? T(1) : T(0);
      cnt += ok;
    }
    tile[r][tx] = v;
    mtile[r][tx] = ok;
  }
  if (p < pc && cnt) atomicAdd(&count[p], cnt);
  __syncthreads();
  for (int r = ty; r < 32; r += 8) {
    const int p2 = blockIdx.x * 32 + r, i2 = blockIdx.y * 32 + tx;
    if (p2 < pc && i2 < M) {
      bpm[std::size_t(p2) * M + i2] = tile[tx][r];
      mpm[std::size_t(p2) * M + i2] = mtile[tx][r];
    }
  }
}

}  // namespace
}  // namespace simscope::lsq::detail
