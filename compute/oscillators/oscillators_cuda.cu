// The CUDA ensemble (oscillators.hpp, Ensemble). Design notes: tests/bench/NOTES.md, oscillators.
//
// Layout (oscillators_internal.hpp, LaunchPlan): a thread block integrates B members. Each member
// gets P consecutive threads; thread l owns nodes l, l + P, ..., npl of them, a compile-time
// constant. Their x, y, RK4 stage values and sums live in registers. Per stage, the owners write
// the stage's x into one of two alternating shared-memory buffers, so one __syncthreads per stage
// suffices, and gather sum_j G_ij x_j from it. Each node's first kRegEdges (4) neighbour indices
// live in registers as packed 16-bit values; further indices and the weights are read through the
// read-only cache. fp64 by default; fp32 selectable.
//
// Observables on the device: after each step that needs one (past the transient, at a sample,
// at the chunk's last step), every thread adds d = x - c and d^2 of its nodes. c is the member's
// mean x at its previous reduction; the shift keeps the one-pass variance free of cancellation.
// At samples it also adds cos(theta) and sin(theta). A segmented warp reduction gives per-warp
// partials in shared memory; members may share a warp. After the next __syncthreads, the
// member's first thread combines them into msd = E[d^2] - E[d]^2, the windowed time average
// (kMsdWindow, as on the CPU), the failure flag and the sample slots. A second kernel reduces
// the samples of all members per sample in a fixed tree order. Only (T,) series leave the device.
//
// Host side: launches in chunks of ~kChunkSeconds of work, sized by a first guess and then by
// the measured rate. Between chunks: progress, cancellation and samples. Device memory, frames
// included, comes from the ensemble's DeviceAllocator "oscillators" (core/device_memory.hpp).
#include <cuda_runtime.h>
#include <math_constants.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "core/cuda_check.hpp"
#include "core/cuda_handles.hpp"
#include "core/device_memory.hpp"
#include "oscillators/osc_cuda_inputs.cuh"
#include "oscillators/osc_device_state.hpp"
#include "oscillators/oscillators_internal.hpp"
#include "oscillators/sl_rhs.hpp"

