#!/usr/bin/env bash
# The sanitize stage can fail (ctest: setup.sanitizer_canary, only in a sanitizer tree): each
# deliberate bug of sanitizer_canary.cpp ends the process with the sanitizers' status 86 (not 1 or
# 2, simscope's own error statuses) and its report, under the ASAN/UBSAN/LSAN options of
# ./simscope.sh sanitize (inherited from the environment).
set -uo pipefail
canary="$1"
failures=0
for case in "heap-overflow:AddressSanitizer: heap-buffer-overflow" \
            "signed-overflow:runtime error: signed integer overflow" \
            "leak:LeakSanitizer: detected memory leaks"; do
  what="${case%%:*}"; report="${case#*:}"
  out="$("$canary" "$what" 2>&1)"; rc=$?
  if [ "$rc" != 86 ] || ! grep -qF "$report" <<< "$out"; then
    echo "FAIL $what: exit $rc, expected exit 86 with '$report': $(head -3 <<< "$out")"
    failures=$((failures + 1))
  else echo "ok   $what: exit $rc, '$report'"; fi
done
"$canary" none || { echo "FAIL: the canary fails without a bug"; failures=$((failures + 1)); }
exit $failures
