# The lsq sources beyond the plain ones (compute/cpu_kernels.cmake reads this file).
# The lane-group solver (Gram, Cholesky, QR/SVD paths): every file of cpu/.
file(GLOB _lsq_cpu CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/cpu/*.cpp)
list(APPEND SIMSCOPE_ISA_KERNELS ${_lsq_cpu})
