#pragma once
// Step 2 of a chunk (solver.cuh): the kernel that sorts a chunk's pixels into kinds (warp.cuh)
// by the CPU back end's rule, and the chunk's flag bits the host reads. Launched by chunks.cu.
// Include from .cu files only.
#include <cuda_runtime.h>

#include <cstdint>

#include "lsq/cuda/warp.cuh"
#include "lsq/lsq_downdate.hpp"

namespace simscope::lsq::detail {
namespace {

/// Bits of a chunk's flag (classify_kernel): a pixel solved by the Gram path's Cholesky on the
/// device; a pixel with gaps, 0 < count < M, the only kind that can need the Gram products; a
/// pixel for the small kernel, downdate or minimum norm (small_kernel.cu).
constexpr int kFlagChol = 1, kFlagPartial = 2, kFlagSmall = 4;

/// How the classify kernel picks per pixel with gaps: the CPU back end's rule (cpu/path.hpp).
struct ClassifyRule {
  bool host_all = false;   // methods qr, svd: every pixel with gaps on the host
  bool downdate = false;   // method downdate: the downdate for every pixel with gaps
  bool automatic = false;  // method auto: minimum norm / downdate / Gram by kind and cost
  bool dd_ok = false;      // DowndateOps::downdate (G SPD, cond2(G) <= 1e10, M <= 1024)
  bool mn_ok = false;      // DowndateOps::minnorm
  bool lambda_zero = true;
  int small_limit = 0;  // the largest s or k the small kernel takes (shared memory)
};

/// Kinds of a chunk's pixels; flag[0] gets the kFlag bits, flag[1] the largest small size.
__global__ void classify_kernel(const int* __restrict__ count, int pc, int M, int N,
                                ClassifyRule rule, std::uint8_t* __restrict__ kind,
                                int* __restrict__ flag) {
  const int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= pc) return;
  const int c = count[p], s = M - c;
  std::uint8_t k;
  int small = 0;
  if (c == 0)
    k = kKindEmpty;
  else if (c == M)
    k = kKindShared;
  else if (rule.host_all)
    k = kKindHost;
  else if (rule.downdate)
    k = rule.dd_ok && s <= rule.small_limit ? kKindDowndate : kKindHost, small = s;
  else if (rule.automatic && c < N && rule.mn_ok)
    k = c <= rule.small_limit ? kKindMinNorm : kKindHost, small = c;
  else if (c < N && rule.lambda_zero)
    k = kKindHost;
  else if (rule.automatic && rule.dd_ok && s <= rule.small_limit &&
           downdate_cost(M, N, s) <= gram_cost(M, N, s))
    k = kKindDowndate, small = s;
  else
    k = kKindChol;
  kind[p] = k;
  if (k == kKindChol) atomicOr(&flag[0], kFlagChol);
  if (c > 0 && c < M) atomicOr(&flag[0], kFlagPartial);
  if (k == kKindDowndate || k == kKindMinNorm) {
    atomicOr(&flag[0], kFlagSmall);
    atomicMax(&flag[1], small);
  }
}

}  // namespace
}  // namespace simscope::lsq::detail
