// The CUDA field evaluator of field.hpp's Evaluator; kernels in field_cuda_kernels.cuh.
//
// Device memory: the sources once as float4, 16 bytes each, cached while Sources::generation
// and size are unchanged; the targets, 3 doubles each; fp64 accumulators, 4 doubles per target;
// the five float outputs. Outputs live in a buffer shared with the results that view it through
// device_output(), never written again while one holds it. No P x T intermediate exists.
// Outputs are copied into the Result's vectors unless keep_outputs_on_device(true) was asked;
// then only six counters come back: the coincidences and each output's non-finite count.
// Every buffer is a DeviceBuffer of the evaluator's DeviceAllocator "field"
// (core/device_memory.hpp). Its peak counts an output buffer until the last result holding it
// lets go.
// Sources are processed in chunks of about kChunkSeconds of work. Chunks alternate between two
// streams so one chunk's tail overlaps the next one's start; between chunks the host updates
// progress and checks for cancellation. In fp32 the kernel works relative to the evaluation's
// origin (detail::local_origin, the CPU's rule) and shifts each source as it fills shared
// memory. The cached upload is valid for any origin, so moving a plane never re-uploads.
// Inputs in the caller's device memory (evaluate_device) are converted by
// field_cuda_inputs.cuh's kernels straight into the same buffers, on stream 0 after an event
// of the producer's stream. No host staging, no host copy.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "core/cuda_check.hpp"
#include "core/cuda_handles.hpp"
#include "core/device_memory.hpp"
#include "field/device_inputs.hpp"
#include "field/field_cuda_inputs.cuh"
#include "field/field_cuda_kernels.cuh"
#include "field/field_internal.hpp"

namespace simscope::field {
namespace {

using cuda::kThreads;
using cuda::kTile;

constexpr double kChunkSeconds = 0.05;  // work per launch between progress/cancel checks
constexpr int kMinTilesPerBlock = 4;    // a block walks at least this many tiles of sources
constexpr int kWaves = 4;               // blocks per launch >= kWaves x resident blocks

/// Targets per thread from SIMSCOPE_FIELD_CUDA_RB: 2, 4 or 8, default 4. Read once. A tuning
/// knob for GPU runs; see tests/bench/NOTES.md.
int targets_per_thread() {
  static const int rb = [] {
    const char* e = std::getenv("SIMSCOPE_FIELD_CUDA_RB");
    const int v = e ? std::atoi(e) : 4;
    return v == 2 || v == 8 ? v : 4;
  }();
  return rb;
}

/// counters[1 + k] += the non-finite count of output k, out[k T .. (k+1) T), k = blockIdx.y.
__global__ void count_nonfinite_kernel(const float* __restrict__ out, int T,
                                       unsigned long long* __restrict__ counters) {
  const float* o = out + std::size_t(blockIdx.y) * std::size_t(T);
  unsigned long long n = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < T; i += gridDim.x * blockDim.x)
    n += isfinite(o[i]) ? 0 : 1;
  if (n) atomicAdd(&counters[1 + blockIdx.y], n);
}

template <typename R>
using KernelFn = void (*)(const float4*, int, int, int, const double*, const double*, const double*,
                          int, double, double, double, double, double*, unsigned long long*);

template <typename R>
KernelFn<R> kernel_for(int rb) {
  if (rb == 2) return cuda::field_kernel<R, 2>;
  if (rb == 8) return cuda::field_kernel<R, 8>;
  return cuda::field_kernel<R, 4>;
}

class CudaEvaluator final : public Evaluator {
 public:
  CudaEvaluator() {
    device_ = cuda_current_device();  // the device rule (core/cuda_check.hpp)
    alloc_ = DeviceAllocator::cuda("field", device_,
                                   "reduce sources.count or grid.size, or use --backend cpu");
    SIMSCOPE_CUDA_CHECK(cudaDeviceGetAttribute(&sms_, cudaDevAttrMultiProcessorCount, device_));
    for (auto& s : streams_) s = CudaStream::create();
    ready_ = CudaEvent::create();
  }
  ~CudaEvaluator() override {
    const CudaDeviceScope on(device_);  // may be destroyed on another thread
    src_.reset(), tgt_.reset(), acc_.reset(), skipped_.reset(), inputs_.reset();
    out_.reset();  // freed here unless a result still views it
  }

