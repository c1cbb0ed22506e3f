# The field's sources beyond the plain ones (compute/cpu_kernels.cmake reads this file).
set(_here ${CMAKE_CURRENT_LIST_DIR})
list(APPEND SIMSCOPE_ISA_KERNELS
  # the direct sum's tiles
  ${_here}/field_cpu.cpp
  # tree: multipoles, traversal, M2L, P2P, L2P
  ${_here}/tree/moments_cpu.cpp
  ${_here}/tree/tree_cpu.cpp
  ${_here}/tree/expansions.cpp
  ${_here}/tree/m2l_harmonic.cpp)
# The source tree's build uses expansions.cpp's P2M and M2M; both: the tests call the expansions
# directly.
list(APPEND SIMSCOPE_ISA_ALSO_BASELINE ${_here}/tree/expansions.cpp ${_here}/tree/m2l_harmonic.cpp)
# The added shares' outputs round as an unsplit evaluation's (share_sums.cpp).
list(APPEND SIMSCOPE_NO_FP_CONTRACT ${_here}/share_sums.cpp)