namespace simscope::oscillators {
namespace {

using detail::kMsdWindow;
using detail::LaunchPlan;

constexpr unsigned kFull = 0xffffffffu;
constexpr int kRegEdges = 4;            // neighbour indices per node kept in registers
constexpr double kChunkSeconds = 0.05;  // work per launch between progress/cancel checks
constexpr double kSampleBytes = 128e6;  // device buffer of per-member samples per chunk
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

template <typename T>
struct Args {
  int N, K, P, B, parts;
  int shared_graph;      // 1: graph 0 serves every member
  const long long* row;  // graphs * N + 1 offsets
  const int* col;        // neighbour indices
  const T* w;            // weights, or null for unit weights
  T* x;                  // K * N
  T* y;
  double* total;   // K: completed windows of the msd time average
  double* window;  // K: the open window
  double* shift;   // K: the member's mean x at its last reduction
  int* failed;     // K
  double* samp;    // [2][cap][K]: msd, then R, per sample of this chunk
  long long cap;
  // The chunk as 32-bit counters, to avoid 64-bit division per step: steps in the chunk; steps
  // until the first sample (1..every) and the first window end (1..kMsdWindow); and the chunk's
  // first 0-based step index s past the transient, or steps when none is.
  int steps, every, to_sample0, to_window0, past0;
  T omega, c, he, h, h2, h6;
  T degree;      ///< d of the literal coupling form (Model::degree)
  bool literal;  ///< Model::form is Literal: every node's own weight is d, not its degree
};

/// sum_j G_ij sx[base + j] over node i's neighbours. The first kRegEdges indices come from
/// registers as packed 16-bit values. Further ones and the weights W come through the read-only
/// cache.
template <typename T, bool W>
__device__ __forceinline__ T gather(const T* __restrict__ sx, int base,
                                    const unsigned (&pk)[kRegEdges / 2], int deg,
                                    const long long* __restrict__ row_i,
                                    const int* __restrict__ col, const T* __restrict__ w) {
  T s = T(0);
  if constexpr (!W) {
#pragma unroll
    for (int e = 0; e < kRegEdges; ++e)
      if (e < deg) s += sx[base + int((pk[e >> 1] >> ((e & 1) * 16)) & 0xffffu)];
    if (deg > kRegEdges) {
      const long long beg = __ldg(row_i);
      for (int e = kRegEdges; e < deg; ++e) s += sx[base + __ldg(col + beg + e)];
    }
  } else {
    const long long beg = __ldg(row_i);
#pragma unroll
    for (int e = 0; e < kRegEdges; ++e)
      if (e < deg)
        s += __ldg(w + beg + e) * sx[base + int((pk[e >> 1] >> ((e & 1) * 16)) & 0xffffu)];
    for (int e = kRegEdges; e < deg; ++e) s += __ldg(w + beg + e) * sx[base + __ldg(col + beg + e)];
  }
  return s;
}

/// Segmented sum over the lanes of a warp. Lanes t .. seg_end-1 belong to the same member.
/// Afterwards the first lane of each member's run in the warp holds the run's sum.
template <int NV>
__device__ __forceinline__ void segmented_sum(double (&v)[4], int t, int lane, int seg_end) {
#pragma unroll
  for (int off = 1; off < 32; off <<= 1) {
    double o[NV];
#pragma unroll
    for (int m = 0; m < NV; ++m) o[m] = __shfl_down_sync(kFull, v[m], off);
    if (lane + off < 32 && t + off < seg_end) {
#pragma unroll
      for (int m = 0; m < NV; ++m) v[m] += o[m];
    }
  }
}

template <typename T, int NPL, bool W>
__global__ void __launch_bounds__(detail::max_threads_for_npl(NPL), detail::min_blocks_for_npl(NPL))
    rk4_kernel(const Args<T> a) {
  extern __shared__ double smem[];
  const int N = a.N, P = a.P, B = a.B;
  double* parts = smem;                                  // B * parts * 4
  double* shift = parts + std::size_t(B) * a.parts * 4;  // B
  T* sx0 = reinterpret_cast<T*>(shift + B);              // B * N: x at stages 1 and 3
  T* sx1 = sx0 + std::size_t(B) * N;                     // B * N: x at stages 2 and 4

  const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
  const int b = t / P, l = t - b * P;
  const int k0 = blockIdx.x * B;
  const int nb = min(B, a.K - k0);
  const bool in = b < nb;  // this thread belongs to member k
  const int k = k0 + (in ? b : 0);
  // A member that failed in an earlier chunk is frozen, as on the CPU: its threads load, integrate
  // and store nothing, and its leader writes NaN samples only.
  const bool frozen = in && a.failed[k] != 0;
  const bool on = in && !frozen;  // this thread integrates member k
  const std::size_t g = a.shared_graph ? 0 : std::size_t(k);
  const long long* row = a.row + g * N;  // the member's graph rows
  const std::size_t at0 = std::size_t(k) * N;
  const int base = (in ? b : 0) * N;  // the member's nodes in the stage buffers
  const int seg_end = (b + 1) * P;    // end (exclusive) of the member's threads
  const bool leader = in && l == 0;
  // Node l + q P of the member is this thread's slot q; has(q) says whether it exists.
  auto has = [&](int q) { return on && l + q * P < N; };

  T x[NPL], y[NPL], xs[NPL], ys[NPL], ax[NPL], ay[NPL], dg[NPL];
  unsigned pk[NPL][kRegEdges / 2];
  int deg[NPL];
#pragma unroll
  for (int q = 0; q < NPL; ++q) {
    const int i = l + q * P;
    x[q] = y[q] = xs[q] = ys[q] = ax[q] = ay[q] = T(0);
    dg[q] = T(1);
    deg[q] = 0;
#pragma unroll
    for (int e = 0; e < kRegEdges / 2; ++e) pk[q][e] = 0u;
    if (has(q)) {
      x[q] = a.x[at0 + i];
      y[q] = a.y[at0 + i];
      const long long r0 = row[i], r1 = row[i + 1];
      deg[q] = int(r1 - r0);
#pragma unroll
      for (int e = 0; e < kRegEdges; ++e) {
        const unsigned j = e < deg[q] ? unsigned(__ldg(a.col + r0 + e)) : 0u;
        pk[q][e >> 1] |= j << ((e & 1) * 16);
      }
      T wsum = T(0);
      if constexpr (W) {
        for (long long e = r0; e < r1; ++e) wsum += __ldg(a.w + e);
      } else {
        wsum = T(deg[q]);
      }
      dg[q] = T(1) - a.he * (a.literal ? a.degree : wsum);
      sx0[base + i] = x[q];
    }
  }
  double tot = 0, win = 0;
  bool bad = false;
  if (leader) {
    tot = a.total[k];
    win = a.window[k];
    shift[b] = a.shift[k];
    bad = a.failed[k] != 0;
  }
  __syncthreads();

  // Step bookkeeping, uniform over the block.
  int to_sample = a.to_sample0, to_window = a.to_window0, j = 0;
  bool pend = false, pend_sample = false, pend_past = false, pend_wend = false;
  int pend_j = 0;
  // The member's first thread turns the partial sums of the pending step into its observables.
  auto combine = [&]() {
    if (!(pend && leader)) return;
    double S0 = 0, S1 = 0, S2 = 0, S3 = 0;
    const int w0 = (b * P) >> 5, w1 = (b * P + P - 1) >> 5;
    for (int p = 0; p <= w1 - w0; ++p) {
      const double* src = parts + (std::size_t(b) * a.parts + p) * 4;
      S0 += src[0];
      S1 += src[1];
      if (pend_sample) S2 += src[2], S3 += src[3];
    }
    if (frozen) {  // as the CPU leaves a skipped member's samples: NaN
      if (pend_sample)
        a.samp[std::size_t(pend_j) * a.K + k] = a.samp[std::size_t(a.cap + pend_j) * a.K + k] =
            CUDART_NAN;
      return;
    }
    const double m1 = S0 / N;
    double msd = S1 / N - m1 * m1;
    if (!isfinite(msd))
      bad = true;
    else if (msd < 0)
      msd = 0;
    if (pend_past) {
      win += msd;
      if (pend_wend) tot += win, win = 0;
    }
    if (pend_sample) {
      a.samp[std::size_t(pend_j) * a.K + k] = msd;
      // A member whose state is not finite has no R; it is NaN, as Series::watch_order says.
      // Otherwise its NaN nodes would count as phase 0, since r2 > 0 is false, and give R = 1.
      a.samp[std::size_t(a.cap + pend_j) * a.K + k] =
          isfinite(msd) ? sqrt(S2 * S2 + S3 * S3) / N : CUDART_NAN;
    }
    shift[b] += m1;
  };

  const T om = a.omega, cc = a.c, he = a.he, h = a.h, h2 = a.h2, h6 = a.h6, two = T(2);
  for (int s = 0; s < a.steps; ++s) {
    // Stage 1: k1 at x (sx0); x + h/2 k1 -> sx1.
#pragma unroll
    for (int q = 0; q < NPL; ++q)
      if (has(q)) {
        const int i = l + q * P;
        const T ns = gather<T, W>(sx0, base, pk[q], deg[q], row + i, a.col, a.w);
        T dx, dy;
        detail::sl_rhs(x[q], y[q], ns, dg[q], om, cc, he, dx, dy);
        ax[q] = dx, ay[q] = dy;
        xs[q] = x[q] + h2 * dx, ys[q] = y[q] + h2 * dy;
        sx1[base + i] = xs[q];
      }
    __syncthreads();
    combine();  // the previous step's observables (partials written before this barrier)
                // Stage 2: k2 (sx1); x + h/2 k2 -> sx0.
#pragma unroll
    for (int q = 0; q < NPL; ++q)
      if (has(q)) {
        const int i = l + q * P;
        const T ns = gather<T, W>(sx1, base, pk[q], deg[q], row + i, a.col, a.w);
        T dx, dy;
        detail::sl_rhs(xs[q], ys[q], ns, dg[q], om, cc, he, dx, dy);
        ax[q] += two * dx, ay[q] += two * dy;
        xs[q] = x[q] + h2 * dx, ys[q] = y[q] + h2 * dy;
        sx0[base + i] = xs[q];
      }
    __syncthreads();
    // Stage 3: k3 (sx0); x + h k3 -> sx1.
#pragma unroll
    for (int q = 0; q < NPL; ++q)
      if (has(q)) {
        const int i = l + q * P;
        const T ns = gather<T, W>(sx0, base, pk[q], deg[q], row + i, a.col, a.w);
        T dx, dy;
        detail::sl_rhs(xs[q], ys[q], ns, dg[q], om, cc, he, dx, dy);
        ax[q] += two * dx, ay[q] += two * dy;
        xs[q] = x[q] + h * dx, ys[q] = y[q] + h * dy;
        sx1[base + i] = xs[q];
      }
    __syncthreads();
    // Stage 4: k4 (sx1); x += h/6 (k1 + 2 k2 + 2 k3 + k4) -> sx0.
#pragma unroll
    for (int q = 0; q < NPL; ++q)
      if (has(q)) {
        const int i = l + q * P;
        const T ns = gather<T, W>(sx1, base, pk[q], deg[q], row + i, a.col, a.w);
        T dx, dy;
        detail::sl_rhs(xs[q], ys[q], ns, dg[q], om, cc, he, dx, dy);
        ax[q] += dx, ay[q] += dy;
        x[q] += h6 * ax[q], y[q] += h6 * ay[q];
        sx0[base + i] = x[q];
      }
    __syncthreads();
    // Partial sums of the new state at step first + s + 1, combined after the next barrier.
    const bool sample = --to_sample == 0;
    if (sample) to_sample = a.every;
    const bool wend = --to_window == 0;
    if (wend) to_window = int(kMsdWindow);
    const bool past = s >= a.past0;
    pend = sample || past || s == a.steps - 1;
    if (pend) {
      const double c0 = shift[in ? b : 0];
      const bool last = s == a.steps - 1;
      double v[4] = {0, 0, 0, 0};
#pragma unroll
      for (int q = 0; q < NPL; ++q)
        if (has(q)) {
          // At the chunk's end y is checked too, as the CPU checks the whole state there.
          // y - y is 0 unless y is not finite.
          const double d = double(x[q]) - c0 + (last ? double(y[q] - y[q]) : 0.0);
          v[0] += d, v[1] += d * d;
          if (sample) {
            const double xv = double(x[q]), yv = double(y[q]), r2 = xv * xv + yv * yv;
            if (r2 > 0) {
              const double inv = rsqrt(r2);
              v[2] += xv * inv, v[3] += yv * inv;
            } else {
              v[2] += 1;
            }
          }
        }
      if (sample)
        segmented_sum<4>(v, t, lane, seg_end);
      else
        segmented_sum<2>(v, t, lane, seg_end);
      if (on && (l == 0 || lane == 0)) {
        double* dst = parts + (std::size_t(b) * a.parts + (warp - ((b * P) >> 5))) * 4;
        dst[0] = v[0], dst[1] = v[1], dst[2] = v[2], dst[3] = v[3];
      }
      pend_sample = sample, pend_past = past, pend_wend = wend, pend_j = j;
    }
    if (sample) ++j;
  }
  __syncthreads();
  combine();

#pragma unroll
  for (int q = 0; q < NPL; ++q)
    if (has(q)) {
      a.x[at0 + l + q * P] = x[q];
      a.y[at0 + l + q * P] = y[q];
    }
  if (leader) {
    a.total[k] = tot;
    a.window[k] = win;
    a.shift[k] = shift[b];
    a.failed[k] = bad ? 1 : 0;
  }
}

/// The thread block's sums of sample j's msd and R over members [k0, k1) with finite values, and
/// their count. Fixed order: strided per thread, then a tree over the block's threads, whose
/// count is a power of two <= 256. Every thread finds the result in red[0..2][0].
__device__ void sum_finite_samples(const double* __restrict__ samp, long long cap, int K, int j,
                                   int k0, int k1, double (&red)[3][256]) {
  const int t = threadIdx.x;
  double sm = 0, sr = 0, n = 0;
  for (int k = k0 + t; k < k1; k += blockDim.x) {
    const double m = samp[std::size_t(j) * K + k], r = samp[std::size_t(cap + j) * K + k];
    if (isfinite(m) && isfinite(r)) sm += m, sr += r, n += 1;
  }
  red[0][t] = sm, red[1][t] = sr, red[2][t] = n;
  __syncthreads();
  for (int w = blockDim.x / 2; w > 0; w >>= 1) {
    if (t < w)
      for (int m = 0; m < 3; ++m) red[m][t] += red[m][t + w];
    __syncthreads();
  }
}

/// Per sample j of the chunk: sums of msd and R over members with finite values, and their count,
/// in a fixed order (sum_finite_samples). Written to out[j], out[ns + j], out[2 ns + j].
__global__ void reduce_samples(const double* __restrict__ samp, long long cap, int K, int ns,
                               double* __restrict__ out) {
  __shared__ double red[3][256];
  const int j = blockIdx.x;
  sum_finite_samples(samp, cap, K, j, 0, K, red);
  if (threadIdx.x == 0) out[j] = red[0][0], out[ns + j] = red[1][0], out[2 * ns + j] = red[2][0];
}

/// Per sample j and reduction group q, members [q g, min(K, (q + 1) g)) (Recording::group).
/// One thread block per (j, q), u = j G + q. Computes the group's sums of msd and R over members
/// with finite values, and their count, in a fixed order (sum_finite_samples).
/// Written to out[u], out[ns G + u], out[2 ns G + u].
__global__ void reduce_groups(const double* __restrict__ samp, long long cap, int K, int ns, int g,
                              int G, double* __restrict__ out) {
  __shared__ double red[3][256];
  const long long u = blockIdx.x;
  const int j = int(u / G), q = int(u % G);
  const int k0 = q * g, k1 = min(K, k0 + g);
  sum_finite_samples(samp, cap, K, j, k0, k1, red);
  if (threadIdx.x == 0) {
    const std::size_t all = std::size_t(ns) * G;
    out[u] = red[0][0], out[all + u] = red[1][0], out[2 * all + u] = red[2][0];
  }
}

/// (theta, r) of n oscillators as floats.
template <typename T>
__global__ void frame_kernel(const T* __restrict__ x, const T* __restrict__ y, std::size_t n,
                             float* __restrict__ out) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x) {
    const double xv = double(x[i]), yv = double(y[i]);
    out[2 * i] = float((xv == 0 && yv == 0) ? 0.0 : atan2(yv, xv));
    out[2 * i + 1] = float(hypot(xv, yv));
  }
}

