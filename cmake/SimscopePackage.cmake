# `cpack -G DEB` (in the build folder): simscope_<version>_<arch>.deb of the CPU build, with what
# cmake --install puts under /usr (cmake/SimscopeInstall.cmake, the Python package included).
# Depends: what dpkg-shlibdeps finds for the executable and the Python extension (Debian's package
# names: libqt6core6, libglfw3, libpng16-16, libopenmpi3, libegl1, ...), plus the files and
# programs it reads at run time. A CUDA build makes no .deb (its libcudart and libcublas come from
# NVIDIA's toolkit, no Debian package): cpack stops with a message; install it with cmake --install.
# Version: the project's, with the Debian revision of resources/debian/changelog's first entry
# (simscope (0.1.0-1) ...: 0.1.0-1), which must be for the project's version. The changelog is
# installed as changelog.Debian.gz and resources/debian/lintian-overrides as the package's
# overrides (cmake/SimscopeInstall.cmake): lintian accepts the .deb with those alone.
# tests/install/test_deb.sh builds the .deb from a CPU build folder, checks its lists and runs
# lintian on it.
file(STRINGS ${PROJECT_SOURCE_DIR}/resources/debian/changelog _entry LIMIT_COUNT 1)
if(NOT _entry MATCHES "^simscope \\(([^ )]+)-([^ )-]+)\\) ")
  message(FATAL_ERROR "resources/debian/changelog: the first line is '${_entry}', expected "
                      "'simscope (VERSION-REVISION) DISTRIBUTION; urgency=...'")
endif()
if(NOT CMAKE_MATCH_1 STREQUAL PROJECT_VERSION)
  message(FATAL_ERROR "resources/debian/changelog: the first entry is for ${CMAKE_MATCH_1}, the "
                      "project is ${PROJECT_VERSION}: add an entry for it")
endif()
set(CPACK_DEBIAN_PACKAGE_RELEASE ${CMAKE_MATCH_2})
set(CPACK_PACKAGE_NAME simscope)
set(CPACK_PACKAGE_VENDOR "simscope")
set(CPACK_PACKAGE_CONTACT "simscope developers <simscope@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "batched scientific computations on the CPU, shown live")
# The extended description: lines of at most 80 characters (Debian policy 5.6.13).
set(CPACK_PACKAGE_DESCRIPTION
    "simscope runs batched scientific computations (the field of millions of point
charges, per-pixel least squares, ensembles of oscillator networks) as
multithreaded C++ and draws the results live while you turn the knobs; headless
runs write .npy files, a PNG and run.json. Includes the Python module (import
simscope). This package is the CPU build: it has no CUDA back end.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_GENERATOR DEB)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# Read at run time, not linked: the window's font, numpy for the Python package (built for this
# interpreter's minor version: the extension's name carries it), Mesa's EGL and drivers for the
# headless renderer without a GPU driver's own.
execute_process(COMMAND ${SIMSCOPE_PYTHON_EXECUTABLE} -c
                "import sys; print('%d.%d' % sys.version_info[:2])"
                OUTPUT_VARIABLE _pyver OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
set(_deps "fonts-dejavu-core")
if(TARGET simscope_python AND _pyver MATCHES "^3\\.([0-9]+)$")
  math(EXPR _next "${CMAKE_MATCH_1} + 1")
  string(APPEND _deps ", python3 (>= ${_pyver}), python3 (<< 3.${_next}), python3-numpy")
endif()
set(CPACK_DEBIAN_PACKAGE_DEPENDS "${_deps}")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "libegl-mesa0, libgl1-mesa-dri")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "openmpi-bin, ffmpeg")
set(CPACK_PROJECT_CONFIG_FILE ${CMAKE_BINARY_DIR}/SimscopeCPackOptions.cmake)
set(_refuse "")
if(SIMSCOPE_HAVE_CUDA)
  set(_refuse [=[
if(CPACK_GENERATOR STREQUAL "DEB")
  message(FATAL_ERROR "simscope: this build folder has the CUDA back end, whose libraries are no "
    "Debian package: the .deb is made from a CPU build (cmake -S . -B build-deb -DSIMSCOPE_CUDA=OFF "
    "-DSIMSCOPE_TESTS=OFF, then cpack -G DEB there); install a CUDA build with cmake --install")
endif()
]=])
endif()
file(WRITE ${CMAKE_BINARY_DIR}/SimscopeCPackOptions.cmake
     "# Written by cmake/SimscopePackage.cmake.\n${_refuse}")
include(CPack)
