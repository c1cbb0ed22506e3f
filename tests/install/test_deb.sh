#!/usr/bin/env bash
# ctest install.deb: `cpack -G DEB` of the CPU build, then the .deb's lists: its files
# (dpkg-deb -c) and its control fields (dpkg-deb -I: Depends are Debian package names, the
# shared libraries' packages from dpkg-shlibdeps among them, nothing of CUDA), and the extracted
# package's program and Python module run from where they were unpacked, its README's pictures
# resolve to packaged files, and its copyright file is Debian's machine-readable format. The
# version carries the Debian revision of the packaged changelog.Debian.gz; the program says once,
# at start, that this build has no CUDA back end and why (SIMSCOPE_CUDA=OFF, not a missing nvcc),
# and nothing with --quiet; the man page says the same. Last, lintian: no error or warning, the
# tags the package overrides (usr/share/lintian/overrides/simscope) each with its reason.
# The .deb is made from a CPU build folder: BUILD_DIR itself when it is one; for a CUDA build
# folder (CI's), BUILD_DIR/deb-cpu, configured here with -DSIMSCOPE_CUDA=OFF -DSIMSCOPE_TESTS=OFF
# -DSIMSCOPE_NATIVE=OFF (a package is run on other machines) and built through ccache (a fresh
# folder with a warm cache: ~30 s of CPU, mostly the LTO links; with a cold cache the app's CPU
# build, ~11 CPU minutes; README, "Installing"). A CUDA build folder's own cpack must refuse
# (cmake/SimscopePackage.cmake).
#   tests/install/test_deb.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build="$(cd "$1" && pwd)"
src="$(cd "$2" && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$src}" CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-1}"

if grep -q '^SIMSCOPE_HAVE_CUDA:INTERNAL=ON' "$build/CMakeCache.txt"; then
  if cpack -G DEB --config "$build/CPackConfig.cmake" -B "$tmp/refused" > "$tmp/refused.log" 2>&1; then
    fail "cpack made a .deb of a CUDA build folder"
  fi
  grep -q 'the .deb is made from a CPU build' "$tmp/refused.log" ||
    { cat "$tmp/refused.log"; fail "cpack in a CUDA build folder: not the expected message"; }
  echo "the CUDA build folder's cpack refuses, as it should; the .deb comes from $build/deb-cpu"
  deb_build="$build/deb-cpu"
  launcher=()
  if command -v ccache > /dev/null; then
    launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  fi
  start=$SECONDS
  cmake -S "$src" -B "$deb_build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSIMSCOPE_CUDA=OFF \
    -DSIMSCOPE_TESTS=OFF -DSIMSCOPE_NATIVE=OFF "${launcher[@]}" > "$tmp/configure.log" 2>&1 ||
    { tail -30 "$tmp/configure.log"; fail "configure of the CPU build folder"; }
  # Only what the package installs (cpack runs no build of its own here): the program, the
  # Python module and its window module, the man page, the icons and the changelog.
  cmake --build "$deb_build" -j "${SIMSCOPE_JOBS:-2}" --target simscope simscope_python \
    simscope_python_gui simscope_man simscope_icons simscope_changelog > "$tmp/build.log" 2>&1 ||
    { tail -30 "$tmp/build.log"; fail "build of the CPU build folder"; }
  echo "CPU build folder configured and built in $((SECONDS - start)) s"
else
  deb_build="$build"
fi

cpack -G DEB --config "$deb_build/CPackConfig.cmake" -B "$tmp/deb" > "$tmp/cpack.log" 2>&1 ||
  { cat "$tmp/cpack.log"; fail "cpack -G DEB"; }
deb="$(ls "$tmp"/deb/simscope_*.deb)"
echo "made $(basename "$deb") ($(du -k "$deb" | cut -f1) KiB)"