class CudaEnsemble final : public Ensemble {
 public:
  CudaEnsemble() {
    device_ = cuda_current_device();  // the device rule (core/cuda_check.hpp)
    alloc_ = DeviceAllocator::cuda("oscillators", device_,
                                   "lower ensemble.size or network.nodes, or use --backend cpu");
    SIMSCOPE_CUDA_CHECK(cudaDeviceGetAttribute(&sms_, cudaDevAttrMultiProcessorCount, device_));
    stream_ = CudaStream::create();
  }
  ~CudaEnsemble() override {
    const CudaDeviceScope on(device_);  // may be destroyed on another thread
    free_all();
    input_bad_.reset();
  }

  Backend backend() const override { return Backend::Cuda; }
  int max_nodes() const override { return detail::kCudaMaxNodes; }
  double peak_device_bytes() const override { return double(alloc_->peak_bytes()); }
  std::int64_t steps_done() const override { return step_; }

  void load(const Topologies& t, const State& s, Precision p) override {
    detail::check_load(t, s);
    load_impl(t, p, [&] {
      upload_real(x_.get(), s.x);
      upload_real(y_.get(), s.y);
    });
  }

  void load_device(const Topologies& t, const DeviceView& v, Precision p) override {
    check_initial_view(v, t.nodes, t.members);
    if (v.device != device_)
      throw InputError(v.name + ": a CUDA array on device " + std::to_string(v.device) +
                       ", but the CUDA back end runs on device " + std::to_string(device_) +
                       "; move it there (tensor.to('cuda:" + std::to_string(device_) + "'))");
    if (t.nodes < 1 || t.members < 1 || t.row_ptr.size() != std::size_t(t.graphs()) * t.nodes + 1)
      throw Error("oscillators: topologies that do not match network.nodes and ensemble.size");
    load_impl(t, p, [&] {  // the state straight from the caller's memory: no host copy
      if (!input_ready_) input_ready_ = CudaEvent::create(cudaEventDisableTiming);
      SIMSCOPE_CUDA_CHECK(cudaEventRecord(input_ready_, reinterpret_cast<cudaStream_t>(v.stream)));
      SIMSCOPE_CUDA_CHECK(cudaStreamWaitEvent(stream_, input_ready_, 0));
      if (!input_bad_) input_bad_ = buffer(sizeof(unsigned long long), "the initial state check");
      SIMSCOPE_CUDA_CHECK(
          cudaMemsetAsync(input_bad_.get(), 0xFF, sizeof(unsigned long long), stream_));
      const bool per_member = v.ndim() == 3;
      const long long s0 = per_member ? v.strides[0] : 0, s1 = v.strides[per_member ? 1 : 0];
      const long long s2 = v.strides[per_member ? 2 : 1];
      const std::size_t n = std::size_t(N_) * K_;
      const unsigned blocks =
          unsigned(std::min<std::size_t>((n + 255) / 256, 8 * std::size_t(sms_)));
      const auto* base = static_cast<const unsigned char*>(v.data);
      launch_initial(base, v.dtype, per_member, s0, s1, s2, blocks);
      unsigned long long first = 0;
      SIMSCOPE_CUDA_CHECK(
          cudaMemcpyAsync(&first, input_bad_.get(), sizeof first, cudaMemcpyDeviceToHost, stream_));
      SIMSCOPE_CUDA_CHECK(cudaStreamSynchronize(stream_));
      if (first != cuda_inputs::kNoBad) {
        const std::size_t item = v.itemsize();
        const std::size_t nodes = std::size_t(N_);
        const std::size_t q = std::size_t(first);
        const std::size_t k = per_member ? q / (2 * nodes) : 0, i = (q / 2) % nodes, c = q % 2;
        double value = 0;
        float f = 0;
        const unsigned char* e =
            base + std::ptrdiff_t(k) * s0 + std::ptrdiff_t(i) * s1 + std::ptrdiff_t(c) * s2;
        SIMSCOPE_CUDA_CHECK(
            cudaMemcpy(item == 4 ? static_cast<void*>(&f) : static_cast<void*>(&value), e, item,
                       cudaMemcpyDeviceToHost));
        if (item == 4) value = f;
        throw_nonfinite_initial(v, q, value);
      }
    });
  }

