#pragma once
// The device buffers and pinned host staging of one chunk in flight (solver.cuh); the solver
// holds two sets, one per stream. Allocated and freed by chunk_buffers.cu. Include from .cu
// files only.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/cuda_handles.hpp"
#include "core/device_memory.hpp"
#include "lsq/cuda/cublas_handle.cuh"

namespace simscope::lsq::detail {

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
  CublasHandle cublas;           // one per stream
  HostStaging host;              // pinned copies of the chunk's outputs and flag
  DeviceBuffer<double> records;  // host-solved pixels for the device maps (kept maps only)
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

}  // namespace simscope::lsq::detail
