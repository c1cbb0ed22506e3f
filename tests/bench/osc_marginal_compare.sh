#!/bin/bash
# The study kernel's marginal rate, (t(S2) - t(S1)) / (K N (S2 - S1)) inverted, of two
# simscope-bench executables side by side (e.g. main's build and a branch's), runs interleaved:
# ring k = 2, Watts-Strogatz k = 4 p = 0.1 and k = 2 p = 0.2, N = 100, fp64, `--mode study`
# (which both have), t = the median seconds (wall) and cpu_seconds (the process's CPU time) of
# advance().
#   OLD=/path/to/main/build/tests/bench/simscope-bench [NEW=build/tests/bench/simscope-bench] \
#     [K=100000] [S1=64] [S2=320] [REPEAT=1] bash tests/bench/osc_marginal_compare.sh
# Prints one line per build and case, with the load average and the CPU model.
set -u
OLD=${OLD:?set OLD to the reference simscope-bench}
NEW=${NEW:-build/tests/bench/simscope-bench}
K=${K:-100000}; S1=${S1:-64}; S2=${S2:-320}; REPEAT=${REPEAT:-1}
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-), $(nproc) cores; K=$K N=100 S1=$S1 S2=$S2"
field() { python3 -c "import json,sys; print(json.loads(sys.stdin.read())['$1'])"; }
for c in "ring 2 0" "watts_strogatz 4 0.1" "watts_strogatz 2 0.2"; do
  set -- $c
  for b in old new; do
    bin=$OLD; [ $b = new ] && bin=$NEW
    args="oscillators --mode study --members $K --nodes 100 --topology $1 --k $2 --p $3 --repeat $REPEAT"
    j1=$($bin $args --steps $S1); j2=$($bin $args --steps $S2)
    w1=$(echo "$j1" | field seconds); w2=$(echo "$j2" | field seconds)
    c1=$(echo "$j1" | field cpu_seconds); c2=$(echo "$j2" | field cpu_seconds)
    python3 -c "
w=$K*100*($S2-$S1)
print('%-4s %-22s marginal %.3g osc-steps/s, %.3g per CPU s (wall %.2f -> %.2f s, cpu %.2f -> %.2f s), load %s' % ('$b', '$1 k=$2 p=$3', w/($w2-$w1), w/($c2-$c1), $w1, $w2, $c1, $c2, open('/proc/loadavg').read().split()[0]))"
  done
done
