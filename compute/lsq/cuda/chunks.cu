// The chunk loop of the CUDA lsq solver (solver.cuh, steps 1-5): run<T> streams the result's
// pixels through the device in chunks on two alternating streams, and takes each finished
// chunk's outputs into the Result or the kept maps, solving its host pixels there.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "core/bytes.hpp"
#include "core/cuda_check.hpp"
#include "lsq/cuda/classify_kernel.cuh"
#include "lsq/cuda/cublas_handle.cuh"
#include "lsq/cuda/map_kernels.cuh"
#include "lsq/cuda/prep_kernel.cuh"
#include "lsq/cuda/small_kernel.cuh"
#include "lsq/cuda/solve_kernel.cuh"
#include "lsq/cuda/solver.cuh"
#include "lsq/cuda/warp.cuh"
#include "lsq/lsq_internal.hpp"

namespace simscope::lsq::detail {

template <class T>
void CudaSolver::run(const Cube& cube, const Design& design, const Options& options,
                     const SharedSvd& shared, const DowndateOps& ops, Result& out,
                     Progress* progress) {
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

template void CudaSolver::run<float>(const Cube&, const Design&, const Options&, const SharedSvd&,
                                     const DowndateOps&, Result&, Progress*);
template void CudaSolver::run<double>(const Cube&, const Design&, const Options&, const SharedSvd&,
                                      const DowndateOps&, Result&, Progress*);

}  // namespace simscope::lsq::detail