# The control fields.
info="$(dpkg-deb -I "$deb")"
field() { dpkg-deb -f "$deb" "$1"; }
[ "$(field Package)" = simscope ] || fail "Package: $(field Package)"
[ "$(field Architecture)" = "$(dpkg --print-architecture)" ] || fail "Architecture: $(field Architecture)"
# VERSION-REVISION, as the changelog's first entry says (and the project's version before the -).
project_version="$(sed -n 's/^project(simscope VERSION \([0-9.]*\) .*/\1/p' "$src/CMakeLists.txt")"
changelog_version="$(dpkg-parsechangelog -l "$src/resources/debian/changelog" -S Version)"
[ "$(field Version)" = "$changelog_version" ] && [ "${changelog_version%-*}" = "$project_version" ] &&
  [ "${changelog_version%-*}" != "$changelog_version" ] ||
  fail "Version: $(field Version); the changelog's: $changelog_version; the project's: $project_version"
echo "Version: $(field Version)"
depends="$(field Depends)"
echo "Depends: $depends"
echo "Recommends: $(field Recommends)"
names="$(tr ',|' '\n\n' <<< "$depends" | sed -e 's/(.*//' | awk 'NF {print $1}' | sort -u)"
for want in libc6 libstdc++6 libgomp1 libqt6core6 libglfw3 libpng16-16 libegl1 libopengl0 \
            libopenmpi3 fonts-dejavu-core python3 python3-numpy; do
  grep -qx "$want" <<< "$names" || fail "Depends lacks $want"
done
if grep -qi cuda <<< "$depends"; then fail "Depends names CUDA: $depends"; fi
# Each name is a Debian package installed here (the build machine has what the program links).
while read -r n; do
  dpkg-query -W "$n" > /dev/null 2>&1 || fail "Depends: $n is no installed Debian package"
done <<< "$names"

# The files.
dpkg-deb -c "$deb" | awk '{print $6}' | sed -e 's|^\./|/|' > "$tmp/files"
echo "files:"; grep -v '/$' "$tmp/files" | sed -e 's/^/  /'
for want in /usr/bin/simscope /usr/share/applications/simscope.desktop \
            /usr/share/icons/hicolor/scalable/apps/simscope.svg \
            /usr/share/icons/hicolor/48x48/apps/simscope.png \
            /usr/share/icons/hicolor/256x256/apps/simscope.png \
            /usr/share/man/man1/simscope.1.gz /usr/share/doc/simscope/README.md \
            /usr/share/doc/simscope/docs/index.md /usr/share/doc/simscope/docs/dev/tests.md \
            /usr/share/doc/simscope/resources/screenshots/field.png \
            /usr/share/doc/simscope/resources/screenshots/window.png \
            /usr/share/doc/simscope/copyright /usr/share/doc/simscope/changelog.Debian.gz \
            /usr/share/lintian/overrides/simscope \
            /usr/lib/python3/dist-packages/simscope/__init__.py; do
  grep -qx "$want" "$tmp/files" || fail "the .deb has no $want"
done
grep -q '^/usr/lib/python3/dist-packages/simscope/_core\.cpython-.*\.so$' "$tmp/files" ||
  fail "the .deb has no Python extension"
grep -q '^/usr/lib/python3/dist-packages/simscope/_gui\.cpython-.*\.so$' "$tmp/files" ||
  fail "the .deb has no simscope._gui (the window of simscope.show)"
echo "$(grep -vc '/$' "$tmp/files") files"
if grep -E 'simscope-bench|/include/|/usr/local' "$tmp/files"; then fail "unexpected files"; fi

# Unpacked anywhere, the program and the module run (their libraries are the system's).
dpkg-deb -x "$deb" "$tmp/root"
# The packaged README shows its pictures from the package's own files, and its links into docs/
# resolve there.
/usr/bin/python3 "$src/tests/install/check_doc_images.py" "$tmp/root/usr/share/doc/simscope/README.md" \
  "$tmp/root" || fail "the packaged README's image and page links"
# Debian's /usr/share/doc/PACKAGE/copyright, machine-readable (DEP-5): simscope's own paragraph
# (no licence chosen yet: all rights reserved) and the third-party code compiled in.
/usr/bin/python3 "$src/tests/install/check_copyright.py" "$tmp/root/usr/share/doc/simscope/copyright" ||
  fail "the packaged copyright file"
if readelf -d "$tmp/root/usr/bin/simscope" | grep -Eq 'RPATH|RUNPATH'; then
  fail "the packaged program has a run path"
