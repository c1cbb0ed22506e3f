#!/bin/bash
# Headless CPU oscillator studies run by two simscope executables (e.g. main's build and a
# branch's), every output .npy compared byte for byte: fp64/fp32, Watts-Strogatz (N = 100, 37, 35;
# k = 4, 6; k = 2 p = 0.2, mostly ELL tables), rings, Erdos-Renyi, members going non-finite, 10^4
# members in blocks.
#   OLD=/path/to/main/build/app/simscope [NEW=build/app/simscope] [WORK=/tmp/osc_compare] \
#     bash tests/bench/osc_compare_main.sh
# Prints one line per case (identical=1 when every .npy is the same) and the files that differ.
set -u
OLD=${OLD:?set OLD to the reference simscope executable}
NEW=${NEW:-build/app/simscope}
W=${WORK:-/tmp/osc_compare}
mkdir -p "$W"
OLD=$(realpath "$OLD"); NEW=$(realpath "$NEW")
[ "$OLD" = "$NEW" ] && { echo "OLD and NEW are the same executable ($OLD)"; exit 2; }
echo "old: $OLD"; echo "new: $NEW"
cases=(
 "ws_fail_k1000|--set network.nodes=100 --set ensemble.size=1000 --set integrator.steps=600 --set integrator.transient=100 --set integrator.dt=0.2"
 "ws_fp64|--set network.nodes=100 --set ensemble.size=300 --set integrator.steps=3000 --set integrator.transient=500"
 "ws_fp32|--set network.nodes=100 --set ensemble.size=300 --set integrator.steps=3000 --set integrator.transient=500 --set precision=fp32"
 "ws_k6|--set network.nodes=100 --set network.k=6 --set ensemble.size=100 --set integrator.steps=2000 --set integrator.transient=300"
 "ws_n37|--set network.nodes=37 --set ensemble.size=100 --set integrator.steps=2000 --set integrator.transient=300"
 "ws_n35|--set network.nodes=35 --set ensemble.size=100 --set integrator.steps=2000 --set integrator.transient=300"
 "ring2|--set network.topology=ring --set network.k=2 --set network.nodes=100 --set ensemble.size=64 --set integrator.steps=2000 --set integrator.transient=300"
 "ring6_fp32|--set network.topology=ring --set network.k=6 --set network.nodes=50 --set ensemble.size=40 --set integrator.steps=2000 --set integrator.transient=300 --set precision=fp32"
 "er|--set network.topology=erdos_renyi --set network.p=0.05 --set network.nodes=100 --set ensemble.size=50 --set integrator.steps=2000 --set integrator.transient=300"
 "ws_fail|--set network.nodes=64 --set ensemble.size=200 --set integrator.steps=1000 --set integrator.transient=100 --set integrator.dt=0.2"
 "ws_fail_fp32|--set network.nodes=100 --set ensemble.size=200 --set integrator.steps=1000 --set integrator.transient=100 --set integrator.dt=0.2 --set precision=fp32"
 "ws2_p02|--set network.nodes=100 --set network.k=2 --set network.p=0.2 --set ensemble.size=300 --set integrator.steps=2000 --set integrator.transient=300"
 "ws2_p02_fail|--set network.nodes=100 --set network.k=2 --set network.p=0.2 --set ensemble.size=200 --set integrator.steps=1000 --set integrator.transient=100 --set integrator.dt=0.2"
 "ws_k10000|--set network.nodes=100 --set ensemble.size=10000 --set integrator.steps=150 --set integrator.transient=20 --set record.every=5"
)
for c in "${cases[@]}"; do
  name=${c%%|*}; args=${c#*|}
  failed=0
  for b in old new; do
    bin=$OLD; [ $b = new ] && bin=$NEW
    rm -rf $W/$name.$b
    $bin --headless --workload oscillators --backend cpu $args --out-dir $W/$name.$b > $W/$name.$b.log 2>&1 || { echo "$name $b: rc $?"; failed=1; }
  done
  same=$((1 - failed)); n=0
  for f in $W/$name.old/*.npy; do
    n=$((n+1)); g=$W/$name.new/$(basename $f)
    cmp -s $f $g || { same=0; echo "$name: $(basename $f) differs"; }
  done
  [ $n -eq 0 ] && same=0
  echo "$name: $n npy files, identical=$same ($(ls $W/$name.old | tr '\n' ' '))"
done
