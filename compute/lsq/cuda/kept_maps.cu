// The maps an lsq solve keeps on the device (Solver::keep_outputs_on_device; solver.cuh, step 5):
// whether they fit, their allocation, the host-solved pixels scattered into them, and the end of
// a solve: the inf counts and an fp32 solve's float32 solution.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "core/bytes.hpp"
#include "core/cuda_check.hpp"
#include "lsq/cuda/map_kernels.cuh"
#include "lsq/cuda/solver.cuh"
#include "lsq/lsq_internal.hpp"

namespace simscope::lsq::detail {

bool CudaSolver::keep_fits(std::size_t n, std::size_t P, Precision precision, Result& out) {
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

void CudaSolver::allocate_maps(int n, std::size_t P) {
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

void CudaSolver::release_maps() {
  have_maps_ = false;
  sol64_.reset(), sol32_.reset(), residual_.reset(), condition_.reset(), count_.reset();
  status_.reset();
}

DeviceMaps CudaSolver::device_maps(std::size_t P) const {
  DeviceMaps m;
  if (!sol64_) return m;
  m.solution = sol64_->get(), m.residual = residual_->get(), m.condition = condition_->get();
  m.count = count_->get(), m.status = status_->get(), m.pixels = P;
  return m;
}

void CudaSolver::solve_host_into_maps(const Cube& hc, const Design& design, const Options& options,
                                      const std::vector<std::size_t>& qs, Buffers& b,
                                      std::size_t pb, const DeviceMaps& maps,
                                      std::vector<std::uint8_t>& status, Result& hr) {
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

void CudaSolver::finish_maps(std::size_t P, int N, Precision precision, Result& out) {
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

}  // namespace simscope::lsq::detail
