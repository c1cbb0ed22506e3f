// The CUDA lsq solver of lsq.hpp's Solver. Same algorithm and outputs as the CPU back end
// (cpu/solver.cpp), in chunks of pixels that stream through the device:
//
//  1. Upload the chunk's slab of the cube, M x Pc, as a pitched copy. Skipped when the whole
//     cube fits one chunk and the same Cube::generation was solved last. A tiled-transpose
//     kernel writes the 0/1 mask W (Pc x M, column-major, for the Gram product), the data with
//     gaps zeroed pixel-major (M x Pc) and a pixel-major mask, and counts the observed rows.
//  2. A classify kernel sorts pixels into empty, no gaps (shared SVD of A), Cholesky and host
//     SVD. For methods auto and downdate it also picks the downdate and the row-Gram minimum
//     norm by the CPU back end's rule (cpu/path.hpp; auto's cost model in lsq_downdate.hpp).
//     With those small paths on: y = B (w o b) of the chunk is one float64 cuBLAS GEMM
//     (B = G^-1 A^T, N x M, against the zero-filled data); the host reads the chunk's flags,
//     one stream synchronisation per chunk; it launches the small kernel at the chunk's largest
//     size (lsq_cuda_small.cu: one warp per pixel, K = I - C_SS or R_OO in shared memory).
//     The Gram products of step 3 run only where a pixel needs them.
//  3. cuBLAS: G = K^T W^T, DESIGN.md's Khatri-Rao form, with K[i][t] = A_ir A_ic for the packed
//     lower entries t = (r, c), c <= r. One (N(N+1)/2) x Pc GEMM in the working precision, no
//     TF32. Skipped where the host knows no pixel needs it: methods qr/svd, or a chunk that an
//     earlier solve of the same cube found without gaps. Never decided by reading the device,
//     which would stall the streams. H = A^T B is a float64 GEMM.
//  4. One warp per pixel: G + lambda I into shared memory, right-looking Cholesky with the
//     column copied contiguous, the Hager/Higham 1-norm condition estimate, the solve, one
//     float64 refinement step (method auto) and the residual. No-gap pixels apply the shared
//     operator.
//  5. Outputs come back into pinned staging, so copies are asynchronous and the two streams and
//     the host overlap; they go into the Result when the chunk finishes. Pixels that need the
//     SVD (breakdown, poor condition, underdetermined with lambda = 0) are marked and solved on
//     the host by the CPU back end's float64 SVD (lsq_dense.cpp), as are all pixels of methods
//     qr and svd.
//     With keep_outputs_on_device(true), a kernel instead scatters each chunk's outputs into
//     full-size device maps (lsq_cuda_maps.cuh); only the chunk's statuses and kinds come back.
//     Host-solved pixels are uploaded and scattered into the maps. After the last chunk the
//     maps' inf counts are reduced on the device and an fp32 solve's solution is rounded to
//     float32. The maps are new memory at every solve, shared with the results
//     (device_output()). When they would not fit (device_maps_bytes(), half the memory left),
//     the solve copies to the host as above and Result::device_note says why.
// Two streams alternate chunks with their own buffers. The chunk size follows the available
// device memory (chunk_pixels): free memory plus this solver's chunk buffers, at most half of
// it for both buffer sets, the same chunk at every solve. So any cube the host holds streams
// through. SIMSCOPE_LSQ_CUDA_CHUNK=<pixels> caps it further; tests use it to force many chunks.
// SIMSCOPE_LSQ_CUDA_MAPS_ROOM=<bytes> caps the room for kept maps; tests use it for fallback.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "core/bytes.hpp"
#include "core/cuda_check.hpp"
#include "core/cuda_handles.hpp"
#include "core/device_memory.hpp"
#include "lsq/cublas_handle.cuh"
#include "lsq/lsq_cuda_inputs.cuh"
#include "lsq/lsq_cuda_maps.cuh"
#include "lsq/lsq_cuda_small.cuh"
#include "lsq/lsq_device_cube.hpp"
#include "lsq/lsq_downdate.hpp"
#include "lsq/lsq_internal.hpp"
#include "lsq/lsq_warp.cuh"

