#!/bin/sh
# Compiler and linker launcher of tests/gpu/build_costs.sh: runs the step and appends
# "OUTPUT<TAB>CPU SECONDS" (user + system, the step's processes together) to the file $1.
# CPU time, not wall time, so that other work on the machine does not inflate a step's cost.
log="$1"; shift
out=""
prev=""
for a in "$@"; do
  [ "$prev" = "-o" ] && out="$a"
  prev="$a"
done
t=$(mktemp)
/usr/bin/time -f '%U %S' -o "$t" "$@"
rc=$?
awk -v o="$out" '{printf "%s\t%.2f\n", o, $1 + $2}' "$t" >> "$log"
rm -f "$t"
exit $rc