  Backend backend() const override { return Backend::Cuda; }
  bool keep_outputs_on_device(bool keep) override {
    keep_on_device_ = keep;
    return true;
  }
  int device() const override { return device_; }
  double peak_device_bytes() const override { return double(alloc_->peak_bytes()); }

  std::shared_ptr<const float> device_output(const std::string& name) const override {
    if (!out_ || !have_result_) return nullptr;
    const auto& names = output_names();
    for (std::size_t k = 0; k < names.size(); ++k)  // aliasing: shares the ownership of out_
      if (names[k] == name) return std::shared_ptr<const float>(out_, out_->get() + k * result_T_);
    return nullptr;
  }

  using Evaluator::evaluate;
  void evaluate(const Sources& s, const Targets& t, const IndexRange& range, const Options& o,
                Result& out, Progress* progress) override {
    const IndexRange r = detail::checked_range(o, t, range);
    progress_check(progress);
    const auto t0 = std::chrono::steady_clock::now();
    const std::size_t T = r.end - r.begin, P = s.size();
    if (T > std::size_t(INT32_MAX) / 8 || P > std::size_t(INT32_MAX) / 2)
      throw Error("field (CUDA): too many targets or sources for one evaluation");
    cuda_use_device(device_);
    have_result_ = false;
    try {
      run(s, t, r, o, out, progress);
    } catch (...) {
      // Cancelled or failed: let queued copies and kernels finish, so none still reads the
      // caller's targets or adds into acc_ while the next evaluate() clears it.
      for (auto& st : streams_) cudaStreamSynchronize(st);
      cudaGetLastError();
      throw;
    }
    result_T_ = T;
    have_result_ = true;
    out.target_begin = r.begin;
    progress_set(progress, 1);
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }

  void evaluate_device(const Sources& hs, const Targets& ht, const DeviceView* ds,
                       const DeviceView* dt, const Options& o, Result& out,
                       Progress* progress) override {
    detail::validate(o);
    if (ds) check_view(*ds, true);
    if (dt) check_view(*dt, false);
    const std::size_t P = ds ? ds->shape[0] : hs.size(), T = dt ? dt->shape[0] : ht.size();
    progress_check(progress);
    const auto t0 = std::chrono::steady_clock::now();
    if (T > std::size_t(INT32_MAX) / 8 || P > std::size_t(INT32_MAX) / 2)
      throw Error("field (CUDA): too many targets or sources for one evaluation");
    cuda_use_device(device_);
    have_result_ = false;
    try {
      detail::Origin origin;
      if (ds)
        convert_sources(*ds);
      else
        upload_sources(hs);
      if (dt) {
        prepare_targets(T);
        origin = convert_targets(*dt, o.precision);
      } else {
        upload_targets(ht, IndexRange{0, T});
        origin = detail::local_origin(ht, o.precision);
      }
      compute(P, T, o, origin, out, progress);
    } catch (...) {
      for (auto& st : streams_) cudaStreamSynchronize(st);
      cudaGetLastError();
      throw;
    }
    result_T_ = T;
    have_result_ = true;
    out.target_begin = 0;
    progress_set(progress, 1);
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }

 private:
  /// Checks the view with check_sources_view or check_targets_view (device_inputs.hpp), then
  /// its device.
  void check_view(const DeviceView& v, bool sources) const {
    if (sources)
      check_sources_view(v);
    else
      check_targets_view(v);
    if (v.device != device_)
      throw InputError(v.name + ": a CUDA array on device " + std::to_string(v.device) +
                       ", but the CUDA back end runs on device " + std::to_string(device_) +
                       "; move it there (tensor.to('cuda:" + std::to_string(device_) + "'))");
  }

  /// Makes stream 0 wait for the queued work of the view's producer stream (DeviceView::stream).
  void wait_for_producer(const DeviceView& v) {
    if (!input_ready_) input_ready_ = CudaEvent::create(cudaEventDisableTiming);
    cudaStream_t producer = reinterpret_cast<cudaStream_t>(v.stream);
    SIMSCOPE_CUDA_CHECK(cudaEventRecord(input_ready_, producer));
    SIMSCOPE_CUDA_CHECK(cudaStreamWaitEvent(streams_[0], input_ready_, 0));
  }

  /// inputs_: [0] the first bad source element, [1] the first bad target element, [2..8) the
  /// targets' bounds as 6 doubles: lo x, y, z, hi x, y, z.
  void ensure_inputs() {
    if (!inputs_) inputs_ = buffer<unsigned long long>(8, "the input checks");
  }