  /// initial_from_view_kernel for the view's dtype and the working precision, on stream_.
  void launch_initial(const unsigned char* base, io::DType dtype, bool per_member, long long s0,
                      long long s1, long long s2, unsigned blocks) {
    auto* bad = reinterpret_cast<unsigned long long*>(input_bad_.get());
    const bool in32 = dtype == io::DType::Float32;
    if (elem_ == sizeof(float)) {
      auto* x = reinterpret_cast<float*>(x_.get());
      auto* y = reinterpret_cast<float*>(y_.get());
      if (in32)
        cuda_inputs::initial_from_view_kernel<float, float>
            <<<blocks, 256, 0, stream_>>>(base, K_, N_, per_member, s0, s1, s2, x, y, bad);
      else
        cuda_inputs::initial_from_view_kernel<double, float>
            <<<blocks, 256, 0, stream_>>>(base, K_, N_, per_member, s0, s1, s2, x, y, bad);
    } else {
      auto* x = reinterpret_cast<double*>(x_.get());
      auto* y = reinterpret_cast<double*>(y_.get());
      if (in32)
        cuda_inputs::initial_from_view_kernel<float, double>
            <<<blocks, 256, 0, stream_>>>(base, K_, N_, per_member, s0, s1, s2, x, y, bad);
      else
        cuda_inputs::initial_from_view_kernel<double, double>
            <<<blocks, 256, 0, stream_>>>(base, K_, N_, per_member, s0, s1, s2, x, y, bad);
    }
    SIMSCOPE_CUDA_CHECK(cudaGetLastError());
  }

