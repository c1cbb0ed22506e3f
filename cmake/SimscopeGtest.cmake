# simscope_add_gtest(TARGET LABELS <labels...> [SHARDS n] [TIMEOUT s] [COST c]): registers a
# GoogleTest binary with ctest as n entries <first label>.<TARGET>.<i>of<n>, each one process that
# runs its share of the cases (GoogleTest's own sharding: GTEST_TOTAL_SHARDS/GTEST_SHARD_INDEX),
# printing the failures only (GTEST_BRIEF). One process per share instead of one per case: the
# start of a binary that links cuBLAS costs ~0.7 s, and there are several hundred cases. Run one
# case alone with the binary itself: build/tests/test_compute --gtest_filter='LsqNumpy.*'.
function(simscope_add_gtest target)
  cmake_parse_arguments(G "" "SHARDS;TIMEOUT;COST" "LABELS" ${ARGN})
  if(NOT G_SHARDS)
    set(G_SHARDS 1)
  endif()
  if(NOT G_TIMEOUT)
    set(G_TIMEOUT 600)
  endif()
  list(GET G_LABELS 0 _prefix)
  math(EXPR _last "${G_SHARDS} - 1")
  foreach(i RANGE ${_last})
    math(EXPR _n "${i} + 1")
    set(_name ${_prefix}.${target}.${_n}of${G_SHARDS})
    add_test(NAME ${_name} COMMAND $<TARGET_FILE:${target}>)
    set_tests_properties(${_name} PROPERTIES
      LABELS "${G_LABELS}" TIMEOUT ${G_TIMEOUT}
      ENVIRONMENT "GTEST_TOTAL_SHARDS=${G_SHARDS};GTEST_SHARD_INDEX=${i};GTEST_BRIEF=1")
    if(G_COST)
      set_tests_properties(${_name} PROPERTIES COST ${G_COST})
    endif()
  endforeach()
endfunction()