  /// Throws the error for the first bad element `bad` = row * 4 + column of `v`, with the host
  /// reader's message (throw_bad_row). Copies that one row to the host, on the error path only.
  [[noreturn]] void throw_bad(const DeviceView& v, unsigned long long bad, bool sources) {
    const std::size_t row = std::size_t(bad / 4), cols = v.shape[1], item = v.itemsize();
    unsigned char host[32] = {};
    const auto* base = static_cast<const unsigned char*>(v.data);
    for (std::size_t c = 0; c < cols; ++c)
      SIMSCOPE_CUDA_CHECK(
          cudaMemcpy(host + c * item,
                     base + std::ptrdiff_t(row) * v.strides[0] + std::ptrdiff_t(c) * v.strides[1],
                     item, cudaMemcpyDeviceToHost));
    throw_bad_row(v, row, host, sources);
  }

  /// Converts and checks the sources of a device view into src_ as float4.
  void convert_sources(const DeviceView& v) {
    const std::size_t P = v.shape[0];
    src_generation_ = 0;  // the buffer no longer holds a host Sources
    if (P > src_.size() || !src_) {
      src_.reset();
      src_ = buffer<float4>(std::max<std::size_t>(1, P), "the sources");
    }
    ensure_inputs();
    wait_for_producer(v);
    cudaStream_t st = streams_[0];
    SIMSCOPE_CUDA_CHECK(cudaMemsetAsync(inputs_.get(), 0xFF, sizeof(unsigned long long), st));
    const unsigned blocks = unsigned(std::min<std::size_t>((P + 255) / 256, 8 * std::size_t(sms_)));
    const auto* base = static_cast<const unsigned char*>(v.data);
    if (v.dtype == io::DType::Float32)
      cuda::sources_from_view_kernel<float>
          <<<blocks, 256, 0, st>>>(base, (long long)P, int(v.shape[1]), v.strides[0], v.strides[1],
                                   src_.get(), inputs_.get());
    else
      cuda::sources_from_view_kernel<double>
          <<<blocks, 256, 0, st>>>(base, (long long)P, int(v.shape[1]), v.strides[0], v.strides[1],
                                   src_.get(), inputs_.get());
    SIMSCOPE_CUDA_CHECK(cudaGetLastError());
    unsigned long long bad = 0;
    SIMSCOPE_CUDA_CHECK(
        cudaMemcpyAsync(&bad, inputs_.get(), sizeof bad, cudaMemcpyDeviceToHost, st));
    SIMSCOPE_CUDA_CHECK(cudaStreamSynchronize(st));
    if (bad != cuda::kNoBad) throw_bad(v, bad, true);
    src_count_ = P;
  }

  /// Converts and checks the targets of a device view into tgt_ (buffers from prepare_targets).
  /// Returns the fp32 local origin of their bounding box by local_origin's rule.
  detail::Origin convert_targets(const DeviceView& v, Precision precision) {
    const std::size_t T = v.shape[0];
    ensure_inputs();
    wait_for_producer(v);
    cudaStream_t st = streams_[0];
    SIMSCOPE_CUDA_CHECK(cudaMemsetAsync(inputs_.get() + 1, 0xFF, sizeof(unsigned long long), st));
    const unsigned blocks = unsigned(std::min<std::size_t>((T + 255) / 256, 8 * std::size_t(sms_)));
    const auto* base = static_cast<const unsigned char*>(v.data);
    if (v.dtype == io::DType::Float32)
      cuda::targets_from_view_kernel<float><<<blocks, 256, 0, st>>>(
          base, (long long)T, v.strides[0], v.strides[1], tgt_.get(), inputs_.get() + 1);
    else
      cuda::targets_from_view_kernel<double><<<blocks, 256, 0, st>>>(
          base, (long long)T, v.strides[0], v.strides[1], tgt_.get(), inputs_.get() + 1);
    SIMSCOPE_CUDA_CHECK(cudaGetLastError());
    auto* bounds = reinterpret_cast<double*>(inputs_.get() + 2);
    cuda::target_bounds_kernel<<<1, cuda::kBoundsThreads, 0, st>>>(tgt_.get(), (long long)T,
                                                                   bounds);
    SIMSCOPE_CUDA_CHECK(cudaGetLastError());
    unsigned long long host[8] = {};
    SIMSCOPE_CUDA_CHECK(
        cudaMemcpyAsync(host, inputs_.get(), sizeof host, cudaMemcpyDeviceToHost, st));
    SIMSCOPE_CUDA_CHECK(cudaStreamSynchronize(st));
    if (host[1] != cuda::kNoBad) throw_bad(v, host[1], false);
    double lo[3], hi[3];
    std::memcpy(lo, host + 2, sizeof lo);
    std::memcpy(hi, host + 5, sizeof hi);
    return detail::local_origin(lo, hi, T, precision);
  }