  /// load()'s body: allocates the buffers for `t` at precision `p`, uploads the network, writes
  /// the state via `fill_state()` into x_ and y_ on stream_, and clears the accumulators.
  template <class F>
  void load_impl(const Topologies& t, Precision p, F&& fill_state) {
    cuda_use_device(device_);
    loaded_ = false;
    free_all();
    precision_ = p;
    elem_ = p == Precision::Fp32 ? sizeof(float) : sizeof(double);
    N_ = t.nodes;
    K_ = t.members;
    shared_graph_ = t.shared;
    plan_ = detail::choose_plan(N_, K_, sms_, elem_);
    // Tuning knobs for GPU runs: SIMSCOPE_OSC_NPL forces nodes per thread, SIMSCOPE_OSC_B members
    // per block. See tests/bench/NOTES.md.
    if (const char* e = std::getenv("SIMSCOPE_OSC_NPL")) {
      const char* bb = std::getenv("SIMSCOPE_OSC_B");
      plan_ = detail::plan_for(N_, K_, std::atoi(e), bb ? std::max(1, std::atoi(bb)) : 1, elem_);
    }
    cap_ = std::max<long long>(1, (long long)(kSampleBytes / (16.0 * K_)));
    cap_ = std::min<long long>(cap_, 1 << 20);
    const std::size_t n = std::size_t(N_) * K_;
    try {
      row_ = buffer(t.row_ptr.size() * sizeof(long long), "the network rows");
      col_ = buffer(std::max<std::size_t>(1, t.col.size()) * sizeof(int), "the network edges");
      if (t.weighted()) w_ = buffer(t.weight.size() * elem_, "the edge weights");
      x_ = buffer(n * elem_, "the state x");
      y_ = buffer(n * elem_, "the state y");
      for (auto* b : {&total_, &window_, &shift_})
        *b = buffer(std::size_t(K_) * sizeof(double), "the per-member accumulators");
      failed_ = buffer(std::size_t(K_) * sizeof(int), "the per-member flags");
      samp_ = buffer(2 * std::size_t(cap_) * K_ * sizeof(double), "the samples of a chunk");
      series_ = buffer(3 * std::size_t(cap_) * sizeof(double), "the reduced samples");
    } catch (...) {
      free_all();  // nothing half-loaded stays allocated
      throw;
    }

    static_assert(sizeof(long long) == sizeof(std::int64_t) && sizeof(int) == sizeof(std::int32_t));
    upload(row_.get(), t.row_ptr.data(), t.row_ptr.size() * sizeof(long long));
    if (!t.col.empty()) upload(col_.get(), t.col.data(), t.col.size() * sizeof(int));
    if (t.weighted()) upload_real(w_.get(), t.weight);
    fill_state();
    for (auto* b : {&total_, &window_, &shift_})
      SIMSCOPE_CUDA_CHECK(cudaMemsetAsync(b->get(), 0, std::size_t(K_) * sizeof(double), stream_));
    SIMSCOPE_CUDA_CHECK(cudaMemsetAsync(failed_.get(), 0, std::size_t(K_) * sizeof(int), stream_));
    SIMSCOPE_CUDA_CHECK(cudaStreamSynchronize(stream_));
    step_ = 0;
    rate_ = 0;
    last_chunk_ = 0;
    loaded_ = true;
  }