namespace simscope::lsq::detail {
namespace {

using Clock = std::chrono::steady_clock;


constexpr int kMaxWarpsPerBlock = 8;

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

/// Bits of a chunk's flag (classify_kernel): a pixel solved by the Gram path's Cholesky on the
/// device; a pixel with gaps, 0 < count < M, the only kind that can need the Gram products; a
/// pixel for the small kernel, downdate or minimum norm (lsq_cuda_small.cu).
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

struct SolveArgs {
  int M, N, pc;
  double lambda;
  bool refine;       // method auto
  double threshold;  // cond(G) above which a pixel goes to the host SVD
  const double* a;   // M x N row-major (float64)
  const double* op;  // N x M row-major: the shared SVD's operator
  std::uint8_t shared_status;
  float shared_condition;
  const std::uint8_t* kind;
  const int* count;
  const double* bpm;        // M x pc pixel-major, gaps = 0
  const std::uint8_t* mpm;  // M x pc pixel-major mask
  const double* h;          // N x pc column-major: A^T b
  double* r;                // M x pc pixel-major scratch
  double* x;                // N x pc row-major: solution (for a pitched copy)
  float* residual;
  float* condition;
  std::uint8_t* status;
};

template <class T>
__global__ void solve_kernel(SolveArgs a, const T* __restrict__ gram) {
  extern __shared__ double smem[];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int q = blockIdx.x * (blockDim.x >> 5) + warp;
  if (q >= a.pc) return;  // uniform per warp
  const int M = a.M, N = a.N, NT = N * (N + 1) / 2;
  const std::size_t per_warp =
      (((std::size_t(NT) + N) * sizeof(T) + 7) / 8) + 3 * std::size_t(N);  // in doubles
  double* base = smem + per_warp * warp;
  T* L = reinterpret_cast<T*>(base);
  T* col = L + NT;
  double* x = base + ((std::size_t(NT) + N) * sizeof(T) + 7) / 8;
  double* z = x + N;
  double* s = z + N;
  const double* b = a.bpm + std::size_t(q) * M;
  const std::uint8_t* w = a.mpm + std::size_t(q) * M;
  const int cnt = a.count[q];
  const std::uint8_t kind = a.kind[q];
  const double nan = __longlong_as_double(0x7ff8000000000000ll);

  auto write_x = [&]() {
    for (int k = lane; k < N; k += 32) a.x[std::size_t(k) * a.pc + q] = x[k];
  };
  auto residual = [&]() {  // RMS over observed rows of A_i . x - b_i
    double ss = 0;
    for (int i = lane; i < M; i += 32) {
      if (!w[i]) continue;
      const double* ai = a.a + std::size_t(i) * N;
      double t = -b[i];
      for (int k = 0; k < N; ++k) t += ai[k] * x[k];
      ss += t * t;
    }
    ss = warp_sum(ss);
    return sqrt(ss / cnt);
  };

  if (kind == kKindEmpty) {
    for (int k = lane; k < N; k += 32) a.x[std::size_t(k) * a.pc + q] = nan;
    if (lane == 0) {
      a.status[q] = kAllMissing;
      a.residual[q] = float(nan);
      a.condition[q] = float(nan);
    }
    return;
  }
  if (kind == kKindDowndate || kind == kKindMinNorm) return;  // lsq_cuda_small.cu
  if (kind == kKindHost) {
    if (lane == 0) a.status[q] = kStatusHost;
    return;
  }
  if (kind == kKindShared) {
    for (int k = lane; k < N; k += 32) {
      const double* row = a.op + std::size_t(k) * M;
      double t = 0;
      for (int i = 0; i < M; ++i) t += row[i] * b[i];
      x[k] = t;
    }
    __syncwarp();
    write_x();
    const double res = residual();
    if (lane == 0) {
      a.status[q] = a.shared_status;
      a.condition[q] = a.shared_condition;
      a.residual[q] = float(res);
    }
    return;
  }

  // Cholesky path: G + lambda I, its 1-norm and the breakdown tolerance N eps max(diag G).
  const T* g = gram + std::size_t(q) * NT;
  for (int t = lane; t < NT; t += 32) L[t] = g[t];
  __syncwarp();
  for (int i = lane; i < N; i += 32) L[rowbase(i) + i] += T(a.lambda);
  __syncwarp();
  double norm1 = 0, maxdiag = 0;
  for (int i = lane; i < N; i += 32) {
    double c = 0;
    for (int j = 0; j < N; ++j) c += fabs(double(i >= j ? L[rowbase(i) + j] : L[rowbase(j) + i]));
    norm1 = fmax(norm1, c);
    maxdiag = fmax(maxdiag, double(L[rowbase(i) + i]));
  }
  for (int o = 16; o > 0; o >>= 1) {
    norm1 = fmax(norm1, __shfl_xor_sync(0xffffffffu, norm1, o));
    maxdiag = fmax(maxdiag, __shfl_xor_sync(0xffffffffu, maxdiag, o));
  }
  __syncwarp();
  const T tol = T(N) * std::numeric_limits<T>::epsilon() * T(maxdiag);
  if (!warp_cholesky(L, col, N, tol, lane)) {
    if (lane == 0) a.status[q] = kStatusHost;
    return;
  }
  const double cond = norm1 * warp_inv_norm1(L, N, x, z, s, lane);
  if (!(cond <= a.threshold)) {
    if (lane == 0) a.status[q] = kStatusHost;
    return;
  }
  // x = G^-1 A^T b, then, for method auto, one refinement step with the float64 residual.
  for (int k = lane; k < N; k += 32) x[k] = a.h[std::size_t(q) * N + k];
  __syncwarp();
  warp_solve(L, N, x, lane);
  if (a.refine) {
    double* r = a.r + std::size_t(q) * M;
    for (int i = lane; i < M; i += 32) {
      double t = 0;
      if (w[i]) {
        const double* ai = a.a + std::size_t(i) * N;
        t = b[i];
        for (int k = 0; k < N; ++k) t -= ai[k] * x[k];
      }
      r[i] = t;
    }
    __syncwarp();
    for (int k = lane; k < N; k += 32) {
      double d = -a.lambda * x[k];
      for (int i = 0; i < M; ++i) d += a.a[std::size_t(i) * N + k] * r[i];
      z[k] = d;
    }
    __syncwarp();
    warp_solve(L, N, z, lane);
    for (int k = lane; k < N; k += 32) x[k] += z[k];
    __syncwarp();
  }
  write_x();
  const double res = residual();
  if (lane == 0) {
    a.status[q] = cnt < N ? kUnderdetermined : kOk;
    a.condition[q] = float(sqrt(cond));
    a.residual[q] = float(res);
  }
}

/// Pinned host memory, one cudaMallocHost block, that a chunk's outputs are copied into. From
/// pageable memory a device-to-host cudaMemcpyAsync blocks the host, and the streams would not
/// overlap. Layout: x (N x pc doubles, node-major), residual, condition, count, status, kind,
/// flag (two ints: the kFlag bits and the largest small size).
struct HostStaging {
  PinnedHostBlock block;
  double* x = nullptr;
  float* residual = nullptr;
  float* condition = nullptr;
  int* count = nullptr;
  std::uint8_t* status = nullptr;
  std::uint8_t* kind = nullptr;
  int* flag = nullptr;
};

/// Device buffers of one chunk; one set per stream.
struct Buffers {
  DeviceBuffer<unsigned char> cube;  // M x pc, the cube's dtype
  DeviceBuffer<unsigned char> wt;    // pc x M, T
  DeviceBuffer<double> bpm;
  DeviceBuffer<std::uint8_t> mpm;
  DeviceBuffer<double> r;
  DeviceBuffer<unsigned char> gram;  // NT x pc, T
  DeviceBuffer<double> h;
  DeviceBuffer<double> y;  // N x pc: y = B (w o b) of the downdate
  DeviceBuffer<double> x;
  DeviceBuffer<float> residual;
  DeviceBuffer<float> condition;
  DeviceBuffer<std::uint8_t> status;
  DeviceBuffer<std::uint8_t> kind;
  DeviceBuffer<int> count;
  DeviceBuffer<int> flag;
  CudaStream stream;
  CublasHandle cublas;  // one per stream
  HostStaging host;                 // pinned copies of the chunk's outputs and flag
  DeviceBuffer<double> records;     // host-solved pixels for the device maps (kept maps only)
  // the chunk in flight
  std::size_t p0 = 0, np = 0;
  bool busy = false;
  std::string capacity_key;  // what the buffers were allocated for
  /// Cube::generation of the whole cube held in `cube`, for one-chunk solves only; 0: none. A
  /// solve of the same cube skips the upload, e.g. when the GUI changes lambda, method or
  /// precision.
  std::uint64_t resident_generation = 0;
  std::size_t resident_begin = 0;  ///< ... and the cube pixel it starts at (a row range's)
};

class CudaSolver final : public Solver {
 public:
  CudaSolver() {
    device_ = cuda_current_device();  // the device rule (core/cuda_check.hpp)
    alloc_ = DeviceAllocator::cuda("lsq", device_, "use --backend cpu");
    maps_alloc_ = DeviceAllocator::cuda("lsq", device_, "use --backend cpu");
    int pitch = 0;
    SIMSCOPE_CUDA_CHECK(cudaDeviceGetAttribute(&pitch, cudaDevAttrMaxPitch, device_));
    max_pitch_ = std::size_t(pitch);
    int optin = 0;
    SIMSCOPE_CUDA_CHECK(
        cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device_));
    smem_optin_ = std::size_t(optin);
    for (auto& b : buf_) {
      b.stream = CudaStream::create();
      b.cublas = CublasHandle::create(b.stream);
    }
  }
  ~CudaSolver() override {
    const CudaDeviceScope on(device_);  // may be destroyed on another thread
    for (auto& b : buf_) {
      if (b.stream) cudaStreamSynchronize(b.stream);
      free_buffers(b);
    }
    free_design();
    gathered_.reset(), input_bad_.reset(), inf_counts_.reset();
    release_maps();  // freed here unless a result still holds them
  }