  /// The body of evaluate(): uploads, chunks, finalize, copies back into `out`. Uploads and
  /// evaluates only the targets of range `r`; the fp32 origin is the whole set's.
  void run(const Sources& s, const Targets& t, const IndexRange& r, const Options& o, Result& out,
           Progress* progress) {
    const std::size_t T = r.end - r.begin, P = s.size();
    upload_sources(s);
    upload_targets(t, r);
    compute(P, T, o, detail::local_origin(t, o.precision), out, progress);
  }

  /// Evaluates P sources in src_ at T targets in tgt_, both already on stream 0: chunks,
  /// finalize, then outputs copied into `out` or left on the device.
  void compute(std::size_t P, std::size_t T, const Options& o, const detail::Origin& origin,
               Result& out, Progress* progress) {
    progress_set(progress, 0);

    cudaStream_t s0 = streams_[0], s1 = streams_[1];
    SIMSCOPE_CUDA_CHECK(cudaMemsetAsync(acc_.get(), 0, 4 * T * sizeof(double), s0));
    SIMSCOPE_CUDA_CHECK(
        cudaMemsetAsync(skipped_.get(), 0, kCounters * sizeof(unsigned long long), s0));
    SIMSCOPE_CUDA_CHECK(cudaEventRecord(ready_, s0));
    SIMSCOPE_CUDA_CHECK(cudaStreamWaitEvent(s1, ready_, 0));
    if (T > 0 && P > 0) {
      if (o.precision == Precision::Fp32)
        run_chunks<float>(P, T, o, origin, progress);
      else
        run_chunks<double>(P, T, o, detail::Origin{}, progress);
    }
    SIMSCOPE_CUDA_CHECK(cudaEventRecord(ready_, s1));
    SIMSCOPE_CUDA_CHECK(cudaStreamWaitEvent(s0, ready_, 0));
    if (T > 0) {
      cuda::finalize_kernel<<<unsigned((T + 255) / 256), 256, 0, s0>>>(acc_.get(), int(T), o.k,
                                                                       out_->get());
      SIMSCOPE_CUDA_CHECK(cudaGetLastError());
    }
    if (keep_on_device_) {
      // The outputs stay here (device_output()); only their non-finite counts come back.
      detail::resize_outputs(out, 0);
      for (auto* v : {&out.magnitude, &out.ex, &out.ey, &out.ez, &out.potential})
        v->shrink_to_fit();
      if (T > 0) {
        const unsigned blocks = unsigned(std::min<std::size_t>((T + 255) / 256, 4 * sms_));
        count_nonfinite_kernel<<<dim3(blocks, 5), 256, 0, s0>>>(out_->get(), int(T),
                                                                skipped_.get());
        SIMSCOPE_CUDA_CHECK(cudaGetLastError());
      }
    } else {
      detail::resize_outputs(out, T);
      float* host[5] = {out.magnitude.data(), out.ex.data(), out.ey.data(), out.ez.data(),
                        out.potential.data()};
      for (int k = 0; k < 5 && T > 0; ++k)
        SIMSCOPE_CUDA_CHECK(cudaMemcpyAsync(host[k], out_->get() + k * T, T * sizeof(float),
                                            cudaMemcpyDeviceToHost, s0));
    }
    // Into a member, not a local: when run() throws, evaluate() waits for the streams only
    // after run()'s locals are gone.
    SIMSCOPE_CUDA_CHECK(cudaMemcpyAsync(counters_host_, skipped_.get(), sizeof counters_host_,
                                        cudaMemcpyDeviceToHost, s0));
    SIMSCOPE_CUDA_CHECK(cudaStreamSynchronize(s0));
    out.skipped_coincidences = counters_host_[0];
    if (keep_on_device_) {
      out.on_host = false;
      out.device_count = T;
      for (int k = 0; k < 5; ++k) out.device_nonfinite[k] = counters_host_[1 + k];
    }
  }

