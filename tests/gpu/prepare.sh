#!/usr/bin/env bash
# Run HERE (a Debian CPU machine), in the repository root, before tests/gpu/run.sh on the GPU
# machine: fills .gpu/ (git-ignored) with what that machine lacks:
# GoogleTest's sources, Eigen 3's headers, glad 2 + jinja2 + markupsafe (pure Python), stb headers, DejaVu Sans,
# the glvnd loaders (.deb, unpacked there), nlohmann-json, pybind11, dlpack.h and pytest for the run layer and the
# Python module, and a copy of the anchor scripts (../shared does not travel).
# Then call the device tool with carry [".gpu"] and the command `bash tests/gpu/run.sh`.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
grep -qxF '/.gpu/' .git/info/exclude 2>/dev/null || echo '/.gpu/' >> .git/info/exclude
rm -rf .gpu && mkdir -p .gpu/pylib .gpu/stb .gpu/debs .gpu/anchors .gpu/fonts
cp -r /usr/src/googletest .gpu/googletest
for m in glad jinja2 markupsafe; do cp -r "/usr/lib/python3/dist-packages/$m" .gpu/pylib/; done
find .gpu/pylib -name '*.so' -delete
find .gpu/pylib -depth -name '__pycache__' -exec rm -rf {} +
cp /usr/include/stb/stb_image_write.h /usr/include/stb/stb_truetype.h \
   /usr/include/stb/stb_rect_pack.h .gpu/stb/
mkdir -p .gpu/fonts && cp /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf .gpu/fonts/  # the views' font
cp -r /usr/include/eigen3 .gpu/eigen3   # lsq (header only; compute/CMakeLists.txt finds it there)
# The run layer and the Python module without the app (header-only nlohmann-json and pybind11,
# relocatable CMake packages: CMAKE_PREFIX_PATH=.gpu/prefix), and Debian's pytest (pure Python)
# for that machine's own Python, which has numpy, torch and cupy but maybe no pytest.
mkdir -p .gpu/prefix/include .gpu/prefix/share/cmake .gpu/prefix/lib/cmake .gpu/pytest
cp -r /usr/include/nlohmann /usr/include/pybind11 /usr/include/dlpack .gpu/prefix/include/
cp -r /usr/share/cmake/nlohmann_json .gpu/prefix/share/cmake/
cp -r /usr/lib/cmake/pybind11 .gpu/prefix/lib/cmake/
for m in pytest _pytest pytest-*.dist-info py py.py pluggy iniconfig packaging attr attrs \
         exceptiongroup tomli; do
  for f in /usr/lib/python3/dist-packages/$m; do [ -e "$f" ] && cp -r "$f" .gpu/pytest/; done
done
find .gpu/pytest -depth -name '__pycache__' -exec rm -rf {} +
o='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64'
mkdir -p /tmp/amd64/partial
apt-get $o update -q >/dev/null
(cd .gpu/debs && apt-get $o download libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2 >/dev/null)
cp ../shared/anchors/*.py .gpu/anchors/ 2>/dev/null || echo "note: ../shared/anchors not found"
du -sh .gpu
