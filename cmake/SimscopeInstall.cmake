# Install rules of the app (README, "Installing"): `cmake --install build --prefix P` puts
#   P/bin/simscope                                   the executable
#   P/lib/python3/dist-packages/simscope/            the Python package (app/python/CMakeLists.txt;
#                                                    SIMSCOPE_PYTHON_INSTALL_DIR)
#   P/share/applications/simscope.desktop            the desktop entry (resources/desktop/)
#   P/share/icons/hicolor/scalable/apps/simscope.svg the icon (resources/icons/), and the PNG sizes
#   P/share/icons/hicolor/NxN/apps/simscope.png      rendered from it here by rsvg-convert
#   P/share/man/man1/simscope.1.gz                   the man page, help2man over `simscope --help`
#   P/share/doc/simscope/README.md                   the README and the pages it links to, with
#   P/share/doc/simscope/docs/*.md, docs/dev/*.md    the pictures they show at the relative paths
#   P/share/doc/simscope/resources/screenshots/*.png they name (so the installed pages render
#                                                    and link as in a clone)
#   P/share/doc/simscope/copyright                   the copyright file (resources/debian/)
#   P/share/doc/simscope/changelog.Debian.gz         the package's changelog (resources/debian/)
#   P/share/lintian/overrides/simscope               lintian's overrides for the .deb, each with
#                                                    its reason (resources/debian/lintian-overrides)
#   P/share/simscope/presets/NAME.json               the shipped presets (resources/presets/)
# The only resource files simscope reads at run time are the shipped presets, found from the
# executable's folder (../share/simscope/presets, app/run/presets/shipped_presets.cpp): the colormaps and
# the views' font are compiled in (render/), the window's UI font is Debian's DejaVu Sans
# (fonts-dejavu-core, app/gui/fonts.cpp). So the installed tree is relocatable.
# simscope-bench (tests/bench/) is a developer's tool and is not installed.
# Included by the top-level CMakeLists.txt after app/ (SIMSCOPE_APP=ON).
include(GNUInstallDirs)

install(TARGETS simscope RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT app)
install(FILES ${PROJECT_SOURCE_DIR}/resources/desktop/simscope.desktop
        DESTINATION ${CMAKE_INSTALL_DATADIR}/applications COMPONENT app)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/resources/presets/
        DESTINATION ${CMAKE_INSTALL_DATADIR}/simscope/presets COMPONENT app FILES_MATCHING PATTERN "*.json")
# copyright: the .deb's machine-readable copyright file (Debian's copyright format 1.0): simscope
# itself (no licence chosen yet) and the third-party code and data compiled into its binaries.
install(FILES ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/resources/debian/copyright
        DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT app)
# The .deb's changelog (Debian's format; cmake/SimscopePackage.cmake takes the package's revision
# from its first entry), compressed as Debian policy 12.7 wants it: gzip -9n, no name or time.
set(_changelog ${PROJECT_SOURCE_DIR}/resources/debian/changelog)
add_custom_command(OUTPUT ${CMAKE_BINARY_DIR}/debian/changelog.Debian.gz
  COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/debian
  COMMAND sh -c "gzip -9nc \"$1\" > \"$2\"" sh ${_changelog}
          ${CMAKE_BINARY_DIR}/debian/changelog.Debian.gz
  DEPENDS ${_changelog} VERBATIM)
add_custom_target(simscope_changelog ALL DEPENDS ${CMAKE_BINARY_DIR}/debian/changelog.Debian.gz)
install(FILES ${CMAKE_BINARY_DIR}/debian/changelog.Debian.gz DESTINATION ${CMAKE_INSTALL_DOCDIR}
        COMPONENT app)
# The tags lintian reports on the .deb that this project cannot fix yet, each with its reason.
install(FILES ${PROJECT_SOURCE_DIR}/resources/debian/lintian-overrides
        DESTINATION ${CMAKE_INSTALL_DATADIR}/lintian/overrides RENAME simscope COMPONENT app)
# README.md shows resources/screenshots/*.png by relative path and links into docs/: both
# installed at the same place relative to the installed README (tests/install/test_install.sh
# and test_deb.sh check every image and link; tests/setup/check_readme_links.py that the pages
# link only to what is installed here).
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs
        COMPONENT app FILES_MATCHING PATTERN "*.md")
install(DIRECTORY ${PROJECT_SOURCE_DIR}/resources/screenshots/
        DESTINATION ${CMAKE_INSTALL_DOCDIR}/resources/screenshots COMPONENT app
        FILES_MATCHING PATTERN "*.png")

# The icon: the SVG as drawn, and PNGs for the desktops and menus that want fixed sizes.
set(_svg ${PROJECT_SOURCE_DIR}/resources/icons/simscope.svg)
install(FILES ${_svg} DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps
        COMPONENT app)
find_program(SIMSCOPE_RSVG_CONVERT rsvg-convert)
set(SIMSCOPE_ICON_SIZES 16 24 32 48 64 128 256)
if(SIMSCOPE_RSVG_CONVERT)
  set(_pngs)
  foreach(_n IN LISTS SIMSCOPE_ICON_SIZES)
    set(_png ${CMAKE_BINARY_DIR}/icons/${_n}x${_n}/simscope.png)
    add_custom_command(OUTPUT ${_png}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/icons/${_n}x${_n}
      COMMAND ${SIMSCOPE_RSVG_CONVERT} -w ${_n} -h ${_n} -o ${_png} ${_svg}
      DEPENDS ${_svg} VERBATIM)
    list(APPEND _pngs ${_png})
    install(FILES ${_png} DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/${_n}x${_n}/apps
            COMPONENT app)
  endforeach()
  add_custom_target(simscope_icons ALL DEPENDS ${_pngs})
else()
  message(WARNING "simscope: rsvg-convert not found (Debian: librsvg2-bin): the icon is installed "
                  "as SVG only")
endif()

# The man page, from `simscope --help` (whose usage line names simscope, whatever path runs it, and
# whose description says what this build computes on) and `--version`. Its one-line name, too,
# says what this build has: a CPU-only build's does not name the GPU.
find_program(SIMSCOPE_HELP2MAN help2man)
if(SIMSCOPE_HELP2MAN)
  set(_mandir ${CMAKE_BINARY_DIR}/man)
  if(SIMSCOPE_HAVE_CUDA)
    set(_on "on the GPU (CUDA) or CPU")
  else()
    set(_on "on the CPU")
  endif()
  add_custom_command(OUTPUT ${_mandir}/simscope.1.gz
    COMMAND ${CMAKE_COMMAND} -E make_directory ${_mandir}
    COMMAND ${CMAKE_COMMAND} -E env QT_QPA_PLATFORM=offscreen
            ${SIMSCOPE_HELP2MAN} --no-info --section=1
            "--name=batched scientific computations ${_on}, shown live"
            --include=${PROJECT_SOURCE_DIR}/resources/man/simscope.h2m
            --output=${_mandir}/simscope.1 $<TARGET_FILE:simscope>
    COMMAND gzip -9nf ${_mandir}/simscope.1
    DEPENDS simscope ${PROJECT_SOURCE_DIR}/resources/man/simscope.h2m VERBATIM)
  add_custom_target(simscope_man ALL DEPENDS ${_mandir}/simscope.1.gz)
  install(FILES ${_mandir}/simscope.1.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 COMPONENT app)
else()
  message(WARNING "simscope: help2man not found (Debian: help2man): no man page is installed")
endif()
