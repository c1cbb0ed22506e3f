# The CPU kernels compiled once per instruction-set level (cmake/SimscopeIsa.cmake,
# core/isa.hpp), one group per kernel family; each family's dispatch point (*_dispatch.cpp) is
# built once with the rest. Read by compute/CMakeLists.txt and tests/fuzz/CMakeLists.txt.
# SIMSCOPE_ISA_ALSO_BASELINE: kernels' files also built once with the rest (expansions.cpp: the
# source tree's build uses its P2M and M2M; both: the tests call the expansions directly).
set(_here ${CMAKE_CURRENT_LIST_DIR})
file(GLOB SIMSCOPE_LSQ_CPU CONFIGURE_DEPENDS ${_here}/lsq/cpu/*.cpp)
set(SIMSCOPE_ISA_KERNELS
  # field: the direct sum's tiles
  ${_here}/field/field_cpu.cpp
  # tree: multipoles, traversal, M2L, P2P, L2P
  ${_here}/field/tree/moments_cpu.cpp
  ${_here}/field/tree/tree_cpu.cpp
  ${_here}/field/tree/expansions.cpp
  ${_here}/field/tree/m2l_harmonic.cpp
  # lsq: the lane-group solver (Gram, Cholesky, QR/SVD paths)
  ${SIMSCOPE_LSQ_CPU}
  # oscillators: the RK4 lanes
  ${_here}/oscillators/oscillators_cpu.cpp
)
set(SIMSCOPE_ISA_ALSO_BASELINE ${_here}/field/tree/expansions.cpp
                               ${_here}/field/tree/m2l_harmonic.cpp)
