#!/usr/bin/env bash
# Builds the libFuzzer harnesses (tests/fuzz/CMakeLists.txt, clang, ASan + UBSan) into
# build-fuzz/ and runs each for SECONDS (default 30) on a scratch copy of its checked-in seed
# corpus (tests/fuzz/corpus/<harness>/, never grown by this script). Prints one line per harness:
# executions, coverage (libFuzzer's cov: edges and ft: features at the end), crashes; exits 1 when
# any harness crashed, hung (-timeout per input), leaked, or allocated too much (-malloc_limit_mb
# for one allocation, -rss_limit_mb in all). The failing inputs are kept in
# build-fuzz/artifacts/<harness>/; replay one with build-fuzz/fuzz_<harness> FILE.
# Usage: bash tests/fuzz/run.sh [SECONDS] [HARNESS...]
# Environment: SIMSCOPE_FUZZ_BUILD_DIR (default build-fuzz), SIMSCOPE_JOBS (build jobs, default 2),
# SIMSCOPE_FUZZ_MALLOC_MB (largest single allocation, default 16 MiB).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
seconds=${1:-30}
shift || true
harnesses=("$@")
[ ${#harnesses[@]} -gt 0 ] || harnesses=(npy csv edge_list init_file set_value preset data_files)
case "$seconds" in '' | *[!0-9]*) echo "run.sh: SECONDS must be a whole number, got '$seconds'" >&2; exit 2 ;; esac
build=${SIMSCOPE_FUZZ_BUILD_DIR:-$root/build-fuzz}

for tool in clang clang++ cmake ninja; do
  command -v "$tool" > /dev/null || { echo "run.sh: $tool not found (install clang, cmake, ninja-build)" >&2; exit 2; }
done
if [ ! -f "$build/build.ninja" ]; then
  launcher=()
  command -v ccache > /dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
  cmake -S "$here" -B "$build" -G Ninja -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
    "${launcher[@]}" > "$build.configure.log" 2>&1 || { cat "$build.configure.log" >&2; exit 2; }
  rm -f "$build.configure.log"
fi
cmake --build "$build" -j "${SIMSCOPE_JOBS:-2}" > "$build/build.log" 2>&1 || { cat "$build/build.log" >&2; exit 2; }

# Per input: 10 s at most; one allocation: 16 MiB (inputs are at most 64 KiB, so a reader that
# allocates 256 times more trusted a size the file did not back; every harness runs clean at
# 2 MiB); in all: 2 GiB.
opts=(-timeout=10 -malloc_limit_mb=${SIMSCOPE_FUZZ_MALLOC_MB:-16} -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1)
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
status=0
printf '%-10s %12s %8s %8s %8s  %s\n' harness executions cov ft crashes result
for h in "${harnesses[@]}"; do
  exe=$build/fuzz_$h
  [ -x "$exe" ] || { echo "run.sh: no harness '$h' (expected $exe)" >&2; exit 2; }
  work=$build/work/$h art=$build/artifacts/$h
  rm -rf "$work" "$art"
  mkdir -p "$work/corpus" "$art"
  # The harnesses write each input to a file in TMPDIR: memory (/dev/shm) when there is one.
  shm=/dev/shm
  [ -d "$shm" ] && [ -w "$shm" ] || shm=${TMPDIR:-/tmp}
  tmp=$(mktemp -d "$shm/simscope-fuzz-$h.XXXXXX")
  cp "$here/corpus/$h/"* "$work/corpus/"
  dict=()
  [ -f "$here/dict/$h.dict" ] && dict=(-dict="$here/dict/$h.dict")
  rc=0
  TMPDIR=$tmp "$exe" "${opts[@]}" "${dict[@]}" -max_total_time="$seconds" \
    -artifact_prefix="$art/" "$work/corpus" > "$work/log" 2>&1 || rc=$?
  rm -rf "$tmp"
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log" | tail -1 || true)
  cov=$(grep -o 'cov: [0-9]*' "$work/log" | tail -1 | cut -d' ' -f2 || true)
  ft=$(grep -o 'ft: [0-9]*' "$work/log" | tail -1 | cut -d' ' -f2 || true)
  crashes=$(find "$art" -type f ! -name 'slow-unit-*' | wc -l)
  result=ok
  if [ "$rc" -ne 0 ] || [ "$crashes" -gt 0 ]; then
    status=1
    result="FAILED (exit $rc): $(grep -m1 -E 'ERROR: |runtime error|fuzz property violated|out-of-memory|timeout' "$work/log" || echo 'see log') (log: $work/log; inputs: $art/)"
  fi
  printf '%-10s %12s %8s %8s %8s  %s\n' "$h" "${execs:-?}" "${cov:-?}" "${ft:-?}" "$crashes" "$result"
done
exit $status
