#!/usr/bin/env bash
# Run HERE (a Debian CPU machine), in the repository root, before tests/gpu/run.sh on the GPU
# machine: fills .gpu/ (git-ignored) with what that machine lacks (DESIGN.md section 3):
# GoogleTest's sources, Eigen 3's headers, glad 2 + jinja2 + markupsafe (pure Python), stb headers, DejaVu Sans, the glvnd
# loaders (.deb, unpacked there) and a copy of the anchor scripts (../shared does not travel).
# Then call the device tool with carry [".gpu"] and the command `bash tests/gpu/run.sh`.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
grep -qxF '/.gpu/' .git/info/exclude 2>/dev/null || echo '/.gpu/' >> .git/info/exclude
rm -rf .gpu && mkdir -p .gpu/pylib .gpu/stb .gpu/debs .gpu/anchors .gpu/fonts
cp -r /usr/src/googletest .gpu/googletest
for m in glad jinja2 markupsafe; do cp -r "/usr/lib/python3/dist-packages/$m" .gpu/pylib/; done
find .gpu/pylib -name '*.so' -delete
find .gpu/pylib -depth -name '__pycache__' -exec rm -rf {} +
cp /usr/include/stb/stb_truetype.h /usr/include/stb/stb_rect_pack.h /usr/include/stb/stb_image_write.h .gpu/stb/
cp /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf .gpu/fonts/   # the views' font (render/font_data.cpp)
cp -r /usr/include/eigen3 .gpu/eigen3   # lsq (header only; compute/CMakeLists.txt finds it there)
o='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64'
mkdir -p /tmp/amd64/partial
apt-get $o update -q >/dev/null
(cd .gpu/debs && apt-get $o download libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2 >/dev/null)
cp ../shared/anchors/*.py .gpu/anchors/ 2>/dev/null || echo "note: ../shared/anchors not found"
du -sh .gpu