  Backend backend() const override { return Backend::Cuda; }
  /// The chunk buffers' peak plus the kept maps' peak. Two allocators, so an upper bound.
  double peak_device_bytes() const override {
    return double(alloc_->peak_bytes()) + double(maps_alloc_->peak_bytes());
  }
  bool keep_outputs_on_device(bool keep) override {
    keep_ = keep;
    return true;
  }
  int device() const override { return device_; }
  std::shared_ptr<const void> device_output(const std::string& name) const override {
    if (!have_maps_) return nullptr;
    if (name == "solution")
      return sol32_ ? std::shared_ptr<const void>(sol32_, sol32_->get())
                    : std::shared_ptr<const void>(sol64_, sol64_->get());
    if (name == "residual") return std::shared_ptr<const void>(residual_, residual_->get());
    if (name == "condition") return std::shared_ptr<const void>(condition_, condition_->get());
    if (name == "count") return std::shared_ptr<const void>(count_, count_->get());
    if (name == "status") return std::shared_ptr<const void>(status_, status_->get());
    return nullptr;
  }

  using Solver::solve;
  void solve(const Cube& cube, const Design& design, const IndexRange& range,
             const Options& options, Result& out, Progress* progress) override {
    validate(cube, design, options);
    const IndexRange rows = resolve(range, cube.height, "lsq: pixel rows");
    cuda_use_device(device_);  // may run on another thread than the constructor's
    const auto t0 = Clock::now();
    release_maps();  // this solver's hold only: results holding them keep them
    const bool keep = keep_ && keep_fits(design.n, (rows.end - rows.begin) * cube.width,
                                         options.precision, out);
    const std::string note = out.device_note;
    init_result(out, cube, design, rows, !keep);
    out.device_note = note;
    const SharedSvd shared = shared_svd(design, options.lambda);
    out.shared_rank = shared.rank;
    // The downdate and minimum-norm operators, float64, built on the host in O(M^2 N) per solve.
    const bool dd = options.method == Method::Downdate || options.method == Method::Auto;
    const DowndateOps ops =
        make_downdate_ops(design, options.lambda, fallback_condition(Precision::Fp64), dd,
                          options.method == Method::Auto && design.m > 0);
    try {
      if (options.precision == Precision::Fp32)
        run<float>(cube, design, options, shared, ops, out, progress);
      else
        run<double>(cube, design, options, shared, ops, out, progress);
    } catch (...) {
      for (auto& b : buf_) {
        cudaStreamSynchronize(b.stream);
        b.busy = false;
        b.resident_generation = 0;  // an upload may have stopped half-way
      }
      cudaGetLastError();
      release_maps();
      throw;
    }
    if (out.on_host) {  // kept maps: run() counted both from the chunks' statuses and kinds
      out.shared_pixels = 0;
      for (std::size_t p = 0; p < out.count.size(); ++p)
        out.shared_pixels += std::size_t(out.count[p]) == cube.m;
      count_statuses(out);
    }
    out.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  }

  double host_staging_bytes() const override { return staging_bytes_; }

  void solve_device(const DeviceView& v, const Design& design, const Options& options, Result& out,
                    Progress* progress) override {
    check_cube_view(v);
    if (v.device != device_)
      throw InputError(v.name + ": a CUDA array on device " + std::to_string(v.device) +
                       ", but the CUDA back end runs on device " + std::to_string(device_) +
                       "; move it there (tensor.to('cuda:" + std::to_string(device_) + "'))");
    cuda_use_device(device_);
    staging_bytes_ = 0;
    const std::size_t M = v.shape[0], H = v.shape[1], W = v.shape[2], n = M * H * W;
    const std::size_t item = v.itemsize();
    cudaStream_t st = buf_[0].stream;
    // The producer's queued work first (DeviceView::stream), on both chunk streams.
    if (!input_ready_) input_ready_ = CudaEvent::create(cudaEventDisableTiming);
    SIMSCOPE_CUDA_CHECK(cudaEventRecord(input_ready_, reinterpret_cast<cudaStream_t>(v.stream)));
    for (auto& b : buf_) SIMSCOPE_CUDA_CHECK(cudaStreamWaitEvent(b.stream, input_ready_, 0));
    const unsigned blocks =
        unsigned(std::min<std::size_t>((n + 255) / 256, std::size_t(65535) * 8));
    const void* data = v.data;
    if (!v.c_contiguous()) {  // the solver's layout is C order: gather it on the device
      gathered_.reset();
      gathered_ = buffer<unsigned char>(n * item, "the cube gathered into C order");
      const auto* base = static_cast<const unsigned char*>(v.data);
      if (item == 4)
        cuda_inputs::gather_cube_kernel<float>
            <<<blocks, 256, 0, st>>>(base, (long long)M, (long long)H, (long long)W, v.strides[0],
                                     v.strides[1], v.strides[2], gathered_.as<float>());
      else
        cuda_inputs::gather_cube_kernel<double>
            <<<blocks, 256, 0, st>>>(base, (long long)M, (long long)H, (long long)W, v.strides[0],
                                     v.strides[1], v.strides[2], gathered_.as<double>());
      SIMSCOPE_CUDA_CHECK(cudaGetLastError());
      data = gathered_.get();
    }
    if (!input_bad_) input_bad_ = buffer<unsigned long long>(1, "the cube check");
    SIMSCOPE_CUDA_CHECK(cudaMemsetAsync(input_bad_.get(), 0xFF, sizeof(unsigned long long), st));
    if (item == 4)
      cuda_inputs::first_inf_kernel<float>
          <<<blocks, 256, 0, st>>>(static_cast<const float*>(data), (long long)n, input_bad_.get());
    else
      cuda_inputs::first_inf_kernel<double><<<blocks, 256, 0, st>>>(
          static_cast<const double*>(data), (long long)n, input_bad_.get());
    SIMSCOPE_CUDA_CHECK(cudaGetLastError());
    unsigned long long bad = 0;
    SIMSCOPE_CUDA_CHECK(
        cudaMemcpyAsync(&bad, input_bad_.get(), sizeof bad, cudaMemcpyDeviceToHost, st));
    SIMSCOPE_CUDA_CHECK(cudaStreamSynchronize(st));
    if (bad != cuda_inputs::kNoBad) {
      double value = 0;  // that entry only (the error path)
      SIMSCOPE_CUDA_CHECK(cudaMemcpy(&value, static_cast<const unsigned char*>(data) + bad * item,
                                     item, cudaMemcpyDeviceToHost));
      gathered_.reset();
      throw_inf_entry(v, std::size_t(bad), &value);
    }
    // The cube's header over device memory: `borrowed` holds the device pointer while
    // device_input_ is set. run() copies its slabs device to device; host_cube() gives the host
    // pixels a host copy. The header never leaves this call.
    Cube c;
    c.m = M, c.height = H, c.width = W, c.dtype = v.dtype;
    c.borrowed = static_cast<const std::uint8_t*>(data);
    c.generation = 0;  // nothing to cache across calls
    device_input_ = true;
    try {
      solve(c, design, IndexRange::all(), options, out, progress);
    } catch (...) {
      device_input_ = false;
      staged_ = Cube{}, gathered_.reset();
      throw;
    }
    device_input_ = false;
    staged_ = Cube{}, gathered_.reset();
  }

