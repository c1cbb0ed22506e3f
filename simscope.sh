#!/usr/bin/env bash
# simscope set-up and launcher for Debian 12 / Ubuntu.
#   ./simscope.sh [SIMSCOPE ARGS...]   install missing packages, build in build/, start the GUI
#                                      (no display: run the headless demo and print its outputs);
#                                      the arguments go to simscope (build/app/simscope --help)
#   ./simscope.sh test [CTEST ARGS...] the same set-up and build, the set-up check, then the whole
#                                      test suite through ctest (arguments go to ctest, e.g. -L app)
#                                      but the .deb test, which builds a CPU-only folder: -L package
#                                      or SIMSCOPE_TEST_PACKAGE=1 (CI) include it
#   ./simscope.sh test --quick [CTEST ARGS...]
#                                      the same, label quick only: the unit tests of every module
#                                      and one end-to-end test of each front end (a few minutes)
#   ./simscope.sh build                set-up and build only
#   ./simscope.sh sanitize [CTEST ARGS...]
#                                      set-up, build build-sanitize/ with ASan + UBSan (CPU back
#                                      end only, -O1) and run the compute, run, render and app
#                                      unit tests and the end-to-end tests not labelled gui or
#                                      mpi_heavy there; a sanitizer report exits 86 and fails its
#                                      test (LeakSanitizer on the compute and run tests only)
#   ./simscope.sh fuzz [SECONDS]       set-up, then tests/fuzz/run.sh: each libFuzzer harness for
#                                      SECONDS (default 30) under ASan + UBSan
#   ./simscope.sh check-setup          the set-up check alone: every program and Python module the
#                                      tests use comes from a package in packages.txt
#   ./simscope.sh --print-packages     the Debian packages of the set-up (packages.txt), one a line
#   ./simscope.sh --help               this text
# Packages: packages.txt (one list; docs/install.md carries a checked copy). Installing needs root or sudo.
# Environment: SIMSCOPE_BUILD_DIR (default build), SIMSCOPE_SANITIZE_DIR (default build-sanitize),
#              SIMSCOPE_CMAKE_ARGS (extra configure flags, e.g. -DSIMSCOPE_CUDA=OFF; given, they
#              re-configure), SIMSCOPE_SKIP_APT=1 (do not install packages), SIMSCOPE_JOBS
#              (build and test jobs, default nproc), SIMSCOPE_DEMO_DIR (default out/demo),
#              SIMSCOPE_CCACHE=0 (at a folder's first configure: no ccache; otherwise this
#              script makes ccache the compiler launcher when it is installed, with
#              CCACHE_BASEDIR set to this checkout), SIMSCOPE_CUDA_ARCHITECTURES (at the first
#              configure of build/: CMAKE_CUDA_ARCHITECTURES, e.g. 90-real; default: the GPU's,
#              or sm_90 + compute_75 PTX without one), SIMSCOPE_TEST_PACKAGE=1 (test: the .deb
#              test too, label package; .ci/run sets it).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"
build="${SIMSCOPE_BUILD_DIR:-build}"
jobs="${SIMSCOPE_JOBS:-$(nproc 2>/dev/null || echo 2)}"

# The package names of packages.txt (comments and blank lines dropped).
read_packages() { sed -e 's/#.*//' "$here/packages.txt" | awk 'NF {print $1}'; }

usage() { sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed -e '$d' -e 's/^# \{0,1\}//'; }

install_packages() {
  [ "${SIMSCOPE_SKIP_APT:-0}" = 1 ] && return 0
  local missing=() p
  while read -r p; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done < <(read_packages)
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "simscope: installing Debian packages: ${missing[*]}"
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
}

# configure_and_build DIR [CMAKE ARGS...]: configures DIR when it has no build.ninja (never
# configured, or a first configure that failed and left only CMakeCache.txt) or when
# SIMSCOPE_CMAKE_ARGS are given; later builds re-configure by themselves when a CMakeLists.txt
# changes.
configure_and_build() {
  local dir="$1"; shift
  if [ ! -f "$dir/build.ninja" ] || [ -n "${SIMSCOPE_CMAKE_ARGS:-}" ]; then
    # shellcheck disable=SC2086
    local arch=()
    [ -n "${SIMSCOPE_CUDA_ARCHITECTURES:-}" ] &&
      arch=("-DCMAKE_CUDA_ARCHITECTURES=$SIMSCOPE_CUDA_ARCHITECTURES")
    cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release $(compiler_launcher) "${arch[@]}" \
      "$@" ${SIMSCOPE_CMAKE_ARGS:-}
  fi
  cmake --build "$dir" -j "$jobs"
}

# ccache as the compiler launcher when it is installed (packages.txt), unless SIMSCOPE_CCACHE=0.
# CCACHE_BASEDIR makes the paths under this checkout relative, and CCACHE_NOHASHDIR leaves the
# working directory out of the hash of -g builds, so a fresh clone in another folder reuses what
# an earlier build compiled (CI's clean clone after a session's build on the same machine).
compiler_launcher() {
  [ "${SIMSCOPE_CCACHE:-1}" = 0 ] && return 0
  command -v ccache > /dev/null || return 0
  echo "-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache" \
       "-DCMAKE_CUDA_COMPILER_LAUNCHER=ccache"
}
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$here}" CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-1}"

check_setup() { bash "$here/tests/setup/check_tools.sh"; }

