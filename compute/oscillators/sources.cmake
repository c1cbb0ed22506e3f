# The oscillators' sources beyond the plain ones (compute/cpu_kernels.cmake reads this file).
set(_here ${CMAKE_CURRENT_LIST_DIR})
# The RK4 lanes.
list(APPEND SIMSCOPE_ISA_KERNELS ${_here}/oscillators_cpu.cpp)
# No fused multiply-add:
# - study series are sums of block mean x count, so that a study split into member ranges and
#   merged (merge_study_ranges, which adds the rounded products) equals the unsplit one;
# - the CPU RK4 kernels: a member integrated in a lane group (cpu_lanes.hpp) equals the same
#   member integrated alone, on every x86-64 (tests/compute/oscillators/test_osc_schedule.cpp).
list(APPEND SIMSCOPE_NO_FP_CONTRACT ${_here}/study_blocks.cpp ${_here}/oscillators_cpu.cpp)