 private:
  /// The cube as host memory for the pixels solved on the host: `cube` itself, or for a device
  /// cube (solve_device) its single host copy, made on first use and counted in staging_bytes_.
  const Cube& host_cube(const Cube& cube) {
    if (!device_input_) return cube;
    if (staged_.bytes.empty()) {
      staged_.m = cube.m, staged_.height = cube.height, staged_.width = cube.width;
      staged_.dtype = cube.dtype;
      staged_.bytes.resize(cube.stored_bytes());
      SIMSCOPE_CUDA_CHECK(cudaMemcpy(staged_.bytes.data(), cube.borrowed, staged_.bytes.size(),
                                     cudaMemcpyDeviceToHost));
      staging_bytes_ += double(staged_.bytes.size());
    }
    return staged_;
  }

  /// Solves the result's pixels: P = out.pixels() from cube pixel pb = out.row_begin * W. A row
  /// range is one contiguous slab of P pixels per observation, at stride cube.pixels().
  template <class T>
  void run(const Cube& cube, const Design& design, const Options& options, const SharedSvd& shared,
           const DowndateOps& ops, Result& out, Progress* progress) {
    const int M = int(design.m), N = int(design.n), NT = N * (N + 1) / 2;
    const std::size_t P = out.pixels(), pb = out.row_begin * cube.width, Pcube = cube.pixels();
    const std::size_t csize = cube.dtype == io::DType::Float32 ? 4 : 8;
    upload_design<T>(design, shared);
    upload_ops(ops);
    const bool small_paths = ops.downdate || ops.minnorm;  // the small kernel may run
    const bool keep = !out.on_host;
    if (keep) allocate_maps(N, P);  // before the chunk size: it counts them
    const DeviceMaps maps = device_maps(P);
    std::vector<std::uint8_t> kept_status;  // keep: a chunk's statuses, host pixels solved
    Result host_scratch;                    // keep: the host-solved pixels of a chunk

    // Chunk size: both buffer sets within half the free memory, at most 2^20 pixels, and every
    // cuBLAS operand (W: pc x M, G: NT x pc, B: M x pc) under 2^31 elements. The GEMMs take int
    // dimensions and some of their kernels index in 32 bits; with N = 128, NT x 2^20 is 8.7e9.
    const double per_pixel = double(M) * (csize + sizeof(T) + 8 + 1 + 8) + double(NT) * sizeof(T) +
                             double(N) * 24 + 4 + 4 + 1 + 1 + 4 + 1;
    std::size_t free_b = 0, total_b = 0;
    SIMSCOPE_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    std::size_t cap = 0;
    if (const char* e = std::getenv("SIMSCOPE_LSQ_CUDA_CHUNK")) cap = std::strtoull(e, nullptr, 10);
    const std::size_t held =
        alloc_->current_bytes() - design_bytes();  // the chunk buffers (issue 16 item 3)
    const std::size_t pc = chunk_pixels(per_pixel, free_b, held, P, M, NT, cap);
    if (pc == 0)
      throw Error("lsq (CUDA): not enough device memory for a chunk of 32 pixels (" +
                  format_bytes(32 * 2 * per_pixel) + " needed, " +
                  format_bytes(double(free_b + held)) + " free): use --backend cpu");
    for (auto& b : buf_) ensure_buffers<T>(b, pc, M, N, csize);
    // Chunks known to have no pixel with gaps skip the Gram products; an earlier solve of this
    // cube learns them in finish(). Others run them without asking the device first.
    if (gap_free_generation_ != cube.generation || gap_free_pc_ != pc || cube.generation == 0 ||
        gap_free_begin_ != pb || gap_free_pixels_ != P) {
      gap_free_.assign((P + pc - 1) / pc, 0);
      gap_free_generation_ = cube.generation, gap_free_pc_ = pc;
      gap_free_begin_ = pb, gap_free_pixels_ = P;
    }

    const bool host_all = options.method == Method::Qr || options.method == Method::Svd;
    ClassifyRule rule;
    rule.host_all = host_all;
    rule.downdate = options.method == Method::Downdate;
    rule.automatic = options.method == Method::Auto;
    rule.dd_ok = ops.downdate, rule.mn_ok = ops.minnorm;
    rule.lambda_zero = options.lambda == 0;
    rule.small_limit = small_paths ? small_size_limit(N, M, smem_optin_) : 0;
    std::uint64_t fallbacks = 0, on_host = 0, downdated = 0, minnormed = 0;
    std::size_t done = 0;  // pixels finished (chunks finish out of order: buf_[0] first at the end)
    std::vector<std::size_t> host_pixels;
    auto finish_kept = [&](Buffers& b) {  // b's chunk, maps on the device: host SVDs into them
      SIMSCOPE_CUDA_CHECK(cudaStreamSynchronize(b.stream));
      b.busy = false;
      const HostStaging& h = b.host;
      if (!(*h.flag & kFlagPartial)) gap_free_[b.p0 / pc] = 1;
      host_pixels.clear();
      for (std::size_t q = 0; q < b.np; ++q) {
        const bool to_host = h.status[q] == kStatusHost;
        if (to_host) host_pixels.push_back(q);
        downdated += !to_host && h.kind[q] == kKindDowndate;
        minnormed += !to_host && h.kind[q] == kKindMinNorm;
        out.shared_pixels += h.kind[q] == kKindShared;
      }
      if (!host_all) fallbacks += host_pixels.size();
      on_host += host_pixels.size();
      kept_status.assign(h.status, h.status + b.np);
      if (!host_pixels.empty()) {
        solve_host_into_maps(host_cube(cube), design, options, host_pixels, b, pb, maps,
                             kept_status, host_scratch);
      }
      for (std::uint8_t st : kept_status)
        if (st < 4) ++out.status_counts[st];
      done += b.np;
      progress_set(progress, double(done) / double(P));
    };
    auto finish = [&](Buffers& b) {  // b's chunk: outputs from the pinned staging, host SVDs
      if (keep) return finish_kept(b);
      SIMSCOPE_CUDA_CHECK(cudaStreamSynchronize(b.stream));
      b.busy = false;
      const HostStaging& h = b.host;
      for (int k = 0; k < N; ++k)
        std::memcpy(out.solution.data() + std::size_t(k) * P + b.p0, h.x + std::size_t(k) * b.np,
                    b.np * sizeof(double));
      std::memcpy(out.residual.data() + b.p0, h.residual, b.np * sizeof(float));
      std::memcpy(out.condition.data() + b.p0, h.condition, b.np * sizeof(float));
      std::memcpy(out.status.data() + b.p0, h.status, b.np);
      std::memcpy(out.count.data() + b.p0, h.count, b.np * sizeof(int));
      if (!(*h.flag & kFlagPartial)) gap_free_[b.p0 / pc] = 1;
      host_pixels.clear();
      for (std::size_t q = 0; q < b.np; ++q) {
        const bool to_host = out.status[b.p0 + q] == kStatusHost;
        if (to_host) host_pixels.push_back(b.p0 + q);
        downdated += !to_host && h.kind[q] == kKindDowndate;
        minnormed += !to_host && h.kind[q] == kKindMinNorm;
      }
      if (!host_all) fallbacks += host_pixels.size();
      on_host += host_pixels.size();
      if (!host_pixels.empty())
        solve_pixels_dense(host_cube(cube), design, options, host_pixels, out, pb);
      done += b.np;
      progress_set(progress, double(done) / double(P));
    };

    int next = 0;
    for (std::size_t p0 = 0; p0 < P; p0 += pc) {
      progress_check(progress);
      Buffers& b = buf_[next];
      next ^= 1;
      if (b.busy) finish(b);
      b.p0 = p0;
      b.np = std::min(pc, P - p0);
      b.busy = true;
      const int np = int(b.np);
      // 1. The slab of the cube, unless this buffer already holds the whole cube; the mask,
      // data and counts.
      const bool whole = b.np == P;
      if (!(whole && cube.generation != 0 && b.resident_generation == cube.generation &&
            b.resident_begin == pb)) {
        b.resident_generation = 0;
        b.resident_begin = pb;
        copy_2d(b.cube.get(), b.np * csize, cube.data() + (pb + p0) * csize, Pcube * csize,
                b.np * csize, std::size_t(M),
                device_input_ ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice, b.stream);
        if (whole) b.resident_generation = cube.generation;
      }
      SIMSCOPE_CUDA_CHECK(cudaMemsetAsync(b.count.get(), 0, b.np * sizeof(int), b.stream));
      SIMSCOPE_CUDA_CHECK(cudaMemsetAsync(b.flag.get(), 0, 2 * sizeof(int), b.stream));
      const dim3 tb(32, 8), tg(unsigned((np + 31) / 32), unsigned((M + 31) / 32));
      if (csize == 4)
        prep_kernel<float, T><<<tg, tb, 0, b.stream>>>(
            b.cube.as<const float>(), M, np, b.wt.as<T>(), b.bpm.get(), b.mpm.get(), b.count.get());
      else
        prep_kernel<double, T><<<tg, tb, 0, b.stream>>>(b.cube.as<const double>(), M, np,
                                                        b.wt.as<T>(), b.bpm.get(), b.mpm.get(),
                                                        b.count.get());
      SIMSCOPE_CUDA_CHECK(cudaGetLastError());
      classify_kernel<<<unsigned((np + 255) / 256), 256, 0, b.stream>>>(
          b.count.get(), np, M, N, rule, b.kind.get(), b.flag.get());
      SIMSCOPE_CUDA_CHECK(cudaGetLastError());
      // The flags reach the host with the outputs, in pinned memory read in finish(), off the
      // hot path. With the small paths, two are read here: their kernel's size, and whether the
      // Gram products are needed at all, since auto's downdate leaves few or no Gram pixels.
      SIMSCOPE_CUDA_CHECK(cudaMemcpyAsync(b.host.flag, b.flag.get(), 2 * sizeof(int),
                                          cudaMemcpyDeviceToHost, b.stream));
      bool need_gram = !host_all && !gap_free_[p0 / pc];
      if (small_paths && need_gram) {
        if (ops.downdate) {  // y = B (w o b) for the chunk: one float64 GEMM (B: N x M)
          const double one = 1, zero = 0;
          LSQ_CUBLAS_CHECK(cublasDgemm(b.cublas, CUBLAS_OP_N, CUBLAS_OP_N, N, np, M, &one,
                                       d_bt_.get(), N, b.bpm.get(), M, &zero, b.y.get(), N));
        }
        SIMSCOPE_CUDA_CHECK(cudaStreamSynchronize(b.stream));
        const int flags = b.host.flag[0];
        need_gram = flags & kFlagChol;
        if (flags & kFlagSmall) {
          SmallArgs sa;
          sa.M = M, sa.N = N, sa.pc = np, sa.nmax = std::max(1, b.host.flag[1]);
          sa.lambda = options.lambda, sa.limit = fallback_condition(Precision::Fp64);
          sa.cond_g = ops.cond_g;
          sa.a = d_a_.get(), sa.bt = d_bt_.get(), sa.c = d_c_.get(), sa.r = d_r_.get();
          sa.ginv = d_ginv_.get();
          sa.kind = b.kind.get(), sa.count = b.count.get(), sa.bpm = b.bpm.get();
          sa.mpm = b.mpm.get(), sa.y = b.y.get(), sa.scratch = b.r.get(), sa.x = b.x.get();
          sa.residual = b.residual.get(), sa.condition = b.condition.get();
          sa.status = b.status.get();
          launch_small(sa, smem_optin_, b.stream);
        }
      }
      // 2. The products (cuBLAS, column-major): G = K^T W^T and H = A^T B. Skipped where the host
      // knows no pixel can need them: QR/SVD for all (host_all), or a chunk without gaps, since
      // only pixels with gaps use G and H. Otherwise they run even if the chunk has no Cholesky
      // pixel, e.g. the first solve of a cube without gaps; later solves skip them. Reading the
      // device's flag here would stall both streams every chunk.
      if (need_gram) {
        gram_gemm<T>(b, NT, np, M);
        const double one = 1, zero = 0;
        LSQ_CUBLAS_CHECK(cublasDgemm(b.cublas, CUBLAS_OP_T, CUBLAS_OP_N, N, np, M, &one,
                                     d_acm_.get(), M, b.bpm.get(), M, &zero, b.h.get(), N));
      }
      // 3. One warp per pixel.
      SolveArgs args{};
      args.M = M, args.N = N, args.pc = np;
      args.lambda = options.lambda;
      args.refine = options.method == Method::Auto;
      args.threshold = options.method == Method::Auto
                           ? fallback_condition(options.precision)
                           : 0.1 / double(std::numeric_limits<T>::epsilon());
      args.a = d_a_.get(), args.op = d_op_.get();
      args.shared_status = shared.outcome.status;
      args.shared_condition = shared.outcome.condition;
      args.kind = b.kind.get(), args.count = b.count.get(), args.bpm = b.bpm.get(),
      args.mpm = b.mpm.get(), args.h = b.h.get();
      args.r = b.r.get(), args.x = b.x.get(), args.residual = b.residual.get(),
      args.condition = b.condition.get();
      args.status = b.status.get();
      const std::size_t per_warp =
          (((std::size_t(NT) + N) * sizeof(T) + 7) / 8 + 3 * std::size_t(N)) * sizeof(double);
      const int warps = int(std::clamp<std::size_t>((48 * 1024) / per_warp, 1, kMaxWarpsPerBlock));
      const std::size_t shm = per_warp * std::size_t(warps);
      if (shm > 48 * 1024)
        SIMSCOPE_CUDA_CHECK(cudaFuncSetAttribute(
            solve_kernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(shm)));
      solve_kernel<T><<<unsigned((np + warps - 1) / warps), unsigned(32 * warps), shm, b.stream>>>(
          args, b.gram.as<const T>());
      SIMSCOPE_CUDA_CHECK(cudaGetLastError());
      // 4. Outputs to the pinned staging, truly asynchronous: the host goes on to the next
      // chunk, or to the other buffer's host SVDs, while these land; finish() copies them out.
      // Kept maps: the chunk scatters into them on the device. Only the statuses and kinds come
      // back, which give the pixels the host solves and the counts.
      const HostStaging& hs = b.host;
      if (keep) {
        scatter_chunk_kernel<<<grid_for((std::size_t(N) + 1) * b.np), 256, 0, b.stream>>>(
            maps, p0, np, N, b.x.get(), b.residual.get(), b.condition.get(), b.count.get(),
            b.status.get());
        SIMSCOPE_CUDA_CHECK(cudaGetLastError());
        SIMSCOPE_CUDA_CHECK(
            cudaMemcpyAsync(hs.status, b.status.get(), b.np, cudaMemcpyDeviceToHost, b.stream));
        SIMSCOPE_CUDA_CHECK(
            cudaMemcpyAsync(hs.kind, b.kind.get(), b.np, cudaMemcpyDeviceToHost, b.stream));
        continue;
      }
      SIMSCOPE_CUDA_CHECK(cudaMemcpyAsync(hs.x, b.x.get(), std::size_t(N) * b.np * sizeof(double),
                                          cudaMemcpyDeviceToHost, b.stream));
      SIMSCOPE_CUDA_CHECK(cudaMemcpyAsync(hs.residual, b.residual.get(), b.np * sizeof(float),
                                          cudaMemcpyDeviceToHost, b.stream));
      SIMSCOPE_CUDA_CHECK(cudaMemcpyAsync(hs.condition, b.condition.get(), b.np * sizeof(float),
                                          cudaMemcpyDeviceToHost, b.stream));
      SIMSCOPE_CUDA_CHECK(
          cudaMemcpyAsync(hs.status, b.status.get(), b.np, cudaMemcpyDeviceToHost, b.stream));
      SIMSCOPE_CUDA_CHECK(cudaMemcpyAsync(hs.count, b.count.get(), b.np * sizeof(int),
                                          cudaMemcpyDeviceToHost, b.stream));
      SIMSCOPE_CUDA_CHECK(
          cudaMemcpyAsync(hs.kind, b.kind.get(), b.np, cudaMemcpyDeviceToHost, b.stream));
    }
    for (auto& b : buf_)
      if (b.busy) finish(b);
    if (keep) finish_maps(P, N, options.precision, out);
    out.fallback_pixels = fallbacks;
    out.host_pixels = on_host;
    out.downdate_pixels = downdated;
    out.minnorm_pixels = minnormed;
  }