  void advance(const Model& m, double dt, std::int64_t steps, const Recording& rec, Series& out,
               Progress* progress) override {
    if (!loaded_) throw Error("oscillators: advance() before load()");
    detail::check_advance(dt, steps, rec);
    for (double v : {m.omega, m.c, m.coupling})
      if (!std::isfinite(v)) throw Error("model.omega, model.c and model.coupling must be finite");
    if (rec.every > (std::int64_t(1) << 30))
      throw Error("record.every must be <= 2^30 on the CUDA back end");
    cuda_use_device(device_);
    const double osc = double(N_) * K_;
    std::int64_t done = 0;
    std::vector<double> host(3 * std::size_t(cap_)), watch_m, watch_r, ghost;
    // The groups' sums (Recording::group): a device buffer of 3 x cap x G doubles.
    const int gsize = rec.group, groups = gsize > 0 ? (K_ + gsize - 1) / gsize : 0;
    if (groups > 0) {
      const std::size_t bytes = 3 * std::size_t(cap_) * std::size_t(groups) * sizeof(double);
      if (gseries_bytes_ < bytes) {
        gseries_ = buffer(bytes, "the reduced samples of the groups");
        gseries_bytes_ = bytes;
      }
      ghost.resize(3 * std::size_t(cap_) * std::size_t(groups));
    }
    progress_set(progress, 0);
    while (done < steps) {
      progress_check(progress);
      // ~kChunkSeconds of work at the measured rate, growing at most 4x per chunk. First guess:
      // 5e10 osc-steps/s and at least 1 us per step.
      const double rate = rate_ > 0 ? rate_ : 5e10;
      const double sec_per_step = std::max(osc / rate, rate_ > 0 ? 0.0 : 1e-6);
      std::int64_t chunk = std::max<std::int64_t>(1, std::int64_t(kChunkSeconds / sec_per_step));
      if (last_chunk_ > 0) chunk = std::min(chunk, 4 * last_chunk_);
      chunk = std::min({chunk, steps - done, detail::steps_for_samples(step_, rec.every, cap_),
                        std::int64_t(1) << 30});
      const std::int64_t ns = detail::samples_in(step_, chunk, rec.every);
      const auto t0 = std::chrono::steady_clock::now();
      if (precision_ == Precision::Fp32)
        launch<float>(m, dt, chunk, rec);
      else
        launch<double>(m, dt, chunk, rec);
      if (ns > 0) {
        reduce_samples<<<unsigned(ns), 256, 0, stream_>>>(samp_.as<const double>(), cap_, K_,
                                                          int(ns), series_.as<double>());
        SIMSCOPE_CUDA_CHECK(cudaGetLastError());
        for (std::size_t r = 0; r < 3; ++r)
          SIMSCOPE_CUDA_CHECK(cudaMemcpyAsync(host.data() + r * ns, series_.as<double>() + r * ns,
                                              std::size_t(ns) * sizeof(double),
                                              cudaMemcpyDeviceToHost, stream_));
        if (groups > 0) {
          reduce_groups<<<unsigned(ns * groups), 256, 0, stream_>>>(
              samp_.as<const double>(), cap_, K_, int(ns), gsize, groups, gseries_.as<double>());
          SIMSCOPE_CUDA_CHECK(cudaGetLastError());
          SIMSCOPE_CUDA_CHECK(cudaMemcpyAsync(ghost.data(), gseries_.as<double>(),
                                              3 * std::size_t(ns) * groups * sizeof(double),
                                              cudaMemcpyDeviceToHost, stream_));
        }
        if (rec.watch >= 0 && rec.watch < K_) {
          watch_m.resize(std::size_t(ns));
          watch_r.resize(std::size_t(ns));
          const double* s = samp_.as<const double>();
          SIMSCOPE_CUDA_CHECK(cudaMemcpy2DAsync(watch_m.data(), sizeof(double), s + rec.watch,
                                                std::size_t(K_) * sizeof(double), sizeof(double),
                                                std::size_t(ns), cudaMemcpyDeviceToHost, stream_));
          SIMSCOPE_CUDA_CHECK(cudaMemcpy2DAsync(watch_r.data(), sizeof(double),
                                                s + std::size_t(cap_) * K_ + rec.watch,
                                                std::size_t(K_) * sizeof(double), sizeof(double),
                                                std::size_t(ns), cudaMemcpyDeviceToHost, stream_));
        }
      }
      SIMSCOPE_CUDA_CHECK(cudaStreamSynchronize(stream_));
      const double sec =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (sec > 1e-3) rate_ = std::clamp(osc * double(chunk) / sec, 1e5, 1e14);
      last_chunk_ = chunk;
      const std::int64_t j0 = step_ / rec.every;
      for (std::int64_t j = 0; j < ns; ++j) {
        const double n = host[2 * std::size_t(ns) + std::size_t(j)];
        out.step.push_back((j0 + j + 1) * rec.every);
        out.msd.push_back(n > 0 ? host[std::size_t(j)] / n : kNaN);
        out.order.push_back(n > 0 ? host[std::size_t(ns) + std::size_t(j)] / n : kNaN);
        out.finite.push_back(std::int64_t(n));
        const std::size_t all = std::size_t(ns) * std::size_t(groups);
        for (int q = 0; q < groups; ++q) {
          const std::size_t u = std::size_t(j) * groups + q;
          out.group_msd.push_back(ghost[u]);
          out.group_order.push_back(ghost[all + u]);
          out.group_finite.push_back(std::int64_t(ghost[2 * all + u]));
        }
        if (rec.watch >= 0 && rec.watch < K_) {
          out.watch_msd.push_back(watch_m[std::size_t(j)]);
          out.watch_order.push_back(watch_r[std::size_t(j)]);
        }
      }
      step_ += chunk;
      done += chunk;
      progress_set(progress, double(done) / double(steps));
    }
  }

