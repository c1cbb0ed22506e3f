// The CUDA lsq solver's interface (solver.cuh): construction, the solve of a host cube and of a
// cube in the caller's device memory (solve_device), the kept maps handed out, and the host copy
// of a device cube for the pixels solved on the host.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/cuda_check.hpp"
#include "lsq/cuda/input_kernels.cuh"
#include "lsq/cuda/solver.cuh"
#include "lsq/lsq_device_cube.hpp"
#include "lsq/lsq_internal.hpp"

namespace simscope::lsq::detail {
namespace {

using Clock = std::chrono::steady_clock;

}  // namespace

CudaSolver::CudaSolver() {
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

CudaSolver::~CudaSolver() {
  const CudaDeviceScope on(device_);  // may be destroyed on another thread
  for (auto& b : buf_) {
    if (b.stream) cudaStreamSynchronize(b.stream);
    free_buffers(b);
  }
  free_design();
  gathered_.reset(), input_bad_.reset(), inf_counts_.reset();
  release_maps();  // freed here unless a result still holds them
}

std::shared_ptr<const void> CudaSolver::device_output(const std::string& name) const {
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

void CudaSolver::solve(const Cube& cube, const Design& design, const IndexRange& range,
                       const Options& options, Result& out, Progress* progress) {
  validate(cube, design, options);
  refuse_unchecked_inf(cube);
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

void CudaSolver::solve_device(const DeviceView& v, const Design& design, const Options& options,
                              Result& out, Progress* progress) {
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

const Cube& CudaSolver::host_cube(const Cube& cube) {
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

std::unique_ptr<Solver> make_cuda_solver() { return std::make_unique<CudaSolver>(); }

}  // namespace simscope::lsq::detail
