#!/usr/bin/env bash
# Records tests/gpu/build_costs.tsv, the seconds of each step of the GPU run's build (run.sh's
# configure flags and targets, CUDA for sm_90), from a build here with no compiler cache: each
# compile and link step's CPU time (tests/gpu/step_time.sh as the launcher), so a busy machine
# measures what a step costs on a core of its own; the other steps (generated sources) their
# wall time from ninja's log.
# Run it on a quiet machine after a change that adds or moves compile units; setup.gpu_plan
# (run.sh --plan) fails while a step of the build has no cost in the table.
#   bash tests/gpu/build_costs.sh [JOBS]   (default 2; each step's time is what ninja logs)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
dir=$(mktemp -d /tmp/simscope-gpu-costs.XXXXXX)
trap 'rm -rf "$dir"' EXIT
# shellcheck source=tests/gpu/build_args.sh
. tests/gpu/build_args.sh
launch="$PWD/tests/gpu/step_time.sh;$dir/cpu_seconds.tsv"
CCACHE_DISABLE=1 cmake -S . -B "$dir" -G Ninja "${gpu_build_args[@]}" -DSIMSCOPE_CUDA=ON \
  -DCMAKE_CXX_COMPILER_LAUNCHER="$launch" -DCMAKE_C_COMPILER_LAUNCHER="$launch" \
  -DCMAKE_CUDA_COMPILER_LAUNCHER="$launch" -DCMAKE_CXX_LINKER_LAUNCHER="$launch" \
  -DCMAKE_CUDA_ARCHITECTURES=90 -DSIMSCOPE_TEST_PYTHON=/usr/bin/python3 \
  -DSIMSCOPE_PYTHON_EXECUTABLE=/usr/bin/python3 > "$dir/configure.log"
t0=$SECONDS
CCACHE_DISABLE=1 cmake --build "$dir" -j "${1:-2}" --target "${gpu_build_targets[@]}" > "$dir/build.log"
echo "build_costs: built in $((SECONDS - t0)) s with ${1:-2} jobs on $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), load $(cut -d' ' -f1-3 /proc/loadavg)"
/usr/bin/python3 tests/gpu/build_plan.py record "$dir" --cpu "$dir/cpu_seconds.tsv" \
  --out tests/gpu/build_costs.tsv
echo "build_costs: wrote tests/gpu/build_costs.tsv ($(grep -vc '^#' tests/gpu/build_costs.tsv) steps)"
