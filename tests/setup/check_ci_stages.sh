#!/usr/bin/env bash
# .ci/run keeps every stage that CI needs (ctest: setup.ci_stages): it runs .ci/run with
# SIMSCOPE_CI_DRY_RUN=1, which prints each stage instead of running it, and fails unless the
# stages are, in this order, the build, the whole test suite, the sanitizers and the fuzzers, and
# the sanitize stage of simscope.sh still runs the unit tests of every module and the end-to-end
# tests with the sanitizers' own exit status. A stage dropped, skipped by a condition or cut short
# by an early exit fails here.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
ci="${1:-$root/.ci/run}"
script="${2:-$root/simscope.sh}"
fail=0
out="$(SIMSCOPE_CI_DRY_RUN=1 bash "$ci" 2>&1)"; rc=$?
if [ "$rc" != 0 ]; then echo "FAIL: $ci with SIMSCOPE_CI_DRY_RUN=1 exited $rc: $out"; exit 1; fi
got="$(sed -n 's/^=== ci: stage: //p' <<< "$out")"
want="./simscope.sh build
./simscope.sh test
./simscope.sh sanitize
./simscope.sh fuzz 10"
if [ "$got" != "$want" ]; then
  echo "FAIL: $ci's stages are"
  sed 's/^/  /' <<< "${got:-(none)}"
  echo "expected"
  sed 's/^/  /' <<< "$want"
  fail=1
fi
# The sanitize stage: LeakSanitizer's pass over compute, run and the canary; the other pass over
# render and app (unit and end-to-end) without the gui and mpi_heavy labels only; status 86.
for needle in "-L 'compute|run|canary'" "-L 'render|app' -LE 'gui|mpi_heavy'" "exitcode=86" \
              "detect_leaks=1"; do
  if ! grep -qF -- "$needle" "$script"; then
    echo "FAIL: $script's sanitize stage lost: $needle"
    fail=1
  fi
done
[ "$fail" = 0 ] && echo "ok: $ci runs $(wc -l <<< "$got") stages: $(tr '\n' ';' <<< "$got")"
# The check itself can fail: a copy of .ci/run whose fuzz stage is skipped by a condition, and one
# that exits before the sanitizers, are refused.
if [ $# = 0 ]; then
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' EXIT
  mkdir -p "$tmp/.ci"
  sed 's|^stage ./simscope.sh fuzz 10$|[ -f no-such-file ] \&\& stage ./simscope.sh fuzz 10|' "$ci" \
    > "$tmp/.ci/run"
  sed 's|^stage ./simscope.sh sanitize$|exit 0|' "$ci" > "$tmp/.ci/early"
  for bad in run early; do
    if bash "$0" "$tmp/.ci/$bad" "$script" > /dev/null 2>&1; then
      echo "FAIL: a .ci/run with its stages cut ($bad) passes this check"
      fail=1
    fi
  done
fi
exit $fail
