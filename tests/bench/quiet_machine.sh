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
run lsq_auto $B lsq --method auto
run lsq_fp32 $B lsq --method auto --precision fp32
run lsq_seeds $B lsq --method auto --observations 50 --unknowns 100
run lsq_seeds_fp32 $B lsq --method auto --observations 50 --unknowns 100 --precision fp32
run lsq_normal $B lsq --method normal
run lsq_gaps5 $B lsq --method auto --nan-fraction 0.05
run lsq_gaps5_normal $B lsq --method normal --nan-fraction 0.05
run lsq_gaps60 $B lsq --method auto --nan-fraction 0.6
# the numpy anchor of lsq (batched normal equations on OpenBLAS, 25,000 pixels scaled to 250,000)
echo "== lsq_numpy_anchor load=$(cut -d' ' -f1 /proc/loadavg) $(date +%T)"
/usr/bin/python3 -c "
src = open('$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/../shared/anchors/anchors_cpu.py').read()
exec(compile(src[:src.index('# field: numpy broadcast')] + src[src.index('# masked least squares'):src.index('# Stuart-Landau')], 'anchors_cpu.py (lsq part)', 'exec'))" > $OUT/lsq_numpy_anchor.txt 2>&1 || echo "(anchor not run: ../shared/anchors/anchors_cpu.py missing?)"
cat $OUT/lsq_numpy_anchor.txt
echo "== done $(date +%T) load=$(cut -d' ' -f1 /proc/loadavg)"
