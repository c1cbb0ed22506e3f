# simscope_forbid_links(TARGET REGEX WHY): fails the configure when TARGET's direct link
# libraries match REGEX, naming the library and WHY. The layers' allowed dependencies (README,
# "Layout": run <- frontend (+ render) <- {cli, mpi, gui} <- main.cpp; python -> run) are
# checked this way for each app/ target.
function(simscope_forbid_links target regex why)
  get_target_property(_links ${target} LINK_LIBRARIES)
  foreach(_lib IN LISTS _links)
    if(_lib MATCHES "${regex}")
      message(FATAL_ERROR "${target} must not link ${_lib} (${why})")
    endif()
  endforeach()
endfunction()
