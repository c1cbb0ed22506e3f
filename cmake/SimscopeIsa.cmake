# The CPU kernels' instruction-set levels (compute/core/isa.hpp).
#
# simscope_isa_kernels(TARGET SOURCES...) compiles SOURCES once per level into an object library
# simscope_isa_<level> whose objects TARGET links:
#   SIMSCOPE_NATIVE=OFF on x86-64 (the portable default): x86-64-v2, x86-64-v3, x86-64-v4;
#   SIMSCOPE_NATIVE=ON: one level, native (-march=native); another processor: one, baseline.
# Each level's compile defines SIMSCOPE_ISA_NS=isa_<level> (its namespace: SIMSCOPE_ISA_BEGIN,
# and the dispatch points' isa_<level>::) and uses -fno-weak: the inline functions and template
# instances these units use (std::vector's, Eigen's, our headers') become local to the unit
# instead of weak definitions the linker would merge across levels (one ISA's copy would then
# run at every level: an illegal instruction on a CPU without AVX-512). What crosses between
# levels is plain data and classes' layouts, which -march does not change. The test
# setup.isa_symbols (tests/setup/check_isa_symbols.py) checks every level's objects.
# TARGET gets SIMSCOPE_ISA_SET (1 portable, 2 native, 0 baseline), which isa.hpp's dispatch
# macros read.
# A project may set SIMSCOPE_ISA_LEVELS to "baseline" before including this file (tests/fuzz: one
# level, built by clang, which has no -fno-weak).
if(NOT DEFINED SIMSCOPE_ISA_LEVELS)
  if(SIMSCOPE_NATIVE)
    set(SIMSCOPE_ISA_LEVELS native)
  elseif(CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$")
    set(SIMSCOPE_ISA_LEVELS v2 v3 v4)
  else()
    set(SIMSCOPE_ISA_LEVELS baseline)
  endif()
endif()
if(SIMSCOPE_ISA_LEVELS STREQUAL "native")
  set(SIMSCOPE_ISA_SET 2)
elseif(SIMSCOPE_ISA_LEVELS STREQUAL "baseline")
  set(SIMSCOPE_ISA_SET 0)
else()
  set(SIMSCOPE_ISA_SET 1)
endif()

function(simscope_isa_kernels target)
  set(_sources ${ARGN})
  target_compile_definitions(${target} PRIVATE SIMSCOPE_ISA_SET=${SIMSCOPE_ISA_SET})
  foreach(_level IN LISTS SIMSCOPE_ISA_LEVELS)
    set(_obj simscope_isa_${_level})
    add_library(${_obj} OBJECT ${_sources})
    if(_level STREQUAL "native")
      set(_march -march=native)
    elseif(_level STREQUAL "baseline")
      set(_march)
    else()
      set(_march -march=x86-64-${_level})
    endif()
    # -Wno-psabi: GCC warns that 32- and 64-byte vector arguments pass differently without AVX;
    # they pass between functions of one level only, all compiled with its flags. -fno-weak
    # where there are several levels to keep apart.
    set(_weak)
    if(SIMSCOPE_ISA_SET EQUAL 1)
      set(_weak -fno-weak -Wno-psabi)
      # The type_info of a class template of a level (lsq's Path<T, V>) is then one copy per
      # unit; UBSan's vptr check compares type_infos by address and would report every virtual
      # call across two units. The types shared with the rest of the program have key
      # functions (core/error.hpp; setup.isa_symbols checks), so nothing else depends on it.
      if(CMAKE_CXX_FLAGS MATCHES "-fsanitize=[^ ]*(undefined|vptr)")
        list(APPEND _weak -fno-sanitize=vptr)
      endif()
    endif()
    target_compile_options(${_obj} PRIVATE
      $<TARGET_PROPERTY:${target},COMPILE_OPTIONS>
      $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -O3 ${_march} ${_weak}>)
    target_compile_definitions(${_obj} PRIVATE SIMSCOPE_ISA_NS=isa_${_level}
                                               SIMSCOPE_ISA_SET=${SIMSCOPE_ISA_SET})
    # The include folders, definitions and libraries of TARGET (Eigen, OpenMP, CUDA's flags).
    target_include_directories(${_obj} PRIVATE
      $<TARGET_PROPERTY:${target},INCLUDE_DIRECTORIES>)
    target_compile_definitions(${_obj} PRIVATE
      $<TARGET_PROPERTY:${target},COMPILE_DEFINITIONS>)
    target_link_libraries(${_obj} PRIVATE OpenMP::OpenMP_CXX)
    if(TARGET Threads::Threads)
      target_link_libraries(${_obj} PRIVATE Threads::Threads)
    endif()
    if(TARGET Eigen3::Eigen)
      target_link_libraries(${_obj} PRIVATE Eigen3::Eigen)
    endif()
    target_sources(${target} PRIVATE $<TARGET_OBJECTS:${_obj}>)
    # The objects' list, for the symbol check.
    file(GENERATE OUTPUT ${CMAKE_BINARY_DIR}/isa/${_level}.objects
         CONTENT "$<JOIN:$<TARGET_OBJECTS:${_obj}>,\n>\n")
  endforeach()
endfunction()