  /// Returns a buffer of `count` elements from this evaluator's allocator "field".
  template <typename T>
  DeviceBuffer<T> buffer(std::size_t count, const char* what) {
    return DeviceBuffer<T>(alloc_, count, what);
  }

  void upload_sources(const Sources& s) {
    const std::size_t P = s.size();
    if (s.generation != 0 && s.generation == src_generation_ && P == src_count_ && src_) return;
    src_generation_ = 0;  // invalid until the upload completes
    if (P > src_.size() || !src_) {
      src_.reset();  // the old buffer goes before the new one comes
      src_ = buffer<float4>(std::max<std::size_t>(1, P), "the sources");
    }
    // Pack x, y, z, q into float4 in slices, so the host needs no second copy of all sources.
    constexpr std::size_t kSlice = 1 << 20;
    staging_.resize(std::min(P, kSlice));
    for (std::size_t j0 = 0; j0 < P; j0 += kSlice) {
      const std::size_t n = std::min(kSlice, P - j0);
      for (std::size_t j = 0; j < n; ++j)
        staging_[j] = make_float4(s.x[j0 + j], s.y[j0 + j], s.z[j0 + j], s.q[j0 + j]);
      // From pageable memory cudaMemcpyAsync "might be synchronous" (CUDA runtime API, API
      // sync behavior): it need not have read staging_ on return, so wait before refilling.
      SIMSCOPE_CUDA_CHECK(cudaMemcpyAsync(src_.get() + j0, staging_.data(), n * sizeof(float4),
                                          cudaMemcpyHostToDevice, streams_[0]));
      SIMSCOPE_CUDA_CHECK(cudaStreamSynchronize(streams_[0]));
    }
    src_count_ = P;
    src_generation_ = s.generation;
  }

  void upload_targets(const Targets& t, const IndexRange& r) {
    const std::size_t T = r.end - r.begin;
    prepare_targets(T);
    if (T == 0) return;
    const std::vector<double>* v[3] = {&t.x, &t.y, &t.z};
    for (int c = 0; c < 3; ++c)
      SIMSCOPE_CUDA_CHECK(cudaMemcpyAsync(tgt_.get() + c * T, v[c]->data() + r.begin,
                                          T * sizeof(double), cudaMemcpyHostToDevice, streams_[0]));
  }

  /// Allocates the target, accumulator, output and counter buffers for T targets.
  void prepare_targets(std::size_t T) {
    if (T > target_capacity_ || !tgt_) {
      const std::size_t cap = std::max<std::size_t>(T, 1);
      have_result_ = false;
      target_capacity_ = 0;  // until all three buffers are allocated (allocation may throw)
      out_.reset();          // free the old buffers first (a result viewing out_ keeps it)
      acc_.reset();
      tgt_.reset();
      tgt_ = buffer<double>(3 * cap, "the targets");
      acc_ = buffer<double>(4 * cap, "the fp64 accumulators");
      target_capacity_ = cap;
    }
    // Outputs get a new buffer when a result still views the old one through device_output(),
    // so a published result's device memory is never freed or overwritten under it.
    // use_count() == 1 cannot race: only this thread makes new holders. The buffer frees
    // itself through the allocator, with its device current, on whatever thread the last
    // holder lets go (cuda_device_memory).
    if (!out_ || out_.use_count() > 1 || out_->size() < 5 * target_capacity_) {
      have_result_ = false;
      out_.reset();  // this evaluator's hold only: results viewing it keep it
      out_ = make_shared_buffer(buffer<float>(5 * target_capacity_, "the outputs"));
    }
    if (!skipped_) skipped_ = buffer<unsigned long long>(kCounters, "the counters");
  }

  /// The event recorded after chunk k; k = 0, 1, one per stream.
  cudaEvent_t chunk_event(std::size_t k) {
    while (chunk_end_.size() <= k) chunk_end_.push_back(CudaEvent::create());
    return chunk_end_[k];
  }

