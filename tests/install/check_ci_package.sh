#!/usr/bin/env bash
# ctest install.ci_package: CI's test stage runs the .deb test. .ci/run exports
# SIMSCOPE_TEST_PACKAGE=1 at its top level (not under a condition) before its test stage, and
# ./simscope.sh test then runs ctest without `-LE package` (which it adds otherwise, unless -L
# package is asked). simscope.sh runs here with cmake and ctest replaced by stubs that print
# their arguments (SIMSCOPE_SKIP_APT=1: nothing installed; the set-up check runs as it is).
#   tests/install/check_ci_package.sh SOURCE_DIR
set -euo pipefail
src="$(cd "${1:-$(dirname "${BASH_SOURCE[0]}")/../..}" && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

ci="$src/.ci/run"
export_line="$(grep -n '^export SIMSCOPE_TEST_PACKAGE=1$' "$ci" | cut -d: -f1 | head -1 || true)"
test_line="$(grep -n '^stage ./simscope.sh test$' "$ci" | cut -d: -f1 | head -1 || true)"
[ -n "$export_line" ] || fail "$ci does not export SIMSCOPE_TEST_PACKAGE=1 at its top level"
[ -n "$test_line" ] || fail "$ci has no top-level 'stage ./simscope.sh test'"
[ "$export_line" -lt "$test_line" ] || fail "$ci exports SIMSCOPE_TEST_PACKAGE=1 after its test stage"

mkdir -p "$tmp/bin" "$tmp/build"
printf '#!/bin/sh\nexit 0\n' > "$tmp/bin/cmake"
printf '#!/bin/sh\necho "ctest-args: $*"\n' > "$tmp/bin/ctest"
chmod +x "$tmp/bin/cmake" "$tmp/bin/ctest"
touch "$tmp/build/build.ninja"
args() {  # the arguments simscope.sh test gives ctest, in this environment
  env PATH="$tmp/bin:$PATH" SIMSCOPE_SKIP_APT=1 SIMSCOPE_BUILD_DIR="$tmp/build" "$@" 2>&1 |
    sed -n 's/^ctest-args: //p'
}
with="$(args SIMSCOPE_TEST_PACKAGE=1 bash "$src/simscope.sh" test)"
without="$(args SIMSCOPE_TEST_PACKAGE=0 bash "$src/simscope.sh" test)"
asked="$(args SIMSCOPE_TEST_PACKAGE=0 bash "$src/simscope.sh" test -L package)"
[ -n "$with" ] && [ -n "$without" ] && [ -n "$asked" ] || fail "simscope.sh test did not run ctest"
case " $with " in *" -LE package "*) fail "SIMSCOPE_TEST_PACKAGE=1: ctest $with leaves the .deb test out" ;; esac
case " $without " in *" -LE package "*) ;; *) fail "by default: ctest $without runs the .deb test" ;; esac
case " $asked " in *" -LE package "*) fail "-L package: ctest $asked leaves it out" ;; esac
echo "ok: CI's test stage (SIMSCOPE_TEST_PACKAGE=1): ctest $with"
