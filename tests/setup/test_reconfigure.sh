#!/usr/bin/env bash
# ./simscope.sh configures a build directory that has no build.ninja, also when a failed first
# configure left CMakeCache.txt there, and does not re-configure one that has it
# (ctest: setup.reconfigure). Runs ./simscope.sh build with a fake cmake on PATH that logs its
# arguments: nothing is configured or built for real.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin"
printf '#!/bin/sh\necho "cmake $*" >> "%s/cmake.log"\n' "$tmp" > "$tmp/bin/cmake"
chmod +x "$tmp/bin/cmake"
failures=0
run() {  # run BUILD_DIR: ./simscope.sh build with the fake cmake; prints its cmake calls
  rm -f "$tmp/cmake.log"
  env -u SIMSCOPE_CMAKE_ARGS PATH="$tmp/bin:$PATH" SIMSCOPE_SKIP_APT=1 SIMSCOPE_BUILD_DIR="$1" \
    "$root/simscope.sh" build > "$tmp/out.log" 2>&1 || { echo "FAIL: simscope.sh: $(cat "$tmp/out.log")"; failures=$((failures + 1)); }
  cat "$tmp/cmake.log" 2>/dev/null
}
expect() {  # expect NAME BUILD_DIR CONFIGURES(yes|no)
  local calls; calls="$(run "$2")"
  local configured=no
  grep -q -- "^cmake -S \. -B $2 -G Ninja" <<< "$calls" && configured=yes
  if [ "$configured" != "$3" ] || ! grep -q -- "^cmake --build $2 " <<< "$calls"; then
    echo "FAIL $1: configured=$configured (expected $3); calls: $calls"; failures=$((failures + 1))
  else echo "ok   $1 (configured: $configured)"; fi
}
mkdir -p "$tmp/fresh" "$tmp/failed" "$tmp/good"
expect "empty build directory" "$tmp/fresh" yes
touch "$tmp/failed/CMakeCache.txt"             # what a failed first configure leaves
expect "CMakeCache.txt without build.ninja" "$tmp/failed" yes
touch "$tmp/good/CMakeCache.txt" "$tmp/good/build.ninja"
expect "configured tree" "$tmp/good" no
[ "$failures" = 0 ] && echo "all re-configure cases pass" && exit 0
exit 1