  State state() const override {
    State s;
    s.members = K_;
    s.nodes = N_;
    if (!loaded_) return s;
    cuda_use_device(device_);
    s.x = download_real(x_.get(), std::size_t(N_) * K_);
    s.y = download_real(y_.get(), std::size_t(N_) * K_);
    return s;
  }

  MemberStats member_stats(std::int64_t transient) const override {
    MemberStats ms;
    if (!loaded_) return ms;
    cuda_use_device(device_);
    const std::size_t nk = static_cast<std::size_t>(K_);
    std::vector<double> tot(nk), win(nk);
    std::vector<int> failed(nk);
    SIMSCOPE_CUDA_CHECK(
        cudaMemcpy(tot.data(), total_.get(), tot.size() * sizeof(double), cudaMemcpyDeviceToHost));
    SIMSCOPE_CUDA_CHECK(
        cudaMemcpy(win.data(), window_.get(), win.size() * sizeof(double), cudaMemcpyDeviceToHost));
    SIMSCOPE_CUDA_CHECK(cudaMemcpy(failed.data(), failed_.get(), failed.size() * sizeof(int),
                                   cudaMemcpyDeviceToHost));
    ms.averaged_steps = std::max<std::int64_t>(0, step_ - transient);
    ms.failed.resize(std::size_t(K_));
    ms.msd_mean.resize(std::size_t(K_));
    for (std::size_t k = 0; k < std::size_t(K_); ++k) {
      ms.failed[k] = failed[k] ? 1 : 0;
      ms.msd_mean[k] = failed[k] || ms.averaged_steps == 0
                           ? kNaN
                           : (tot[k] + win[k]) / double(ms.averaged_steps);
    }
    return ms;
  }

  Frame frame(int members) override {
    Frame f;
    f.members = std::clamp(members, 0, loaded_ ? K_ : 0);
    f.nodes = N_;
    f.step = step_;
    const std::size_t n = std::size_t(f.members) * N_;
    if (n == 0) return f;
    cuda_use_device(device_);
    std::shared_ptr<float> buf = frame_buffer(2 * n);
    const unsigned blocks = unsigned(std::min<std::size_t>((n + 255) / 256, 4096));
    if (precision_ == Precision::Fp32)
      frame_kernel<float>
          <<<blocks, 256, 0, stream_>>>(x_.as<const float>(), y_.as<const float>(), n, buf.get());
    else
      frame_kernel<double>
          <<<blocks, 256, 0, stream_>>>(x_.as<const double>(), y_.as<const double>(), n, buf.get());
    SIMSCOPE_CUDA_CHECK(cudaGetLastError());
    f.theta_r.resize(2 * n);
    SIMSCOPE_CUDA_CHECK(cudaMemcpyAsync(f.theta_r.data(), buf.get(), 2 * n * sizeof(float),
                                        cudaMemcpyDeviceToHost, stream_));
    SIMSCOPE_CUDA_CHECK(cudaStreamSynchronize(stream_));
    f.device = buf;
    return f;
  }