fi
"$tmp/root/usr/bin/simscope" --version | grep -q '^simscope [0-9]' || fail "the packaged simscope --version"
(cd "$tmp" && root/usr/bin/simscope --headless --out-dir run --set grid.size=8 \
   --set sources.count=10 --image-size 32x32 > run.log 2> run.err) ||
  { cat "$tmp/run.log" "$tmp/run.err"; fail "the packaged simscope's headless run"; }
# Its start-up notice: what this build has, once, and why (it was configured with
# SIMSCOPE_CUDA=OFF above; nvcc may well be installed).
notice='simscope: this build has no CUDA back end (built without CUDA: SIMSCOPE_CUDA=OFF): using the CPU back end'
[ "$(grep -c 'CUDA' "$tmp/run.err")" = 1 ] && grep -qxF "$notice" "$tmp/run.err" ||
  { cat "$tmp/run.err"; fail "the packaged simscope's start-up notice: expected once: $notice"; }
if grep -q nvcc "$tmp/run.err"; then fail "the notice blames nvcc: $(cat "$tmp/run.err")"; fi
(cd "$tmp" && root/usr/bin/simscope --headless --quiet --out-dir run_q --set grid.size=8 \
   --set sources.count=10 --image-size 32x32 > run_q.log 2> run_q.err) ||
  { cat "$tmp/run_q.err"; fail "the packaged simscope's quiet run"; }
[ ! -s "$tmp/run_q.log" ] && [ ! -s "$tmp/run_q.err" ] ||
  { cat "$tmp/run_q.log" "$tmp/run_q.err"; fail "a --quiet run printed something"; }
# The man page says the same: a CPU build, no CUDA back end; nothing of a GPU.
man="$(zcat "$tmp/root/usr/share/man/man1/simscope.1.gz")"
grep -q 'computations on the CPU, shown live' <<< "$man" && grep -q 'no CUDA back end' <<< "$man" ||
  fail "the man page does not say that this build computes on the CPU, without CUDA"
if grep -Eq 'GPU|Usage: /' <<< "$man"; then
  fail "the CPU package's man page: $(grep -E 'GPU|Usage: /' <<< "$man" | head -3)"
fi
PYTHONPATH="$tmp/root/usr/lib/python3/dist-packages" /usr/bin/python3 -s -c \
  "import simscope, simscope._gui; print('python:', simscope.__file__, simscope.workloads())" ||
  fail "import simscope from the unpacked .deb"

# lintian, Debian's own checker: no error and no warning (its notes, I:, and the overridden tags,
# O:, listed; each override has its reason in the overrides file).
# (--fail-on none: with --show-overrides, an overridden error would count as one.)
start=$SECONDS
lintian --fail-on none --display-info --show-overrides --tag-display-limit 0 "$deb" \
  > "$tmp/lintian.log" 2>&1 || { cat "$tmp/lintian.log"; fail "lintian did not run"; }
echo "lintian in $((SECONDS - start)) s:"; sed -e 's/^/  /' "$tmp/lintian.log"
if grep -E '^[EW]: ' "$tmp/lintian.log"; then fail "lintian: errors or warnings"; fi
grep -q '^O: simscope: ' "$tmp/lintian.log" || fail "lintian read no override of the package"
# Every override is used (a fixed tag's override goes) and gives its reason (a comment above it).
if grep -q 'unused-override' "$tmp/lintian.log"; then fail "lintian: an override no tag needs"; fi
/usr/bin/python3 - "$tmp/root/usr/share/lintian/overrides/simscope" <<'EOF' || fail "the lintian overrides"
import sys
lines = open(sys.argv[1]).read().splitlines()
for i, line in enumerate(lines):
    if line and not line.startswith("#"):
        assert line.startswith("simscope: "), f"line {i + 1}: {line!r}: not 'simscope: TAG [CONTEXT]'"
        assert i > 0 and lines[i - 1].startswith("# ") and len(lines[i - 1]) > 10, \
            f"line {i + 1}: {line!r}: no reason (a '# ...' line above it)"
EOF
echo "PASS: the .deb's files, dependencies, program and module, its notice and man page, lintian"
