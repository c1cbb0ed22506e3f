# The CPU kernels compiled once per instruction-set level (cmake/SimscopeIsa.cmake,
# core/isa.hpp), one group per kernel family; each family's dispatch point (*_dispatch.cpp) is
# built once with the rest. Read by compute/CMakeLists.txt.
# Each folder of compute/ with more than plain sources says so in its sources.cmake, read here in
# name order:
#   SIMSCOPE_ISA_KERNELS: its kernels' files;
#   SIMSCOPE_ISA_ALSO_BASELINE: kernels' files also built once with the rest;
#   SIMSCOPE_NO_FP_CONTRACT: files built without fused multiply-add (compute/CMakeLists.txt).
set(SIMSCOPE_ISA_KERNELS)
set(SIMSCOPE_ISA_ALSO_BASELINE)
set(SIMSCOPE_NO_FP_CONTRACT)
file(GLOB _simscope_source_lists CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/*/sources.cmake)
foreach(_list IN LISTS _simscope_source_lists)
  include(${_list})
endforeach()
