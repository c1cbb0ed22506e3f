#pragma once
/// @file Run-time choice between the CPU and CUDA back ends.
#include <string>

namespace simscope {

enum class Backend { Cpu, Cuda };

const char* to_string(Backend b);  ///< "cpu" or "cuda"

/// What the CUDA runtime reports about this machine.
struct CudaStatus {
  bool compiled = false;   ///< this build contains the CUDA back end
  bool usable = false;     ///< a device could be opened
  std::string device;      ///< device name when usable, e.g. "NVIDIA H200"
  std::string reason;      ///< why not usable, e.g. "built without CUDA" or the runtime's message
  double total_bytes = 0;  ///< device memory
};

/// Probes the CUDA runtime once and caches the result. Thread-safe.
const CudaStatus& cuda_status();

/// The CPU back end as the front ends name it: "CPU (OpenMP, x86-64-v4 kernels)", with the
/// instruction-set level of its kernels (isa.hpp). Throws simscope::Error as isa_level() does.
std::string cpu_device_name();

/// The outcome of choosing a back end.
struct BackendChoice {
  Backend backend = Backend::Cpu;
  std::string notice;  ///< one line for the log, e.g. "CUDA unavailable (...): using the CPU back end"
};

/// `requested` is "auto", "cpu" or "cuda". "auto" picks CUDA when usable, else CPU with a notice.
/// Throws simscope::Error when "cuda" is forced but unusable; the message gives the reason.
/// Throws simscope::Error when `requested` is none of the three.
BackendChoice choose_backend(const std::string& requested);

/// Number of CUDA devices this process sees. 0 without CUDA or when none is usable.
int cuda_device_count();
/// Makes device `index` current on the calling thread and returns its name, e.g. "NVIDIA H200".
/// `index` is in [0, cuda_device_count()). Throws simscope::Error when there is no such device.
std::string cuda_select_device(int index);

/// Bytes of device memory in use on the current device. 0 without CUDA.
double cuda_memory_used_bytes();

}  // namespace simscope