# The sanitizer tree: ASan + UBSan on every C/C++ file, any UBSan report fatal, CPU back end,
# -O1 -g1 (compute/ keeps its own -O3: its SIMD paths are what runs). Only the targets that the
# sanitized tests run are built (no simscope-bench, no Python module).
sanitize_targets=(test_compute test_render test_run test_split_merge test_gui test_cli simscope
                  simscope-interop-bench sanitizer_canary)
sanitize() {
  local dir="${SIMSCOPE_SANITIZE_DIR:-build-sanitize}"
  local flags="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
  # No Python module there: an instrumented extension needs the sanitizer runtime preloaded into
  # python3, and the sanitized labels do not include python.
  if [ ! -f "$dir/build.ninja" ] || [ -n "${SIMSCOPE_CMAKE_ARGS:-}" ]; then
    # shellcheck disable=SC2086
    cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo $(compiler_launcher) \
      -DSIMSCOPE_CUDA=OFF -DSIMSCOPE_PYTHON=OFF \
      "-DCMAKE_C_FLAGS=$flags" "-DCMAKE_CXX_FLAGS=$flags" \
      "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" \
      "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" \
      "-DCMAKE_EXE_LINKER_FLAGS=-fsanitize=address,undefined" \
      "-DCMAKE_SHARED_LINKER_FLAGS=-fsanitize=address,undefined" ${SIMSCOPE_CMAKE_ARGS:-}
  fi
  cmake --build "$dir" -j "$jobs" --target "${sanitize_targets[@]}"
  local supp="$here/tests/setup/sanitizers"
  # halt_on_error: the first report ends the process with the sanitizers' own status, 86 (not 1 or
  # 2, simscope's own error statuses), so a test that expects a refusal cannot pass on a report.
  local asan="halt_on_error=1:strict_init_order=1:exitcode=86:suppressions=$supp/asan.supp"
  export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:exitcode=86:suppressions=$supp/ubsan.supp"
  export LSAN_OPTIONS="exitcode=86:suppressions=$supp/lsan.supp:print_suppressions=0"
  # compute and run (and the canary): LeakSanitizer on. render and app: off, because Mesa's
  # llvmpipe keeps JIT state it never frees and, built without frame pointers, gives one-frame
  # stacks that no suppression can restrict to Mesa (tests/setup/sanitizers/lsan.supp).
  local rc=0
  # SIMSCOPE_TEST_SLOWDOWN: the tests' wall-clock bounds and GUI waits stretch for the
  # instrumented binaries.
  ASAN_OPTIONS="$asan:detect_leaks=1" SIMSCOPE_TEST_SLOWDOWN="${SIMSCOPE_TEST_SLOWDOWN:-4}" \
    ctest --test-dir "$dir" --output-on-failure -j "$jobs" -L 'compute|run|canary' "$@" || rc=1
  # render, app unit and end-to-end tests: each front end once (headless runs, the window's smoke
  # test and its tour, one MPI job and one MPI fault). The xdotool choreographies (label gui) and
  # the long MPI scenarios (label mpi_heavy) run once, in ./simscope.sh test. The window's waits
  # are stretched for the instrumented binary (tests/e2e/gui_util.py).
  ASAN_OPTIONS="$asan:detect_leaks=0" SIMSCOPE_TEST_SLOWDOWN="${SIMSCOPE_TEST_SLOWDOWN:-4}" \
    ctest --test-dir "$dir" --output-on-failure -j "$jobs" -L 'render|app' -LE 'gui|mpi_heavy' \
    "$@" || rc=1
  return $rc
}

case "${1:-}" in
  --help | -h | help) usage; exit 0 ;;
  --print-packages) read_packages; exit 0 ;;
  check-setup) check_setup; exit $? ;;
esac

install_packages

case "${1:-}" in
  fuzz)
    shift
    if [ ! -f tests/fuzz/run.sh ]; then
      echo "simscope: tests/fuzz/run.sh not found: this checkout has no fuzz harnesses" >&2
      exit 1
    fi
    exec bash tests/fuzz/run.sh "$@"
    ;;
  sanitize)
    shift
    check_setup
    sanitize "$@"
    exit $?
    ;;
esac

configure_and_build "$build"

case "${1:-}" in
  test)
    shift
    check_setup
    # The ctest entry setup.tools repeats check_setup: it skips itself when this ran it.
    export SIMSCOPE_SETUP_CHECKED=1
    # A machine with a GPU: every CUDA test must run there; one that skips fails instead
    # (tests/compute/test_cuda_skip.hpp).
    if { command -v nvidia-smi > /dev/null && nvidia-smi -L 2> /dev/null | grep -q '^GPU'; } ||
       [ -e /dev/nvidia0 ]; then
      export SIMSCOPE_REQUIRE_CUDA="${SIMSCOPE_REQUIRE_CUDA:-1}"
    fi
    # --quick: the edit loop (ctest label quick: every module's unit tests and one end-to-end
    # test of each front end; a few minutes).
    if [ "${1:-}" = --quick ]; then shift; set -- -L quick "$@"; fi
    # The .deb test (label package) builds a second, CPU-only folder (BUILD/deb-cpu; about 20 s
    # with a warm ccache, minutes with a cold one): only when asked, by -L package or
    # SIMSCOPE_TEST_PACKAGE=1 (CI's test stage, .ci/run).
    if [ "${SIMSCOPE_TEST_PACKAGE:-0}" != 1 ]; then
      case " $* " in *" package "*|*"-Lpackage"*) ;; *) set -- -LE package "$@" ;; esac
    fi
    # No test may hang CI: every test has a timeout (set in CMake); tests run in parallel.
    exec ctest --test-dir "$build" --output-on-failure -j "$jobs" "$@"
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
