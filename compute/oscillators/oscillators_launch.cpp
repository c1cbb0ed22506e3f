// The CUDA kernel's launch plan (oscillators_internal.hpp, choose_plan). Pure C++ so the CPU
// test suite covers it. The CUDA ensemble (oscillators_cuda.cu) launches what it returns.
#include <algorithm>
#include <cmath>
#include <tuple>

#include "core/error.hpp"
#include "oscillators/oscillators_internal.hpp"

namespace simscope::oscillators::detail {

std::size_t plan_smem(int nodes, int B, int parts, std::size_t elem) {
  return std::size_t(B) * std::size_t(parts) * 4 * sizeof(double)  // partial sums
         + std::size_t(B) * sizeof(double)                         // msd shift per member
         + 2 * std::size_t(B) * std::size_t(nodes) * elem;         // stage buffers
}

namespace {

int round32(int n) { return (n + 31) / 32 * 32; }

LaunchPlan make(int N, int K, int npl, int B, std::size_t elem) {
  LaunchPlan p;
  p.npl = npl;
  p.P = (N + npl - 1) / npl;
  p.B = B;
  p.threads = round32(B * p.P);
  p.parts = p.P / 32 + 2;  // a run of P consecutive threads spans at most P/32 + 2 warps
  p.smem = plan_smem(N, B, p.parts, elem);
  p.utilization = double(N) * B / (double(p.threads) * npl);
  p.blocks = (K + B - 1) / B;
  return p;
}

/// Preference among equally utilised plans: 2, 4, 1, 5, 8 nodes per thread. Two nodes per thread
/// give independent work to hide fp64 latency and, unlike 4, 5 and 8, need no register spills
/// at their launch bounds.
int ilp_rank(int npl) {
  switch (npl) {
    case 2:
      return 0;
    case 4:
      return 1;
    case 1:
      return 2;
    case 5:
      return 3;
    default:
      return 4;
  }
}

}  // namespace

LaunchPlan plan_for(int N, int K, int npl, int B, std::size_t elem) {
  bool known = false;
  for (int c : kNplChoices) known |= c == npl;
  if (!known || B < 1)
    throw Error("oscillators (CUDA): no kernel for " + std::to_string(npl) +
                " nodes per thread (choose 1, 2, 4, 5 or 8)");
  LaunchPlan p = make(N, K, npl, B, elem);
  if (p.threads > max_threads_for_npl(npl))
    throw Error("oscillators (CUDA): " + std::to_string(B) + " members x " + std::to_string(p.P) +
                " threads exceed the kernel's " + std::to_string(max_threads_for_npl(npl)) +
                " threads per block");
  if (p.smem > 48 * 1024)
    throw Error("oscillators (CUDA): " + std::to_string(B) + " members per block need " +
                std::to_string(p.smem) + " bytes of shared memory (> 48 KiB)");
  return p;
}

LaunchPlan choose_plan(int N, int K, int sms, std::size_t elem, std::size_t smem_limit) {
  if (N < 1 || K < 1)
    throw Error("oscillators (CUDA): network.nodes and ensemble.size must be >= 1");
  if (N > kCudaMaxNodes)
    throw Error("oscillators: the CUDA back end integrates networks of at most " +
                std::to_string(kCudaMaxNodes) +
                " nodes (one thread block per network); "
                "network.nodes = " +
                std::to_string(N) + ": use --backend cpu");
  sms = std::max(sms, 1);
  if (K < 2 * sms) {
    // Latency-bound: one member per block, with the fewest nodes per thread that keep the block at
    // <= 256 threads, else within the kernel's limit.
    for (int limit : {256, 1024})
      for (int npl : kNplChoices) {
        const int P = (N + npl - 1) / npl;
        if (P <= std::min(limit, max_threads_for_npl(npl))) {
          LaunchPlan p = make(N, K, npl, 1, elem);
          if (p.smem <= smem_limit) return p;
        }
      }
  }
  // Throughput: the highest fraction of thread slots holding a node, with at least two blocks per
  // SM in flight (B <= K / (2 sms)) and blocks of <= 256 threads, within the kernel's limit.
  const int max_b = std::max(1, std::min(64, K / (2 * sms)));
  LaunchPlan best;
  bool have = false;
  for (int npl : kNplChoices) {
    const int P = (N + npl - 1) / npl;
    for (int B = 1; B <= max_b; ++B) {
      const int threads = round32(B * P);
      if (threads > std::min(256, max_threads_for_npl(npl)) && B > 1) break;
      if (threads > max_threads_for_npl(npl)) break;
      LaunchPlan p = make(N, K, npl, B, elem);
      if (p.smem > smem_limit) break;
      const auto key = [](const LaunchPlan& q) {
        // Utilisation in 5 % buckets: 97.7 % with two nodes per thread beats 100 % with five.
        return std::make_tuple(std::lround(q.utilization * 20), -ilp_rank(q.npl),
                               q.threads >= 64 ? 1 : 0, -q.threads);
      };
      if (!have || key(p) > key(best)) best = p, have = true;
    }
  }
  if (!have)
    throw Error("oscillators (CUDA): no launch configuration fits " + std::to_string(N) +
                " nodes in shared memory");
  return best;
}

}  // namespace simscope::oscillators::detail