  /// Whether the maps of an n-unknown, P-pixel solve fit in half the device memory this solver
  /// may use (free plus its chunk buffers), including the fp32 solution's float copy. If not,
  /// sets a one-line out.device_note, and the solve copies the maps to the host.
  bool keep_fits(std::size_t n, std::size_t P, Precision precision, Result& out) {
    out.device_note.clear();
    std::size_t free_b = 0, total_b = 0;
    SIMSCOPE_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    const double need = device_maps_bytes(n, P) +
                        (precision == Precision::Fp32 ? double(n) * double(P) * 4 : 0.0);
    const double held = double(alloc_->current_bytes()) - double(design_bytes());
    double room = 0.5 * (double(free_b) + std::max(0.0, held));
    if (const char* e = std::getenv("SIMSCOPE_LSQ_CUDA_MAPS_ROOM"))  // tests: a smaller device
      room = std::min(room, std::strtod(e, nullptr));
    if (need <= room) return true;
    out.device_note = "lsq (CUDA): the maps kept on the device would take " +
                      format_bytes(need) + " (N x H x W x 8 bytes of solution + 13 bytes a pixel: " +
                      std::to_string(n) + " x " + std::to_string(P) + " pixels), more than the " +
                      format_bytes(room) + " left for them: the outputs are copied to the host";
    return false;
  }