 private:
  template <typename T>
  void launch(const Model& m, double dt, std::int64_t chunk, const Recording& rec) {
    Args<T> a{};
    a.N = N_, a.K = K_, a.P = plan_.P, a.B = plan_.B, a.parts = plan_.parts;
    a.shared_graph = shared_graph_ ? 1 : 0;
    a.row = row_.as<const long long>();
    a.col = col_.as<const int>();
    a.w = w_.as<const T>();
    a.x = x_.as<T>(), a.y = y_.as<T>();
    a.total = total_.as<double>(), a.window = window_.as<double>();
    a.shift = shift_.as<double>(), a.failed = failed_.as<int>();
    a.samp = samp_.as<double>(), a.cap = cap_;
    a.steps = int(chunk);
    a.every = int(rec.every);
    a.to_sample0 = int(rec.every - step_ % rec.every);
    a.to_window0 = int(kMsdWindow - step_ % kMsdWindow);
    // Step s of the chunk is global step step_ + s + 1; it is past the transient when > transient.
    a.past0 = int(std::clamp<std::int64_t>(rec.transient - step_, 0, chunk));
    a.omega = T(m.omega), a.c = T(m.c), a.he = T(m.coupling / 2);
    a.degree = T(m.degree), a.literal = m.form == CouplingForm::Literal;
    a.h = T(dt), a.h2 = T(dt / 2), a.h6 = T(dt / 6);
    const dim3 grid(unsigned(plan_.blocks)), block(unsigned(plan_.threads));
    if (a.w)
      dispatch<T, true>(grid, block, a);
    else
      dispatch<T, false>(grid, block, a);
    SIMSCOPE_CUDA_CHECK(cudaGetLastError());
  }

  template <typename T, bool W>
  void dispatch(dim3 grid, dim3 block, const Args<T>& a) {
    switch (plan_.npl) {
      case 1:
        rk4_kernel<T, 1, W><<<grid, block, plan_.smem, stream_>>>(a);
        break;
      case 2:
        rk4_kernel<T, 2, W><<<grid, block, plan_.smem, stream_>>>(a);
        break;
      case 4:
        rk4_kernel<T, 4, W><<<grid, block, plan_.smem, stream_>>>(a);
        break;
      case 5:
        rk4_kernel<T, 5, W><<<grid, block, plan_.smem, stream_>>>(a);
        break;
      default:
        rk4_kernel<T, 8, W><<<grid, block, plan_.smem, stream_>>>(a);
        break;
    }
  }

  /// A pooled frame buffer of at least `floats` floats that nobody else holds, or a new one.
  /// Shared ownership: the frame's holders keep it alive; it frees itself on any thread.
  std::shared_ptr<float> frame_buffer(std::size_t floats) {
    for (auto& p : frames_)
      if (p.use_count() == 1 && p->size() >= floats) return {p, p->get()};  // nobody else holds it
    auto p = make_shared_buffer(DeviceBuffer<float>(alloc_, floats, "a frame"));
    if (frames_.size() >= 4) {
      // Every pooled buffer is held elsewhere: replace the oldest; it lives on with its holders.
      frames_.erase(frames_.begin());
    }
    frames_.push_back(p);
    return {p, p->get()};
  }

  /// `bytes` of device memory from this ensemble's allocator "oscillators".
  DeviceBuffer<unsigned char> buffer(std::size_t bytes, const char* what) {
    return DeviceBuffer<unsigned char>(alloc_, bytes, what);
  }

  void free_all() {
    for (auto* b : {&row_, &col_, &w_, &x_, &y_, &total_, &window_, &shift_, &failed_, &samp_,
                    &series_, &gseries_})
      b->reset();
    gseries_bytes_ = 0;
    loaded_ = false;
  }

  void upload(void* dst, const void* src, std::size_t bytes) {
    SIMSCOPE_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, stream_));
    SIMSCOPE_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }

  /// Host doubles to device values of the working precision.
  void upload_real(void* dst, const std::vector<double>& v) {
    if (elem_ == sizeof(double)) return upload(dst, v.data(), v.size() * sizeof(double));
    std::vector<float> f(v.begin(), v.end());
    upload(dst, f.data(), f.size() * sizeof(float));
  }

  std::vector<double> download_real(const void* src, std::size_t n) const {
    std::vector<double> out(n);
    if (elem_ == sizeof(double)) {
      SIMSCOPE_CUDA_CHECK(cudaMemcpy(out.data(), src, n * sizeof(double), cudaMemcpyDeviceToHost));
    } else {
      std::vector<float> f(n);
      SIMSCOPE_CUDA_CHECK(cudaMemcpy(f.data(), src, n * sizeof(float), cudaMemcpyDeviceToHost));
      std::copy(f.begin(), f.end(), out.begin());
    }
    return out;
  }

  int device_ = 0, sms_ = 1;
  CudaStream stream_;
  Precision precision_ = Precision::Fp64;
  std::size_t elem_ = sizeof(double);
  int N_ = 0, K_ = 0;
  bool shared_graph_ = false, loaded_ = false;
  LaunchPlan plan_;
  long long cap_ = 1;
  std::int64_t step_ = 0, last_chunk_ = 0;
  double rate_ = 0;
  std::shared_ptr<DeviceAllocator> alloc_;  // "oscillators": every device buffer below
  // Typed at run time by elem_ and the network's index types; viewed through as<T>().
  DeviceBuffer<unsigned char> row_, col_, w_, x_, y_, total_, window_, shift_, failed_, samp_,
      series_, gseries_;
  std::size_t gseries_bytes_ = 0;  // gseries_'s size (allocated by the first grouped advance())
  std::vector<std::shared_ptr<DeviceBuffer<float>>> frames_;  // shared with the frames
  DeviceBuffer<unsigned char> input_bad_;  // load_device: the first non-finite value
  CudaEvent input_ready_;                 // load_device: recorded on the producer's stream
};

}  // namespace

namespace detail {
std::unique_ptr<Ensemble> make_cuda_ensemble() { return std::make_unique<CudaEnsemble>(); }
}  // namespace detail

}  // namespace simscope::oscillators
