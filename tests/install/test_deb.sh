#!/usr/bin/env bash
# ctest install.deb: `cpack -G DEB` of the CPU build, then the .deb's lists: its files
# (dpkg-deb -c) and its control fields (dpkg-deb -I: Depends are Debian package names, the
# shared libraries' packages from dpkg-shlibdeps among them, nothing of CUDA), and the extracted
# package's program and Python module run from where they were unpacked, its README's pictures
# resolve to packaged files, and its copyright file is Debian's machine-readable format.
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
  # Python module and its window module, the man page and the icons.
  cmake --build "$deb_build" -j "${SIMSCOPE_JOBS:-2}" --target simscope simscope_python \
    simscope_python_gui simscope_man simscope_icons > "$tmp/build.log" 2>&1 ||
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
            /usr/share/doc/simscope/copyright \
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
   --set sources.count=10 --image-size 32x32 > run.log 2>&1) ||
  { cat "$tmp/run.log"; fail "the packaged simscope's headless run"; }
PYTHONPATH="$tmp/root/usr/lib/python3/dist-packages" /usr/bin/python3 -s -c \
  "import simscope, simscope._gui; print('python:', simscope.__file__, simscope.workloads())" ||
  fail "import simscope from the unpacked .deb"
echo "PASS: the .deb's files, dependencies, program and module"
