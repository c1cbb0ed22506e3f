#include "core/backend.hpp"

#include "core/cuda_build.hpp"
#include "core/error.hpp"
#include "core/isa.hpp"

namespace simscope {

const char* to_string(Backend b) { return b == Backend::Cuda ? "cuda" : "cpu"; }

#ifndef SIMSCOPE_HAVE_CUDA
const CudaStatus& cuda_status() {
  static const CudaStatus s{false, false, "",
                            "this build has no CUDA back end (" + cuda_build_note() + ")", 0};
  return s;
}
double cuda_memory_used_bytes() { return 0; }
int cuda_device_count() { return 0; }
std::string cuda_select_device(int index) {
  throw Error("CUDA device " + std::to_string(index) + ": this build has no CUDA back end");
}
#endif

std::string cpu_device_name() {
  return std::string("CPU (OpenMP, ") + isa_name(isa_level()) + " kernels)";
}

BackendChoice choose_backend(const std::string& requested) {
  if (requested == "cpu") return {Backend::Cpu, "using the CPU back end, as requested"};
  if (requested != "cuda" && requested != "auto")
    throw Error("--backend: expected auto, cpu or cuda, got '" + requested + "'");
  const CudaStatus& s = cuda_status();
  if (s.usable) return {Backend::Cuda, "using the CUDA back end on " + s.device};
  if (requested == "cuda")
    throw Error("--backend cuda: no usable CUDA device (" + s.reason + ")");
  // A CPU-only build says what it is; a CUDA build without a usable device, why not.
  if (!s.compiled) return {Backend::Cpu, s.reason + ": using the CPU back end"};
  return {Backend::Cpu, "CUDA unavailable (" + s.reason + "): using the CPU back end"};
}

}  // namespace simscope
