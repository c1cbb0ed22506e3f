#!/usr/bin/env bash
# MPI overhead on one machine (issue 13, tests/bench/NOTES.md "MPI"): the same oscillators study
# as one process with 2 OpenMP threads and as `mpirun -np 2` with 1 thread per rank, alternated
# REPEATS times, `uptime` before each run; then the gather of a large ensemble's results.
# Usage: tests/bench/mpi_overhead.sh [SIMSCOPE] [REPEATS]   (prints one line per run)
set -euo pipefail
simscope="${1:-build/app/simscope}"
repeats="${2:-3}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_pml=ob1 \
  OMPI_MCA_btl=self,vader
out="$(mktemp -d)"
study=(--headless --backend cpu --no-image --quiet --workload oscillators
       --set ensemble.size=1280 --set network.nodes=100 --set integrator.steps=8000
       --set integrator.transient=1000 --set record.every=10)
field() { python3 -c "import json,sys; m=json.load(open('$1/run.json')); print($2)"; }
for i in $(seq "$repeats"); do
  echo "load: $(uptime | sed 's/.*load average: //')"
  rm -rf "$out/one"
  t0=$(date +%s.%N)
  OMP_NUM_THREADS=2 "$simscope" "${study[@]}" --out-dir "$out/one"
  t1=$(date +%s.%N)
  echo "1 process x 2 threads: wall $(python3 -c "print(round($t1 - $t0, 2))") s, compute $(field "$out/one" "m['timings']")"
  echo "load: $(uptime | sed 's/.*load average: //')"
  rm -rf "$out/two"
  t0=$(date +%s.%N)
  OMP_NUM_THREADS=1 mpirun --oversubscribe -np 2 "$simscope" "${study[@]}" --out-dir "$out/two"
  t1=$(date +%s.%N)
  echo "2 ranks x 1 thread: wall $(python3 -c "print(round($t1 - $t0, 2))") s, mpi $(field "$out/two" "{k: m['mpi'][k] for k in ('wall_seconds','gather_seconds','merge_seconds','load_imbalance','gathered_bytes')}"), ranks $(field "$out/two" "[r['seconds'] for r in m['mpi']['per_rank']]")"
  cmp "$out/one/msd_t.npy" "$out/two/msd_t.npy" && cmp "$out/one/state.npy" "$out/two/state.npy" &&
    echo "outputs bit-identical"
done
# The gather of 10^5 members x 100 nodes (state, phases, msd: about 240 MB) for a short study.
rm -rf "$out/big"
echo "load: $(uptime | sed 's/.*load average: //')"
OMP_NUM_THREADS=1 mpirun --oversubscribe -np 2 "$simscope" --headless --backend cpu --no-image \
  --quiet --workload oscillators --set ensemble.size=100000 --set network.nodes=100 \
  --set integrator.steps=20 --set integrator.transient=10 --out-dir "$out/big"
echo "10^5 members: $(field "$out/big" "{k: m['mpi'][k] for k in ('wall_seconds','gather_seconds','merge_seconds','gathered_bytes')}"), ranks $(field "$out/big" "[r['seconds'] for r in m['mpi']['per_rank']]")"
rm -rf "$out"
