#!/usr/bin/env bash
# The benches whose targets are wall-clock figures on this 2-core machine, run back to back on a
# QUIET machine (no helper builds, no CI: check `uptime` first) at the start of a session:
# oscillators K = 256 / 10^5 beside a build of main before the lane groups when it exists
# (issue 18), the tree at 8e6 and 1e8 sources (issue 12), lsq (issue 17). Results in $OUT.
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
B=build/tests/bench/simscope-bench
M=${MAIN_BENCH:-}   # optional: a simscope-bench built from main before issue 18 (7c25896, the parent of bf4e227)
OUT=${OUT:-/tmp/idle}; mkdir -p "$OUT"
run() { local n=$1; shift; echo "== $n load=$(cut -d' ' -f1 /proc/loadavg) $(date +%T)"; "$@" > $OUT/$n.json 2> $OUT/$n.err; head -c 900 $OUT/$n.json; echo; }
[ -n "$M" ] && run osc256_main $M oscillators --mode study --members 256 --steps 20000
run osc256 $B oscillators --mode study --members 256 --steps 20000
[ -n "$M" ] && run osc1e5_main $M oscillators --mode study --members 100000 --steps 200 --repeat 1
run osc1e5 $B oscillators --mode study --members 100000 --steps 200 --repeat 1
run tree_seed $B field --method tree --sources 8000000 --targets 80000 --repeat 3
run tree_z0 $B field --method tree --sources 8000000 --targets 80000 --plane-offset 0 --repeat 2
run tree_gauss $B field --method tree --sources 8000000 --targets 80000 --distribution gaussian --repeat 2
run tree_1e7 $B field --method tree --sources 8000000 --targets 80000 --tolerance 1e-7 --repeat 2
run tree_1e8 $B field --method tree --sources 100000000 --targets 80000 --repeat 1 --direct-targets 64
# lsq: the numpy anchor and the cases of issue 17 in one shell, with a table
OUT=$OUT/lsq BENCH=$B bash tests/bench/lsq_side_by_side.sh
echo "== done $(date +%T) load=$(cut -d' ' -f1 /proc/loadavg)"
