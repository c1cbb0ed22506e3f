#!/usr/bin/env bash
# Peak memory per rank of the field split by sources (issue 13, tests/bench/NOTES.md "MPI"):
# P sources from a float64 (P, 4) .npy file and generated, on a 4 x 4 plane (the sources
# dominate), as one process and as `mpirun -np R --mpi-split sources` for R = 2 and 4; each
# process' peak resident set (getrusage of a small Python parent per rank: ru_maxrss of its
# simscope child, which is the MPI rank) printed per rank, with the run's wall time.
# Usage: tests/bench/mpi_source_rss.sh [SIMSCOPE] [P]   (default 4000000 sources)
set -euo pipefail
simscope="${1:-build/app/simscope}"
P="${2:-4000000}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_pml=ob1 \
  OMPI_MCA_btl=self,vader OMP_NUM_THREADS=1
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
/usr/bin/python3 -c "
import numpy as np
r = np.random.default_rng(1)
np.save('$out/sources.npy', np.hstack([r.uniform(-1, 1, ($P, 3)), r.uniform(0.5, 1.5, ($P, 1))]))"
cat > "$out/rss.py" <<'EOF'
import os, resource, subprocess, sys
p = subprocess.run(sys.argv[1:])
rank = os.environ.get("OMPI_COMM_WORLD_RANK", "-")
print(f"  rank {rank}: peak RSS {resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024:.1f} MiB",
      flush=True)
sys.exit(p.returncode)
EOF
echo "P = $P sources; file $(du -m "$out/sources.npy" | cut -f1) MB; load: $(uptime | sed 's/.*load average: //')"
for what in file generated; do
  if [ "$what" = file ]; then src=(--set "sources.file=$out/sources.npy"); else
    src=(--set sources.distribution=uniform --set "sources.count=$P"); fi
  common=(--headless --backend cpu --no-image --quiet --workload field --set grid.size=4
          --set plane.offset=0.5 --set method=direct "${src[@]}")
  for R in 1 2 4; do
    rm -rf "$out/o"
    echo "$what, $([ "$R" = 1 ] && echo "one process" || echo "-np $R --mpi-split sources"):"
    t0=$(date +%s.%N)
    if [ "$R" = 1 ]; then
      /usr/bin/python3 "$out/rss.py" "$simscope" "${common[@]}" --out-dir "$out/o"
    else
      mpirun --oversubscribe -np "$R" /usr/bin/python3 "$out/rss.py" "$simscope" "${common[@]}" \
        --mpi-split sources --out-dir "$out/o"
    fi
    t1=$(date +%s.%N)
    echo "  wall $(python3 -c "print(round($t1 - $t0, 2))") s"
  done
done
