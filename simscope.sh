#!/usr/bin/env bash
# simscope set-up and launcher for Debian 12 / Ubuntu.
#   ./simscope.sh [SIMSCOPE ARGS...]   install missing packages, build in build/, start the GUI
#                                      (no display: run the headless demo and print its outputs)
#   ./simscope.sh test                 the same set-up, then the whole test suite through ctest
#   ./simscope.sh build                set-up and build only
# Environment: SIMSCOPE_BUILD_DIR (default build), SIMSCOPE_CMAKE_ARGS (extra configure flags),
#              SIMSCOPE_SKIP_APT=1 (do not install packages).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"
build="${SIMSCOPE_BUILD_DIR:-build}"

packages=(
  build-essential cmake ninja-build pkg-config git
  qt6-base-dev libglfw3-dev libimgui-dev libstb-dev python3-glad
  libegl-dev libgl-dev libegl-mesa0 libgl1-mesa-dri
  googletest libgtest-dev libbenchmark-dev
  libeigen3-dev libopenblas-dev liblapacke-dev
  xvfb xauth python3 python3-numpy python3-scipy
)

install_packages() {
  [ "${SIMSCOPE_SKIP_APT:-0}" = 1 ] && return 0
  local missing=()
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "simscope: installing Debian packages: ${missing[*]}"
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
}

configure_and_build() {
  local jobs
  jobs="$(nproc 2>/dev/null || echo 2)"
  # Configure once (or when flags are given); later builds re-configure by themselves when a
  # CMakeLists.txt changes.
  if [ ! -f "$build/CMakeCache.txt" ] || [ -n "${SIMSCOPE_CMAKE_ARGS:-}" ]; then
    # shellcheck disable=SC2086
    cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release ${SIMSCOPE_CMAKE_ARGS:-}
  fi
  cmake --build "$build" -j "$jobs"
}

install_packages
configure_and_build

case "${1:-}" in
  test)
    shift
    # No test may hang CI: every test has a timeout (set in CMake); tests run in parallel.
    exec ctest --test-dir "$build" --output-on-failure -j "$(nproc 2>/dev/null || echo 2)" "$@"
    ;;
  build)
    exit 0
    ;;
esac

app="$build/app/simscope"
if [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; then
  exec "$app" "$@"
fi
echo "simscope: no display found (DISPLAY is unset): rendering the demo headless."
exec "$app" --headless --out-dir "${SIMSCOPE_DEMO_DIR:-out/demo}" "$@"
