# CUDA detection for simscope. Sets SIMSCOPE_HAVE_CUDA (also as an INTERNAL cache entry, so that
# a configured tree tells which back ends it builds) and, for a CPU-only build,
# SIMSCOPE_NO_CUDA_REASON: why, as the program says it at start (compute/core/backend.cpp):
# "SIMSCOPE_CUDA=OFF", "no CUDA compiler (nvcc) was found" or what was wrong with the nvcc found.
#   SIMSCOPE_CUDA=AUTO  use CUDA when a usable nvcc is found; otherwise a CPU-only build with a
#                       one-line notice saying why (not found, or the nvcc found and its version)
#   SIMSCOPE_CUDA=ON    require it (the same checks, failing the configure);  OFF  CPU-only build.
# nvcc is looked for in CMAKE_CUDA_COMPILER, then $CUDACXX, then PATH, then
# SIMSCOPE_CUDA_FALLBACK_NVCC (/usr/local/cuda/bin/nvcc; tests/setup/test_cuda_fallback.sh sets
# another to configure as on a machine without CUDA).
# Usable means: release >= SIMSCOPE_CUDA_MIN_VERSION (12.0, the first with -std=c++20, which the
# kernels are compiled with) and it compiles a small C++20 .cu file with this project's host
# compiler (this catches a host compiler newer than the nvcc supports, e.g. GCC 13 with CUDA 12.0).
# Architectures: unless CMAKE_CUDA_ARCHITECTURES is given, the compute capability of the GPU
# that nvidia-smi reports at configure time; without a GPU, sm_90 machine code (H100/H200)
# plus compute_75 PTX, which the driver JIT-compiles for any other GPU CUDA 13 supports.
set(SIMSCOPE_CUDA_MIN_VERSION 12.0)
if(NOT DEFINED SIMSCOPE_CUDA_FALLBACK_NVCC)
  set(SIMSCOPE_CUDA_FALLBACK_NVCC /usr/local/cuda/bin/nvcc)
endif()
set(SIMSCOPE_HAVE_CUDA OFF)
set(SIMSCOPE_NO_CUDA_REASON "SIMSCOPE_CUDA=OFF")

# _simscope_cuda_unusable(REASON): CPU-only with a notice (AUTO), or a configure error (ON).
macro(_simscope_cuda_unusable reason)
  if(SIMSCOPE_CUDA STREQUAL "ON")
    message(FATAL_ERROR "SIMSCOPE_CUDA=ON but ${reason}")
  else()
    message(NOTICE "simscope: ${reason} - building the CPU back end only")
    set(SIMSCOPE_NO_CUDA_REASON "${reason}")
  endif()
endmacro()

# _simscope_nvcc_usable(NVCC OUT_OK OUT_REASON): the version and C++20 checks above. The result is
# cached per (nvcc, its version text, host compiler), so re-configures do not run nvcc again.
function(_simscope_nvcc_usable nvcc out_ok out_reason)
  execute_process(COMMAND "${nvcc}" --version OUTPUT_VARIABLE _out ERROR_VARIABLE _err
                  RESULT_VARIABLE _rc TIMEOUT 60)
  if(NOT _rc EQUAL 0 OR NOT _out MATCHES "release ([0-9]+\\.[0-9]+)")
    set(${out_ok} OFF PARENT_SCOPE)
    set(${out_reason} "${nvcc} --version failed or printed no release number" PARENT_SCOPE)
    return()
  endif()
  set(_ver "${CMAKE_MATCH_1}")
  string(REGEX MATCH "V[0-9.]+" _full "${_out}")
  if(_full)
    set(_what "nvcc release ${_ver}, ${_full} (${nvcc})")
  else()
    set(_what "nvcc release ${_ver} (${nvcc})")
  endif()
  if(_ver VERSION_LESS SIMSCOPE_CUDA_MIN_VERSION)
    set(${out_ok} OFF PARENT_SCOPE)
    set(${out_reason} "${_what} is older than ${SIMSCOPE_CUDA_MIN_VERSION}, the first with C++20"
        PARENT_SCOPE)
    return()
  endif()
  string(MD5 _key "${nvcc};${_out};${CMAKE_CXX_COMPILER};${CMAKE_CXX_COMPILER_VERSION}")
  if(DEFINED _SIMSCOPE_CUDA_PROBE_${_key})
    set(_ok ${_SIMSCOPE_CUDA_PROBE_${_key}})
    set(_log "")
  else()
    set(_dir ${CMAKE_BINARY_DIR}/CMakeFiles/simscope_cuda_probe)
    file(MAKE_DIRECTORY ${_dir})
    file(WRITE ${_dir}/probe.cu [=[
#include <concepts>
#include <span>
template <std::floating_point T> __global__ void scale(T* x, T a, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}
struct Launch { int blocks = 1, threads = 32; };
void run(std::span<float> x) {
  constexpr Launch l{.blocks = 1, .threads = 64};
  scale<<<l.blocks, l.threads>>>(x.data(), 2.0f, static_cast<int>(x.size()));
}
]=])
    execute_process(COMMAND "${nvcc}" -std=c++20 -ccbin "${CMAKE_CXX_COMPILER}" -c probe.cu
                            -o probe.o
                    WORKING_DIRECTORY ${_dir} RESULT_VARIABLE _rc OUTPUT_VARIABLE _log
                    ERROR_VARIABLE _log TIMEOUT 120)
    if(_rc EQUAL 0)
      set(_ok ON)
    else()
      set(_ok OFF)
    endif()
    set(_SIMSCOPE_CUDA_PROBE_${_key} ${_ok} CACHE INTERNAL "simscope: ${_what} compiles C++20")
  endif()
  set(${out_ok} ${_ok} PARENT_SCOPE)
  if(NOT _ok)
    string(REGEX MATCH "[^\n]*(error|unsupported)[^\n]*" _first "${_log}")
    if(_first)
      set(_first ": ${_first}")
    endif()
    set(${out_reason}
        "${_what} cannot compile C++20 CUDA code with ${CMAKE_CXX_COMPILER_ID} ${CMAKE_CXX_COMPILER_VERSION}${_first}"
        PARENT_SCOPE)
  endif()