  /// Launches the chunks, at most two in flight. Between chunks: progress, cancellation, and
  /// the chunk size adapted to the measured speed.
  template <typename R>
  void run_chunks(std::size_t P, std::size_t T, const Options& o, const detail::Origin& origin,
                  Progress* progress) {
    const int rb = targets_per_thread();
    const KernelFn<R> kernel = kernel_for<R>(rb);
    int resident = 1;
    SIMSCOPE_CUDA_CHECK(
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, kernel, kThreads, 0));
    const std::size_t gx = (T + std::size_t(kThreads * rb) - 1) / std::size_t(kThreads * rb);
    const std::size_t want_blocks = std::size_t(kWaves) * std::max(1, resident) * sms_;
    // First guess of the speed in pairs/s per SM: 1.6e10 fp32, 2e9 fp64. Then measured.
    double rate = (sizeof(R) == 4 ? 1.6e10 : 2e9) * sms_;
    const double eps2 = o.eps * o.eps;
    struct InFlight {
      std::size_t index, j_end;
    };
    std::vector<InFlight> flight;
    std::size_t j = 0, launched = 0;
    // Speed = pairs done / time since ready_, recorded on stream 0 before the first chunk.
    // Chunks run back to back, so this is the sustained rate.
    auto wait_oldest = [&] {
      const InFlight f = flight.front();
      flight.erase(flight.begin());
      const cudaEvent_t end = chunk_event(f.index % 2);
      SIMSCOPE_CUDA_CHECK(cudaEventSynchronize(end));
      float ms = 0;
      SIMSCOPE_CUDA_CHECK(cudaEventElapsedTime(&ms, ready_, end));
      if (ms > 1.0f) rate = std::clamp(double(f.j_end) * double(T) / (ms * 1e-3), 1e8, 1e14);
      progress_set(progress, double(f.j_end) / double(P));
    };
    while (j < P) {
      const double want_pairs = rate * kChunkSeconds;
      std::size_t n = std::size_t(std::max(1.0, want_pairs / double(T)));
      n = std::min(P - j, std::max<std::size_t>(n, kTile));
      // Split the chunk's sources over blocks (grid.y) until the launch fills the GPU.
      const std::size_t max_split = std::max<std::size_t>(1, n / (kTile * kMinTilesPerBlock));
      std::size_t split =
          std::min<std::size_t>({max_split, 65535, std::max<std::size_t>(1, want_blocks / gx)});
      std::size_t per_block = (n + split - 1) / split;
      per_block = (per_block + kTile - 1) / kTile * kTile;
      split = (n + per_block - 1) / per_block;
      cudaStream_t st = streams_[launched % 2];
      kernel<<<dim3(unsigned(gx), unsigned(split)), kThreads, 0, st>>>(
          src_.get(), int(j), int(j + n), int(per_block), tgt_.get(), tgt_.get() + T,
          tgt_.get() + 2 * T, int(T), origin.x, origin.y, origin.z, eps2, acc_.get(),
          skipped_.get());
      SIMSCOPE_CUDA_CHECK(cudaGetLastError());
      SIMSCOPE_CUDA_CHECK(cudaEventRecord(chunk_event(launched % 2), st));
      flight.push_back({launched, j + n});
      ++launched;
      j += n;
      if (flight.size() == 2) wait_oldest();
      if (progress && progress->cancel.load(std::memory_order_relaxed))
        throw Cancelled();  // evaluate() waits for the chunks in flight
    }
    while (!flight.empty()) wait_oldest();
  }

  int device_ = 0, sms_ = 1;
  CudaStream streams_[2];
  CudaEvent ready_;
  std::vector<CudaEvent> chunk_end_;
  std::shared_ptr<DeviceAllocator> alloc_;  // "field": every buffer below, held or shared
  DeviceBuffer<float4> src_;
  DeviceBuffer<double> tgt_, acc_;
  std::shared_ptr<DeviceBuffer<float>> out_;  // 5 x result_T_ floats; shared with the results
  // [0]: coincidences skipped; [1 + k]: output k's non-finite count, with keep_on_device_ only.
  static constexpr int kCounters = 6;
  DeviceBuffer<unsigned long long> skipped_;
  DeviceBuffer<unsigned long long> inputs_;  // device inputs' checks and bounds (ensure_inputs)
  CudaEvent input_ready_;                         // recorded on a device input's producer stream
  unsigned long long counters_host_[kCounters] = {};
  bool keep_on_device_ = false;
  std::size_t src_count_ = 0, target_capacity_ = 0, result_T_ = 0;
  std::uint64_t src_generation_ = 0;
  bool have_result_ = false;
  std::vector<float4> staging_;
};

}  // namespace

namespace detail {
std::unique_ptr<Evaluator> make_cuda_evaluator() { return std::make_unique<CudaEvaluator>(); }
}  // namespace detail

}  // namespace simscope::field