  /// New device maps for a solve of n unknowns over P pixels. The old ones stay with the
  /// results that hold them.
  void allocate_maps(int n, std::size_t P) {
    release_maps();
    auto buf = [&](auto tag, std::size_t count, const char* what) {
      using E = decltype(tag);
      return make_shared_buffer(DeviceBuffer<E>(maps_alloc_, count, what));
    };
    sol64_ = buf(double{}, std::size_t(n) * P, "the solution map");
    residual_ = buf(float{}, P, "the residual map");
    condition_ = buf(float{}, P, "the condition map");
    count_ = buf(int{}, P, "the count map");
    status_ = buf(std::uint8_t{}, P, "the status map");
  }
  void release_maps() {
    have_maps_ = false;
    sol64_.reset(), sol32_.reset(), residual_.reset(), condition_.reset(), count_.reset();
    status_.reset();
  }
  DeviceMaps device_maps(std::size_t P) const {
    DeviceMaps m;
    if (!sol64_) return m;
    m.solution = sol64_->get(), m.residual = residual_->get(), m.condition = condition_->get();
    m.count = count_->get(), m.status = status_->get(), m.pixels = P;
    return m;
  }

  /// Solves chunk b's pixels `qs` (chunk indices) on the host and writes them into the device
  /// maps on b's stream, after the chunk's scatter. Writes their codes into `status`, the
  /// chunk's. `hr` is the run's host scratch.
  void solve_host_into_maps(const Cube& hc, const Design& design, const Options& options,
                            const std::vector<std::size_t>& qs, Buffers& b, std::size_t pb,
                            const DeviceMaps& maps, std::vector<std::uint8_t>& status,
                            Result& hr) {
    const int N = int(design.n);
    // The chunk's pixels as a one-row result `hr`, the run's scratch grown once. Only the
    // listed pixels are written and read.
    hr.n = design.n, hr.height = 1, hr.width = b.np;
    if (hr.status.size() < b.np) {
      const double nan = std::numeric_limits<double>::quiet_NaN();
      hr.solution.assign(design.n * b.np, nan);
      hr.residual.assign(b.np, float(nan)), hr.condition.assign(b.np, float(nan));
      hr.count.assign(b.np, 0), hr.status.assign(b.np, kAllMissing);
    }
    solve_pixels_dense(hc, design, options, qs, hr, pb + b.p0);
    const std::size_t per = host_pixel_record(N), nh = qs.size();
    std::vector<double> rec(nh * per);
    for (std::size_t j = 0; j < nh; ++j) {
      const std::size_t q = qs[j];
      double* r = rec.data() + j * per;
      r[0] = double(b.p0 + q);
      for (int k = 0; k < N; ++k) r[1 + k] = hr.solution[std::size_t(k) * b.np + q];
      r[N + 1] = hr.residual[q], r[N + 2] = hr.condition[q];
      r[N + 3] = hr.count[q], r[N + 4] = hr.status[q];
      status[q] = hr.status[q];
    }
    if (b.records.size() < rec.size()) {
      b.records.reset();
      b.records = buffer<double>(rec.size(), "the host-solved pixels");
    }
    // From pageable memory: returns once `rec` is staged, so `rec` may go out of scope after.
    SIMSCOPE_CUDA_CHECK(cudaMemcpyAsync(b.records.get(), rec.data(), rec.size() * sizeof(double),
                                        cudaMemcpyHostToDevice, b.stream));
    scatter_host_kernel<<<grid_for(nh), 256, 0, b.stream>>>(maps, N, nh, b.records.get());
    SIMSCOPE_CUDA_CHECK(cudaGetLastError());
    SIMSCOPE_CUDA_CHECK(cudaStreamSynchronize(b.stream));  // before `rec` goes
  }

