#pragma once
/// @file What this build has of the CUDA back end, as it was configured (no run-time probe).
#include <string>

namespace simscope {

/// Empty when this build has the CUDA back end; otherwise why not, as cmake/SimscopeCuda.cmake
/// found it: "built without CUDA: SIMSCOPE_CUDA=OFF", "built without CUDA: no CUDA compiler
/// (nvcc) was found", or "built without CUDA: " and what was wrong with the nvcc found.
std::string cuda_build_note();

}  // namespace simscope
