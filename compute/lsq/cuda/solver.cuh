#pragma once
// The CUDA lsq solver of lsq.hpp's Solver. Same algorithm and outputs as the CPU back end
// (lsq/cpu/solver.cpp), in chunks of pixels that stream through the device:
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
//     size (small_kernel.cu: one warp per pixel, K = I - C_SS or R_OO in shared memory).
//     The Gram products of step 3 run only where a pixel needs them.
//  3. cuBLAS: G = K^T W^T, the Khatri-Rao form, with K[i][t] = A_ir A_ic for the packed
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
//     full-size device maps (map_kernels.cuh); only the chunk's statuses and kinds come back.
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

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/cuda_handles.hpp"
#include "core/device_memory.hpp"
#include "lsq/cuda/chunk_buffers.cuh"
#include "lsq/lsq_downdate.hpp"
#include "lsq/lsq_internal.hpp"

namespace simscope::lsq::detail {

struct DeviceMaps;  // map_kernels.cuh

/// The CUDA back end of lsq.hpp's Solver (make_cuda_solver). Its member functions are defined
/// by concept: solver.cu (the interface, device inputs), chunks.cu (run: the chunk loop),
/// chunk_buffers.cu, design.cu (the design and its products on the device) and kept_maps.cu.
class CudaSolver final : public Solver {
 public:
  CudaSolver();
  ~CudaSolver() override;

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
  std::shared_ptr<const void> device_output(const std::string& name) const override;

  using Solver::solve;
  void solve(const Cube& cube, const Design& design, const IndexRange& range,
             const Options& options, Result& out, Progress* progress) override;

  double host_staging_bytes() const override { return staging_bytes_; }

  void solve_device(const DeviceView& v, const Design& design, const Options& options, Result& out,
                    Progress* progress) override;

 private:
  /// The cube as host memory for the pixels solved on the host: `cube` itself, or for a device
  /// cube (solve_device) its single host copy, made on first use and counted in staging_bytes_.
  const Cube& host_cube(const Cube& cube);

  /// Solves the result's pixels: P = out.pixels() from cube pixel pb = out.row_begin * W. A row
  /// range is one contiguous slab of P pixels per observation, at stride cube.pixels().
  template <class T>
  void run(const Cube& cube, const Design& design, const Options& options, const SharedSvd& shared,
           const DowndateOps& ops, Result& out, Progress* progress);

  /// Whether the maps of an n-unknown, P-pixel solve fit in half the device memory this solver
  /// may use (free plus its chunk buffers), including the fp32 solution's float copy. If not,
  /// sets a one-line out.device_note, and the solve copies the maps to the host.
  bool keep_fits(std::size_t n, std::size_t P, Precision precision, Result& out);
  /// New device maps for a solve of n unknowns over P pixels. The old ones stay with the
  /// results that hold them.
  void allocate_maps(int n, std::size_t P);
  void release_maps();
  DeviceMaps device_maps(std::size_t P) const;
  /// Solves chunk b's pixels `qs` (chunk indices) on the host and writes them into the device
  /// maps on b's stream, after the chunk's scatter. Writes their codes into `status`, the
  /// chunk's. `hr` is the run's host scratch.
  void solve_host_into_maps(const Cube& hc, const Design& design, const Options& options,
                            const std::vector<std::size_t>& qs, Buffers& b, std::size_t pb,
                            const DeviceMaps& maps, std::vector<std::uint8_t>& status, Result& hr);
  /// After the last chunk: counts the infs of the solution (as float32) and of the residual,
  /// and rounds an fp32 solve's solution to float32, freeing the float64 map.
  void finish_maps(std::size_t P, int N, Precision precision, Result& out);

  /// cudaMemcpy2DAsync, or one copy per row where a pitch exceeds the device's limit
  /// (cudaDevAttrMaxPitch, 2^31 - 1 bytes). The solution's host pitch P * 8 exceeds it from
  /// P = 2.7e8 pixels on.
  void copy_2d(void* dst, std::size_t dpitch, const void* src, std::size_t spitch,
               std::size_t width, std::size_t height, cudaMemcpyKind kind, cudaStream_t stream);
  /// G = K^T W^T of chunk b (design.cu).
  template <class T>
  void gram_gemm(Buffers& b, int NT, int np, int M);

  /// Returns a buffer of `count` elements from this solver's allocator "lsq".
  template <class E>
  DeviceBuffer<E> buffer(std::size_t count, const char* what) {
    return DeviceBuffer<E>(alloc_, count, what);
  }

  void free_buffers(Buffers& b);
  template <class T>
  void ensure_buffers(Buffers& b, std::size_t pc, int M, int N, std::size_t csize);

  /// Uploads A (row-major and column-major, float64), the Khatri-Rao matrix K in T and the
  /// shared operator at every solve. The copies use the legacy default stream, which the
  /// non-blocking chunk streams do not wait for, and a pageable cudaMemcpy may return before
  /// its DMA lands. Hence the device synchronisation at the end.
  template <class T>
  void upload_design(const Design& d, const SharedSvd& shared);
  /// Uploads the downdate's B^T, C and G^-1 and the minimum norm's R, float64, where built.
  void upload_ops(const DowndateOps& ops);
  /// Bytes of the design's device copies: A twice, the shared operator, K, and the small
  /// paths' operators.
  std::size_t design_bytes() const;
  void free_design();

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

}  // namespace simscope::lsq::detail