  /// After the last chunk: counts the infs of the solution (as float32) and of the residual,
  /// and rounds an fp32 solve's solution to float32, freeing the float64 map.
  void finish_maps(std::size_t P, int N, Precision precision, Result& out) {
    for (auto& b : buf_) SIMSCOPE_CUDA_CHECK(cudaStreamSynchronize(b.stream));
    cudaStream_t st = buf_[0].stream;
    if (!inf_counts_) inf_counts_ = buffer<unsigned long long>(2, "the maps' inf counts");
    SIMSCOPE_CUDA_CHECK(cudaMemsetAsync(inf_counts_.get(), 0, 2 * sizeof(unsigned long long), st));
    const std::size_t ns = std::size_t(N) * P;
    count_inf_kernel<<<grid_for(ns), 256, 0, st>>>(sol64_->get(), ns, residual_->get(), P,
                                                   inf_counts_.get());
    SIMSCOPE_CUDA_CHECK(cudaGetLastError());
    if (precision == Precision::Fp32) {
      sol32_ = make_shared_buffer(DeviceBuffer<float>(maps_alloc_, ns, "the solution map"));
      to_float_kernel<<<grid_for(ns), 256, 0, st>>>(sol64_->get(), ns, sol32_->get());
      SIMSCOPE_CUDA_CHECK(cudaGetLastError());
    }
    unsigned long long counts[2] = {0, 0};
    SIMSCOPE_CUDA_CHECK(
        cudaMemcpyAsync(counts, inf_counts_.get(), sizeof counts, cudaMemcpyDeviceToHost, st));
    SIMSCOPE_CUDA_CHECK(cudaStreamSynchronize(st));
    if (precision == Precision::Fp32) sol64_.reset();
    out.device_inf = {counts[0], counts[1]};
    have_maps_ = true;
  }

  /// cudaMemcpy2DAsync, or one copy per row where a pitch exceeds the device's limit
  /// (cudaDevAttrMaxPitch, 2^31 - 1 bytes). The solution's host pitch P * 8 exceeds it from
  /// P = 2.7e8 pixels on.
  void copy_2d(void* dst, std::size_t dpitch, const void* src, std::size_t spitch,
               std::size_t width, std::size_t height, cudaMemcpyKind kind, cudaStream_t stream) {
    if (dpitch <= max_pitch_ && spitch <= max_pitch_) {
      SIMSCOPE_CUDA_CHECK(cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, height, kind, stream));
      return;
    }
    for (std::size_t r = 0; r < height; ++r)
      SIMSCOPE_CUDA_CHECK(cudaMemcpyAsync(static_cast<char*>(dst) + r * dpitch,
                                          static_cast<const char*>(src) + r * spitch, width, kind,
                                          stream));
  }

  template <class T>
  void gram_gemm(Buffers& b, int NT, int np, int M) {
    const T one = 1, zero = 0;
    // G (NT x np, column-major) = op_T(K) (NT x M) * op_T(W) (M x np); K: M x NT column-major,
    // W: np x M column-major (leading dimension np).
    if constexpr (std::is_same_v<T, float>)
      LSQ_CUBLAS_CHECK(cublasSgemm(b.cublas, CUBLAS_OP_T, CUBLAS_OP_T, NT, np, M, &one,
                                   d_k_.as<const float>(), M, b.wt.as<const float>(), np, &zero,
                                   b.gram.as<float>(), NT));
    else
      LSQ_CUBLAS_CHECK(cublasDgemm(b.cublas, CUBLAS_OP_T, CUBLAS_OP_T, NT, np, M, &one,
                                   d_k_.as<const double>(), M, b.wt.as<const double>(), np, &zero,
                                   b.gram.as<double>(), NT));
  }

