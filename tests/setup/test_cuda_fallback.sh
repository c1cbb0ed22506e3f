#!/usr/bin/env bash
# SIMSCOPE_CUDA=AUTO with an nvcc that cannot build the CUDA code gives a CPU-only configure with
# a one-line notice naming the nvcc version; SIMSCOPE_CUDA=ON with it fails the configure
# (ctest: setup.cuda_fallback). Each CPU-only configure keeps its own reason in
# SIMSCOPE_NO_CUDA_REASON, which the program's start-up notice says ("this build has no CUDA back
# end (built without CUDA: REASON)", compute/core/cuda_build.cpp): the nvcc found and what is
# wrong with it, no nvcc at all, or SIMSCOPE_CUDA=OFF. Configures cuda_probe/ (only cmake/SimscopeCuda.cmake) with fake
# nvcc scripts: no build, a few seconds each.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
failures=0
bad() { echo "FAIL $*"; failures=$((failures + 1)); }

# fake_nvcc DIR VERSION_TEXT COMPILE_EXIT: an nvcc that prints VERSION_TEXT for --version and
# otherwise prints a host-compiler error and exits COMPILE_EXIT.
fake_nvcc() {
  mkdir -p "$1"
  cat > "$1/nvcc" <<FAKE
#!/bin/sh
case " \$* " in *" --version "*) printf '%s\n' "nvcc: NVIDIA (R) Cuda compiler driver" "$2"; exit 0 ;; esac
echo "#error -- unsupported GNU version! gcc versions later than 11 are not supported!" >&2
exit $3
FAKE
  chmod +x "$1/nvcc"
}
fake_nvcc "$tmp/old" "Cuda compilation tools, release 11.8, V11.8.89" 1
fake_nvcc "$tmp/new" "Cuda compilation tools, release 13.0, V13.0.88" 1

# configure NAME [ENV...] -- [CMAKE ARGS...]: configures a fresh tree, output in $tmp/NAME.log.
configure() {
  local name="$1"; shift
  local envs=()
  while [ "$1" != -- ]; do envs+=("$1"); shift; done; shift
  env "${envs[@]}" cmake -S "$here/cuda_probe" -B "$tmp/$name" -G Ninja "$@" > "$tmp/$name.log" 2>&1
}
expect_cpu_only() {  # expect_cpu_only NAME RC NOTICE_REGEX
  local log="$tmp/$1.log"
  [ "$2" = 0 ] || { bad "$1: configure failed ($2): $(tail -5 "$log")"; return; }
  local notices; notices=$(grep -c '^simscope: .*building the CPU back end only$' "$log")
  [ "$notices" = 1 ] || bad "$1: expected one notice line, got $notices: $(cat "$log")"
  grep -qE "$3" "$log" || bad "$1: the notice does not match '$3': $(grep simscope "$log")"
  # The build's reason is the notice's, without "simscope: " and " - building ...".
  local notice reason
  notice=$(sed -n 's/^simscope: \(.*\) - building the CPU back end only$/\1/p' "$log")
  reason=$(sed -n 's/^-- probe: SIMSCOPE_NO_CUDA_REASON=//p' "$log")
  [ -n "$reason" ] && [ "$reason" = "$notice" ] ||
    bad "$1: SIMSCOPE_NO_CUDA_REASON is '$reason', the notice '$notice'"
  grep -q '^-- probe: SIMSCOPE_HAVE_CUDA=OFF$' "$log" || bad "$1: SIMSCOPE_HAVE_CUDA is not OFF"
  grep -q '^SIMSCOPE_HAVE_CUDA:INTERNAL=OFF$' "$tmp/$1/CMakeCache.txt" ||
    bad "$1: the cache does not say SIMSCOPE_HAVE_CUDA=OFF"
  grep -q '^CMAKE_CUDA_COMPILER' "$tmp/$1/CMakeCache.txt" &&
    bad "$1: CMAKE_CUDA_COMPILER was set: $(grep '^CMAKE_CUDA_COMPILER' "$tmp/$1/CMakeCache.txt")"
  echo "ok   $1: $(grep '^simscope: ' "$log")"
}

# CUDA 11.8 through CUDACXX (which wins over /usr/local/cuda/bin/nvcc and PATH).
configure old_cudacxx "CUDACXX=$tmp/old/nvcc" --; rc=$?
expect_cpu_only old_cudacxx $rc "^simscope: nvcc release 11\.8, V11\.8\.89 \($tmp/old/nvcc\) is older than 12\.0"
# CUDA 11.8 first on PATH (CUDACXX unset: PATH wins over /usr/local/cuda/bin/nvcc).
configure old_path -u CUDACXX "PATH=$tmp/old:$PATH" --; rc=$?
expect_cpu_only old_path $rc "^simscope: nvcc release 11\.8, V11\.8\.89 \($tmp/old/nvcc\) is older than 12\.0"
# A recent nvcc that cannot compile C++20 with this host compiler.
configure new_broken "CUDACXX=$tmp/new/nvcc" --; rc=$?
expect_cpu_only new_broken $rc "^simscope: nvcc release 13\.0, V13\.0\.88 \($tmp/new/nvcc\) cannot compile C\+\+20 CUDA code with GNU [0-9.]+: .*unsupported GNU version"
# SIMSCOPE_CUDA=ON with CUDA 11.8: the configure fails and says why.
configure old_on "CUDACXX=$tmp/old/nvcc" -- -DSIMSCOPE_CUDA=ON; rc=$?
if [ "$rc" = 0 ]; then bad "old_on: SIMSCOPE_CUDA=ON with CUDA 11.8 configured"
elif ! grep -q 'SIMSCOPE_CUDA=ON but nvcc release 11.8' "$tmp/old_on.log"; then
  bad "old_on: no reason given: $(cat "$tmp/old_on.log")"
else echo "ok   old_on: the configure fails: SIMSCOPE_CUDA=ON but nvcc release 11.8 ..."; fi
# No nvcc anywhere: not in CUDACXX, not on PATH (a folder of links to what cmake and the
# compiler need; nor in the system folders, such as /usr/local/bin), not at the fallback path (set
# to one that does not exist).
mkdir -p "$tmp/nopath"
for prog in cmake ninja c++ g++ cc gcc as ld sh; do
  p=$(command -v "$prog") && ln -sf "$p" "$tmp/nopath/$prog"
done
configure no_nvcc -u CUDACXX "PATH=$tmp/nopath" -- -DCMAKE_FIND_USE_CMAKE_SYSTEM_PATH=OFF \
  -DSIMSCOPE_CUDA_FALLBACK_NVCC="$tmp/none/nvcc"; rc=$?
expect_cpu_only no_nvcc $rc "^simscope: no CUDA compiler \(nvcc\) was found - building"
# SIMSCOPE_CUDA=OFF never looks at nvcc.
configure off "CUDACXX=$tmp/old/nvcc" -- -DSIMSCOPE_CUDA=OFF; rc=$?
if [ "$rc" != 0 ] || grep -q '^simscope: ' "$tmp/off.log" ||
   ! grep -q 'SIMSCOPE_HAVE_CUDA=OFF' "$tmp/off.log" ||
   ! grep -q '^-- probe: SIMSCOPE_NO_CUDA_REASON=SIMSCOPE_CUDA=OFF$' "$tmp/off.log"; then
  bad "off: $(cat "$tmp/off.log")"
else echo "ok   off: no notice, CPU only, SIMSCOPE_NO_CUDA_REASON=SIMSCOPE_CUDA=OFF"; fi

[ "$failures" = 0 ] && echo "all CUDA fallback cases pass" && exit 0
echo "$failures case(s) failed"; exit 1