endfunction()

if(NOT SIMSCOPE_CUDA STREQUAL "OFF")
  set(_nvcc "")
  if(CMAKE_CUDA_COMPILER)
    set(_nvcc "${CMAKE_CUDA_COMPILER}")
  elseif(DEFINED ENV{CUDACXX} AND NOT "$ENV{CUDACXX}" STREQUAL "")
    set(_nvcc "$ENV{CUDACXX}")
  else()
    find_program(_simscope_nvcc nvcc NO_CACHE)
    if(_simscope_nvcc)
      set(_nvcc "${_simscope_nvcc}")
    elseif(EXISTS "${SIMSCOPE_CUDA_FALLBACK_NVCC}")
      set(_nvcc "${SIMSCOPE_CUDA_FALLBACK_NVCC}")
    endif()
  endif()
  set(_usable OFF)
  if(NOT _nvcc)
    _simscope_cuda_unusable("no CUDA compiler (nvcc) was found")
  else()
    _simscope_nvcc_usable("${_nvcc}" _usable _reason)
    if(NOT _usable)
      _simscope_cuda_unusable("${_reason}")
    endif()
  endif()
  if(_usable)
    set(CMAKE_CUDA_COMPILER "${_nvcc}")
    include(CheckLanguage)
    check_language(CUDA)
    if(NOT CMAKE_CUDA_COMPILER)
      _simscope_cuda_unusable("CMake cannot use the CUDA compiler ${_nvcc} (see CMakeFiles/CMakeError.log)")
      set(_usable OFF)
    endif()
  endif()
  if(_usable)
    if(NOT CMAKE_CUDA_ARCHITECTURES)
      set(_arch "")
      find_program(_nvsmi nvidia-smi)
      if(_nvsmi)
        execute_process(COMMAND ${_nvsmi} --query-gpu=compute_cap --format=csv,noheader
                        OUTPUT_VARIABLE _cc RESULT_VARIABLE _rc ERROR_QUIET)
        if(_rc EQUAL 0 AND _cc MATCHES "^([0-9]+)\\.([0-9]+)")
          set(_arch "${CMAKE_MATCH_1}${CMAKE_MATCH_2}")
        endif()
      endif()
      if(_arch)
        set(CMAKE_CUDA_ARCHITECTURES ${_arch})
        message(STATUS "simscope: CUDA architecture of the GPU found: sm_${_arch}")
      else()
        set(CMAKE_CUDA_ARCHITECTURES "90-real;75-virtual")
        message(STATUS "simscope: no GPU found at configure time: building sm_90 + compute_75 PTX")
      endif()
    endif()
    enable_language(CUDA)
    # CMake 3.25 does not know nvcc's C++20 flag yet; nvcc >= 12.0 accepts -std=c++20.
    if(NOT CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
      set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
      set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
    endif()
    set(CMAKE_CUDA_STANDARD 20)
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    find_package(CUDAToolkit REQUIRED)
    set(SIMSCOPE_HAVE_CUDA ON)
    set(SIMSCOPE_NO_CUDA_REASON "")
  endif()
endif()
set(SIMSCOPE_HAVE_CUDA ${SIMSCOPE_HAVE_CUDA} CACHE INTERNAL "simscope: the CUDA back end is built")
set(SIMSCOPE_NO_CUDA_REASON "${SIMSCOPE_NO_CUDA_REASON}" CACHE INTERNAL
    "simscope: why this build has no CUDA back end (empty with CUDA)")