  /// Returns a buffer of `count` elements from this solver's allocator "lsq".
  template <class E>
  DeviceBuffer<E> buffer(std::size_t count, const char* what) {
    return DeviceBuffer<E>(alloc_, count, what);
  }

  void free_buffers(Buffers& b) {
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
  void ensure_buffers(Buffers& b, std::size_t pc, int M, int N, std::size_t csize) {
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

  /// Uploads A (row-major and column-major, float64), the Khatri-Rao matrix K in T and the
  /// shared operator at every solve. The copies use the legacy default stream, which the
  /// non-blocking chunk streams do not wait for, and a pageable cudaMemcpy may return before
  /// its DMA lands. Hence the device synchronisation at the end.
  template <class T>
  void upload_design(const Design& d, const SharedSvd& shared) {
    const int M = int(d.m), N = int(d.n), NT = N * (N + 1) / 2;
    free_design();
    std::vector<double> acm(std::size_t(M) * N);
    for (int i = 0; i < M; ++i)
      for (int k = 0; k < N; ++k) acm[std::size_t(k) * M + i] = d.a[std::size_t(i) * N + k];
    std::vector<T> K(std::size_t(M) * NT);
    for (int i = 0; i < M; ++i) {
      const double* ai = &d.a[std::size_t(i) * N];
      int t = 0;
      for (int r = 0; r < N; ++r)
        for (int c = 0; c <= r; ++c, ++t) K[std::size_t(t) * M + i] = T(ai[r] * ai[c]);
    }
    d_a_ = buffer<double>(d.a.size(), "the design matrix");
    d_acm_ = buffer<double>(acm.size(), "the design matrix (column-major)");
    d_op_ = buffer<double>(shared.op.size(), "the shared SVD's operator");
    d_k_ = buffer<unsigned char>(K.size() * sizeof(T), "the Khatri-Rao matrix");
    SIMSCOPE_CUDA_CHECK(
        cudaMemcpy(d_a_.get(), d.a.data(), d.a.size() * sizeof(double), cudaMemcpyHostToDevice));
    SIMSCOPE_CUDA_CHECK(
        cudaMemcpy(d_acm_.get(), acm.data(), acm.size() * sizeof(double), cudaMemcpyHostToDevice));
    SIMSCOPE_CUDA_CHECK(cudaMemcpy(d_op_.get(), shared.op.data(), shared.op.size() * sizeof(double),
                                   cudaMemcpyHostToDevice));
    SIMSCOPE_CUDA_CHECK(
        cudaMemcpy(d_k_.get(), K.data(), K.size() * sizeof(T), cudaMemcpyHostToDevice));
    SIMSCOPE_CUDA_CHECK(cudaDeviceSynchronize());
  }
  /// Uploads the downdate's B^T, C and G^-1 and the minimum norm's R, float64, where built.
  void upload_ops(const DowndateOps& ops) {
    auto up = [&](DeviceBuffer<double>& d, const std::vector<double>& v, const char* what) {
      d.reset();
      if (v.empty()) return;
      d = buffer<double>(v.size(), what);
      SIMSCOPE_CUDA_CHECK(
          cudaMemcpy(d.get(), v.data(), v.size() * sizeof(double), cudaMemcpyHostToDevice));
    };
    up(d_bt_, ops.downdate ? ops.bt : std::vector<double>{}, "the downdate's B");
    up(d_c_, ops.downdate ? ops.c : std::vector<double>{}, "the downdate's hat matrix");
    up(d_ginv_, ops.downdate ? ops.ginv : std::vector<double>{}, "the downdate's G^-1");
    up(d_r_, ops.minnorm ? ops.r : std::vector<double>{}, "the row Gram A A^T");
    SIMSCOPE_CUDA_CHECK(cudaDeviceSynchronize());
  }
  /// Bytes of the design's device copies: A twice, the shared operator, K, and the small
  /// paths' operators.
  std::size_t design_bytes() const {
    // Counted as the allocator counts them: an empty operator is allocated as one byte.
    std::size_t n = 0;
    for (const auto* d : {&d_bt_, &d_c_, &d_ginv_, &d_r_})
      if (*d) n += d->bytes();
    for (const auto* d : {&d_a_, &d_acm_, &d_op_})
      if (*d) n += std::max<std::size_t>(1, d->bytes());
    if (d_k_) n += std::max<std::size_t>(1, d_k_.bytes());
    return n;
  }
  void free_design() {
    d_a_.reset(), d_acm_.reset(), d_op_.reset(), d_k_.reset();
    d_bt_.reset(), d_c_.reset(), d_ginv_.reset(), d_r_.reset();
  }

  int device_ = 0;
  std::size_t max_pitch_ = 0;
  std::size_t smem_optin_ = 48 * 1024;  // shared memory a block may opt in to
  Buffers buf_[2];
  std::shared_ptr<DeviceAllocator> alloc_;  // "lsq": every device buffer of this solver
  DeviceBuffer<double> d_a_, d_acm_, d_op_;
  DeviceBuffer<double> d_bt_, d_c_, d_ginv_, d_r_;  // DowndateOps on the device (may be empty)
  DeviceBuffer<unsigned char> d_k_;                 // M x NT in T
  // Chunks of the cube `gap_free_generation_` (chunk size gap_free_pc_) found without gaps.
  std::vector<char> gap_free_;
  std::uint64_t gap_free_generation_ = 0;
  std::size_t gap_free_pc_ = 0, gap_free_begin_ = 0, gap_free_pixels_ = 0;
  // solve_device: the cube's Cube::borrowed is a device pointer while device_input_ is set.
  bool device_input_ = false;
  Cube staged_;                                 // its host copy, for the pixels solved on the host
  double staging_bytes_ = 0;                    // bytes of that copy (host_staging_bytes())
  DeviceBuffer<unsigned char> gathered_;        // a strided device cube in C order
  DeviceBuffer<unsigned long long> input_bad_;  // the first inf entry
  CudaEvent input_ready_;                       // recorded on the producer's stream
  // The maps kept on the device (keep_outputs_on_device) have their own allocator, so the chunk
  // size never counts maps that results still hold. Shared with those results.
  bool keep_ = false, have_maps_ = false;
  std::shared_ptr<DeviceAllocator> maps_alloc_;
  std::shared_ptr<DeviceBuffer<double>> sol64_;
  std::shared_ptr<DeviceBuffer<float>> sol32_, residual_, condition_;
  std::shared_ptr<DeviceBuffer<int>> count_;
  std::shared_ptr<DeviceBuffer<std::uint8_t>> status_;
  DeviceBuffer<unsigned long long> inf_counts_;
};

}  // namespace

std::unique_ptr<Solver> make_cuda_solver() { return std::make_unique<CudaSolver>(); }

}  // namespace simscope::lsq::detail
