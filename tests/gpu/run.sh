#!/usr/bin/env bash
# The GPU machine's check, run THERE from the repository root after tests/gpu/prepare.sh ran here
# and .gpu was carried along (device tool: carry [".gpu"], command `bash tests/gpu/run.sh`,
# timeout_s 600). One lease is one shot: 15 minutes in all, one command at most 10, at most 8
# files back from $OUT.
#   bash tests/gpu/run.sh            the run (RUN_SECONDS, default 540: ends by then)
#   bash tests/gpu/run.sh --plan     print the time plan and the files it leaves in $OUT, and the
#                                    build's projected time at 16 cores (build_plan.py from
#                                    build_costs.tsv); exit 1 when the reserves exceed RUN_SECONDS,
#                                    the files exceed 8, a build step has no recorded cost or the
#                                    projection x 1.4 exceeds the build reserve
#                                    (ctest: setup.gpu_plan, ~15 s: a configure)
#   bash tests/gpu/run.sh --dry-run  the whole run on a machine without a GPU (this CPU machine):
#                                    every step starts, the CUDA tests report "no device"
# Steps, each bounded by one deadline: the later steps' reserves are kept back from every step,
# so a slow step shortens only itself and the table is printed whatever failed or timed out.
#   configure + build: the targets the run uses (build_args.sh: the compute and render tests, the
#     run layer's CUDA tests, the benches and the Python module with pybind11 of this machine's
#     python3, which reads numpy 2's descriptors; nlohmann-json from .gpu), the CPU kernels at one
#     instruction-set level; --plan projects the build's time from build_costs.tsv;
#   the compute and render tests with SIMSCOPE_REQUIRE_CUDA=1 (a CUDA test that skips fails;
#     lsq's device maps: LsqCudaMaps.* against the CPU, RenderTest.LsqResidualMapFromCuda* the
#     interop upload against the host upload; +5 s);
#   the field kernels with 2 and 8 targets per thread; the run layer's adapters on CUDA
#     (test_split_merge CudaBackend.*, lsq's maps kept on the device included: views, held
#     results, ranges merged there; +10 s) and the module's CUDA tests (pytest -k cuda);
#   simscope-bench for the three workloads and simscope-interop-bench (a 2048 x 2048 plane into
#     the view through interop and through the host, EGL without a window); the anchors' scripts;
#   compute-sanitizer memcheck over short CUDA cases of every workload, racecheck and synccheck
#     over the kernels with shared memory or warp primitives (a time-out reads "incomplete",
#     "Device not supported" reads "unavailable": neither passes nor fails);
#   the table (summary.txt). $OUT gets summary.txt, logs.tgz (every log), bench.json (one JSON
#   object a line), anchors.json and calib.json: 5 files.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
mode=run
case "${1:-}" in
  --plan) mode=plan ;;
  --dry-run) mode=dry ;;
  "") ;;
  *) echo "run.sh: unknown option '$1' (expected --plan or --dry-run)" >&2; exit 2 ;;
esac
total=${RUN_SECONDS:-540}

# The plan: step name and its reserve in seconds (16 cores, one H200). They add up to <= 540.
plan=(
  "setup:10"
  "configure:30"
  "build:170"
  "compute and render tests:95"
  "field kernels RB=2,8:30"
  "run layer and Python CUDA tests:50"
  "benches:60"
  "anchors:45"
  "compute-sanitizer:35"
  "table:15"
)
out_files=(summary.txt logs.tgz bench.json anchors.json calib.json)

print_plan() {
  local sum=0 e
  printf '%-34s %8s %8s\n' step reserve "ends by"
  for e in "${plan[@]}"; do
    sum=$((sum + ${e##*:}))
    printf '%-34s %6d s %6d s\n' "${e%:*}" "${e##*:}" "$sum"
  done
  printf '%-34s %6d s (RUN_SECONDS %d)\n' total "$sum" "$total"
  echo "files in \$OUT (${#out_files[@]}, at most 8): ${out_files[*]}"
  plan_sum=$sum
}
# The build's flags and targets (shared with build_costs.sh).
# shellcheck source=tests/gpu/build_args.sh
. "$root/tests/gpu/build_args.sh"

if [ "$mode" = plan ]; then
  print_plan
  ok=1
  # The build step's projection: the graph of the run's targets configured here as there (CUDA
  # for sm_90, one instruction-set level), each step at its cost in build_costs.tsv, on the GPU
  # machine's 16 cores; it must fit the build reserve with a margin of 1.4.
  reserve=0
  for e in "${plan[@]}"; do [ "${e%:*}" = build ] && reserve=${e##*:}; done
  pdir=$(mktemp -d /tmp/simscope-gpu-plan.XXXXXX)
  if cmake -S "$root" -B "$pdir" -G Ninja "${gpu_build_args[@]}" -DSIMSCOPE_CUDA=ON \
       -DCMAKE_CUDA_ARCHITECTURES=90 \
       -DSIMSCOPE_TEST_PYTHON=/usr/bin/python3 -DSIMSCOPE_PYTHON_EXECUTABLE=/usr/bin/python3 \
       > "$pdir/configure.log" 2>&1; then
    /usr/bin/python3 "$root/tests/gpu/build_plan.py" project "$pdir" \
      --costs "$root/tests/gpu/build_costs.tsv" --targets "${gpu_build_targets[@]}" \
      --cores 16 --reserve "$reserve" --margin 1.4 || ok=0
  else
    tail -5 "$pdir/configure.log"; echo "FAIL: the plan's configure failed"; ok=0
  fi
  rm -rf "$pdir"
  [ "$plan_sum" -le "$total" ] || { echo "FAIL: the reserves add up to $plan_sum s > $total s"; ok=0; }
  [ "$plan_sum" -le 540 ] || { echo "FAIL: the reserves add up to $plan_sum s > 540 s"; ok=0; }
  [ "${#out_files[@]}" -le 8 ] || { echo "FAIL: ${#out_files[@]} files in \$OUT > 8"; ok=0; }
  [ $ok = 1 ] && echo "ok: the plan fits $total s and 8 files"
  exit $((1 - ok))
fi

out="${OUT:-/tmp/simscope-gpu-out}"; mkdir -p "$out"; export OUT="$out"  # the anchors write there
logs=/tmp/simscope-gpu; rm -rf "$logs"; mkdir -p "$logs"
start=$SECONDS
deadline=$((start + total))
step_index=-1
results=()  # "step|status|seconds|note"
t_step=$SECONDS
# step NAME: starts the next step of the plan (checked against it) and prints its time box.
step() {
  step_index=$((step_index + 1))
  local e="${plan[$step_index]}"
  [ "${e%:*}" = "$1" ] || { echo "run.sh: step '$1' is not the plan's step $step_index ('${e%:*}')" >&2; }
  t_step=$SECONDS
  echo; echo "=== $1 (t=$((SECONDS - start)) s, may take $(left) s)"
}
# left: the seconds this step may take: the deadline less the reserves of the steps after it.
left() {
  local later=0 i
  for ((i = step_index + 1; i < ${#plan[@]}; ++i)); do later=$((later + ${plan[$i]##*:})); done
  local l=$((deadline - SECONDS - later))
  echo $((l > 3 ? l : 3))
}
# record STATUS NOTE: the current step's row of the final table.
record() {
  results+=("${plan[$step_index]%:*}|$1|$((SECONDS - t_step))|${2:-}")
}
# status_of RC: passed, failed, or "timed out" (timeout's 124).
status_of() { case "$1" in 0) echo passed ;; 124) echo "timed out" ;; *) echo failed ;; esac; }

print_plan > "$logs/plan.txt"; cat "$logs/plan.txt"

step setup
gpu=0
if [ "$mode" = run ]; then
  # The glvnd loaders (libEGL.so.1, libOpenGL.so.0) when either is missing.
  if ! ldconfig -p | grep -q 'libEGL.so.1 ' || ! ldconfig -p | grep -q 'libOpenGL.so.0 '; then
    for f in .gpu/debs/*.deb; do dpkg -x "$f" /; done; ldconfig
  fi
  if [ -f /usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json ]; then
    export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
  fi
fi
export PATH=/usr/local/cuda/bin:$PATH
# The python3 with numpy: the first on PATH (the GPU machine's, with numpy, torch and pybind11),
# else Debian's.
py="$(command -v python3)"
for cand in "$py" /usr/bin/python3; do
  if [ -x "$cand" ] && "$cand" -c 'import numpy' 2> /dev/null; then py=$cand; break; fi
done
if nvidia-smi -L 2> /dev/null | grep -q '^GPU' || [ -e /dev/nvidia0 ]; then gpu=1; fi
if [ $gpu = 1 ]; then
  export SIMSCOPE_REQUIRE_CUDA=1  # a CUDA test that skips fails (C++ and pytest)
elif [ "$mode" = run ]; then
  echo "run.sh: no GPU found (nvidia-smi -L, /dev/nvidia0); the run goes on, CUDA reads 'no device'"
fi
gpu_name="$( (nvidia-smi -L 2> /dev/null || true) | head -1 | cut -c1-60)"
{ echo "GPU: ${gpu_name:-none found}"; nvcc --version 2>&1 | tail -1; echo "python3: $py";
  "$py" -c 'import numpy; print("numpy", numpy.__version__)' 2>&1; } | tee "$logs/machine.txt"
record passed "GPU: ${gpu_name:-no device}"

step configure
b=build-gpu
# pybind11: this machine's own (pip: reads numpy 2's PyArray_Descr), else the carried one.
pyb="$("$py" -m pybind11 --cmakedir 2> /dev/null || true)"
args=("${gpu_build_args[@]}" -DSIMSCOPE_TEST_PYTHON="$py"
      -DSIMSCOPE_PYTHON_EXECUTABLE="$py" -DCMAKE_PREFIX_PATH="$root/.gpu/prefix")
[ -n "$pyb" ] && args+=(-Dpybind11_DIR="$pyb")
[ -d .gpu/googletest ] && args+=(-DSIMSCOPE_GTEST_SOURCE="$root/.gpu/googletest")
[ -d .gpu/pylib ] && args+=(-DSIMSCOPE_GLAD="env;PYTHONPATH=$root/.gpu/pylib;$py;-m;glad")
[ -d .gpu/stb ] && args+=(-DSIMSCOPE_STB_DIR="$root/.gpu/stb")
[ -f .gpu/fonts/DejaVuSans.ttf ] && args+=(-DSIMSCOPE_VIEW_FONT="$root/.gpu/fonts/DejaVuSans.ttf")
if [ $gpu = 1 ]; then args+=(-DSIMSCOPE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90); else args+=(-DCMAKE_CUDA_ARCHITECTURES=90-real); fi
timeout "$(left)" cmake -S . -B "$b" -G Ninja "${args[@]}" > "$logs/configure.log" 2>&1
rc=$?
grep -E 'pybind11|simscope:' "$logs/configure.log" | head -8
record "$(status_of $rc)" "pybind11 ${pyb:-(carried)}"
built=0
if [ $rc = 0 ]; then
  step build
  timeout "$(left)" cmake --build "$b" -j "$(nproc)" --target "${gpu_build_targets[@]}" \
    > "$logs/build.log" 2>&1
  rc=$?
  [ $rc = 0 ] && built=1 || { grep -E 'error' -A3 "$logs/build.log" | head -30; tail -3 "$logs/build.log"; }
  record "$(status_of $rc)" "$(grep -c 'Building' "$logs/build.log") compile steps"
else
  tail -20 "$logs/configure.log"
  step build; record skipped "no configure"
fi

# gtest_counts LOG: "N passed, N failed, N skipped" from GoogleTest logs (brief or full).
gtest_counts() {
  local p f s
  p=$(grep -hoE '\[  PASSED  \] [0-9]+' "$@" | awk '{n += $4} END {print n + 0}')
  f=$(grep -hcE '^\[  FAILED  \] [A-Za-z]' "$@" | awk '{n += $1} END {print n + 0}')
  s=$(grep -hoE '\[  SKIPPED \] [0-9]+ test' "$@" | awk '{n += $4} END {print n + 0}')
  echo "$p passed, $f failed, $s skipped"
}

step "compute and render tests"
if [ $built = 1 ]; then
  timeout "$(left)" ctest --test-dir "$b" -L 'compute|render' -j 8 --output-on-failure \
    > "$logs/ctest.log" 2>&1
  rc=$?
  grep -E 'tests passed|Total Test time|\(Failed\)|\(Timeout\)' "$logs/ctest.log" | head -12
  record "$(status_of $rc)" "$(grep -E 'tests passed' "$logs/ctest.log" | head -1)"
else record skipped "no build"; fi

step "field kernels RB=2,8"
if [ $built = 1 ] && [ $gpu = 1 ]; then
  rc=0
  for rb in 2 8; do
    SIMSCOPE_FIELD_CUDA_RB=$rb timeout "$(( $(left) / (rb == 2 ? 2 : 1) ))" "$b/tests/test_compute" \
      --gtest_filter='Field/CudaVsCpu.*:FieldCuda.*:FieldRangesCuda.*:FieldDeviceInputsCuda.*' \
      > "$logs/field_rb$rb.log" 2>&1 || rc=$?
  done
  record "$(status_of $rc)" "$(gtest_counts "$logs"/field_rb*.log)"
else record skipped "$([ $built = 1 ] && echo 'no device' || echo 'no build')"; fi

step "run layer and Python CUDA tests"
if [ $built = 1 ]; then
  # The run layer's adapters on the CUDA back end (tests/run/test_cuda_backend.cpp: device
  # outputs, a held result kept on the device, ranges on CUDA merged, lsq's host methods and
  # device maps, the oscillators' live state), then the module's CUDA tests; pytest from the image or the carried
  # copy. The CPU run-layer tests are CI's.
  "$py" -c 'import pytest' 2> /dev/null || export PYTHONPATH="$root/.gpu/pytest${PYTHONPATH:+:$PYTHONPATH}"
  timeout "$(( $(left) / 2 ))" "$b/tests/run/test_split_merge" --gtest_filter='CudaBackend.*' \
    > "$logs/run_cuda.log" 2>&1
  rc1=$?
  rc2=0
  if [ -d "$b/python/simscope" ]; then
    PYTHONPATH="$root/$b/python${PYTHONPATH:+:$PYTHONPATH}" timeout "$(left)" \
      "$py" -m pytest -q -rs -p no:cacheprovider -k cuda tests/e2e/python > "$logs/pytest_cuda.log" 2>&1
    rc2=$?
    [ $rc2 = 5 ] && rc2=1  # collected no test: not a pass
  else
    echo "no Python module in $b (pybind11 or Python headers missing: see configure.log)" \
      > "$logs/pytest_cuda.log"; rc2=1
  fi
  rc=$rc1; [ $rc = 0 ] && rc=$rc2
  record "$(status_of $rc)" "run: $(gtest_counts "$logs/run_cuda.log"); pytest: $(tail -1 "$logs/pytest_cuda.log" | cut -c1-50)"
else record skipped "no build"; fi

step benches
: > "$out/bench.json"
bench_failed=0 bench_run=0
# bench NAME BINARY ARGS...: one JSON line into bench.json ("name" added), stderr into the logs;
# each bench gets a fair share of what is left of the step. BINARY is under the build folder.
benches=(
  "field_cuda|tests/bench/simscope-bench field --backend cuda --sources 8000000 --targets 80000 --repeat 5"
  "field_cuda_fp64|tests/bench/simscope-bench field --backend cuda --sources 8000000 --targets 80000 --precision fp64 --repeat 1"
  "field_tree_cuda|tests/bench/simscope-bench field --backend cuda --method tree --sources 8000000 --targets 80000 --repeat 3"
  "lsq_cuda|tests/bench/simscope-bench lsq --backend cuda --precision fp32 --repeat 5"
  "lsq_cuda_fp64|tests/bench/simscope-bench lsq --backend cuda --precision fp64 --repeat 3"
  "lsq_cuda_seeds|tests/bench/simscope-bench lsq --backend cuda --method auto --observations 50 --unknowns 100 --repeat 3"
  "osc_single|tests/bench/simscope-bench oscillators --mode single --backend cuda --repeat 3"
  "osc_study|tests/bench/simscope-bench oscillators --mode study --backend cuda --members 100000 --steps 20000 --repeat 1"
  "interop_2048|tests/render/simscope-interop-bench --size 2048 --repeat 20"
)
# Without a device (the dry run) the loop runs too: the CUDA benches refuse at once ("no CUDA
# device"), the interop bench times the host path through Mesa's EGL.
if [ $built = 1 ]; then
  n=${#benches[@]}
  for e in "${benches[@]}"; do
    name="${e%%|*}"; read -r -a a <<< "${e#*|}"
    share=$(( $(left) / n )); n=$((n - 1))
    bench_run=$((bench_run + 1))
    if timeout "$share" "$b/${a[0]}" "${a[@]:1}" > "$logs/bench_$name.json" 2> "$logs/bench_$name.err"; then
      "$py" -c 'import json,sys; d=json.load(open(sys.argv[1])); d["name"]=sys.argv[2]; print(json.dumps(d))' \
        "$logs/bench_$name.json" "$name" >> "$out/bench.json" 2>> "$logs/bench_$name.err" || bench_failed=$((bench_failed + 1))
    else
      bench_failed=$((bench_failed + 1))
      "$py" -c 'import json,sys; e=open(sys.argv[2]).read().strip().splitlines(); print(json.dumps({"name": sys.argv[1], "incomplete": True, "why": (e[-1] if e else "timed out")[:120]}))' \
        "$name" "$logs/bench_$name.err" >> "$out/bench.json"
    fi
  done
  if [ $gpu = 1 ]; then
    record "$([ $bench_failed = 0 ] && echo passed || echo "incomplete")" "$((bench_run - bench_failed)) of $bench_run benches"
  else
    record skipped "no device: $((bench_run - bench_failed)) of $bench_run benches ran"
  fi
else record skipped "no build"; fi

step anchors
if [ $gpu = 1 ] && [ -f .gpu/anchors/anchors_gpu.py ]; then
  (cd .gpu/anchors && PYTHONUNBUFFERED=1 timeout "$(( $(left) * 3 / 5 ))" "$py" anchors_gpu.py) \
    > "$logs/anchors.log" 2>&1; rc1=$?
  (cd .gpu/anchors && PYTHONUNBUFFERED=1 timeout "$(left)" "$py" calib_gpu.py) > "$logs/calib.log" 2>&1; rc2=$?
  record "$([ $rc1 = 0 ] && [ $rc2 = 0 ] && echo passed || echo incomplete)" "anchors rc $rc1, calib rc $rc2"
else record skipped "$([ $gpu = 1 ] && echo 'no .gpu/anchors (prepare.sh)' || echo 'no device')"; fi

step compute-sanitizer
# Short cases only (SIMSCOPE_TEST_SANITIZER=1 shrinks the field cases): memcheck over every
# workload's CUDA paths, racecheck and synccheck over the kernels with shared memory or warp
# primitives (field tiles and tree leaves, lsq's warp Cholesky, the oscillators' block RK4).
san_note=""
san_status=passed
if [ $built = 1 ] && [ $gpu = 1 ] && command -v compute-sanitizer > /dev/null; then
  mem='FieldCuda.CoincidencesInTails:FieldCuda.TargetsPerThreadTails:FieldTreeCuda.RangesAndKeptTree:LsqCuda.ChunksAndReuse:LsqCudaMaps.UprightImageAndRowConcatOnTheDevice:LsqCudaMinNorm.*:LsqCudaDowndate.*:OscCuda.EveryForcedLayoutAgrees:OscDeviceStateCuda.*'
  shared='FieldCuda.TargetsPerThreadTails:LsqCudaMinNorm.*:OscCuda.EveryForcedLayoutAgrees'
  for tool in memcheck racecheck synccheck; do
    filter=$shared; [ $tool = memcheck ] && filter=$mem
    share=$(( $(left) / (tool == "memcheck" ? 2 : 1) )); [ $tool = racecheck ] && share=$(( $(left) * 2 / 3 ))
    SIMSCOPE_TEST_SANITIZER=1 timeout "$share" compute-sanitizer --tool $tool --error-exitcode 9 \
      "$b/tests/test_compute" --gtest_filter="$filter" > "$logs/sanitizer_$tool.log" 2>&1
    rc=$?
    if grep -q 'Device not supported' "$logs/sanitizer_$tool.log"; then r=unavailable
    elif [ $rc = 124 ]; then r=incomplete
    elif [ $rc = 0 ]; then r=clean
    else r="errors (rc $rc)"; san_status=failed; fi
    san_note+="$tool $r; "
  done
  record "$san_status" "$san_note"
else record skipped "$([ $gpu = 1 ] && [ $built = 1 ] && echo 'compute-sanitizer not found' || echo 'no device or no build')"; fi

step table
{
  echo "simscope GPU run, $(date -u '+%Y-%m-%d %H:%M UTC'), $(head -1 "$logs/machine.txt")"
  printf '%-34s %-11s %6s  %s\n' step status seconds note
  for r in "${results[@]}"; do
    IFS='|' read -r n s t note <<< "$r"
    printf '%-34s %-11s %6s  %s\n' "$n" "$s" "$t" "$note"
  done
  if [ -s "$out/bench.json" ]; then
    echo; echo "benches (bench.json):"
    "$py" - "$out/bench.json" <<'PY'
import json, sys
# The project's GPU targets (and the interop frame's), printed under each bench.
targets = {
    "field_cuda": ">= 2.5e12 pairs/s, exact fp32 at <= 1e-6 (anchor: tiled kernel 1.43e12)",
    "field_tree_cuda": "tree build + eval at 1e-5 (interactive: build <= 15 ms, eval <= 5 ms)",
    "lsq_cuda": "<= 5 ms for 250k px, M=100, N=50 (anchor: batched normal eq. 92 ms)",
    "lsq_cuda_seeds": "<= 1.5 ms with the downdate solver (anchor: cuSOLVER 36 ms)",
    "osc_single": "<= 0.25 s per 1e6 steps fp64 (anchor: fused block 0.61 s)",
    "osc_study": ">= 2e11 osc-steps/s fp64 (anchor: fused block 9.2e10)",
    "interop_2048": "PBO -> R32F texture 0.71 ms per frame (DESIGN section 3)",
}
for line in open(sys.argv[1]):
    try: d = json.loads(line)
    except ValueError: continue
    keys = ("pairs_per_s", "seconds", "seconds_per_1e6_steps", "osc_steps_per_s", "max_rel_error",
            "interop_seconds", "host_path_seconds", "host_seconds", "draw_seconds")
    line = "  ".join(f"{k} {d[k]:.3g}" for k in keys if isinstance(d.get(k), (int, float)))
    if isinstance(d.get("interop_seconds"), (int, float)): line += f"  path {d['interop_path']}"
    elif d.get("cuda_note"): line += f"  ({d['cuda_note']})"
    print(f"  {d.get('name', '?'):18}", line or f"incomplete: {d.get('why', '')}")
    if d.get("name") in targets: print(f"  {'':18}", "target:", targets[d["name"]])
PY
  fi
  echo "total $((SECONDS - start)) s of $total s"
} > "$out/summary.txt"
cat "$out/summary.txt"
cp "$out/summary.txt" "$logs/"
tar czf "$out/logs.tgz" -C /tmp simscope-gpu 2> /dev/null
record passed "$(ls "$out" | wc -l) files in \$OUT"
failed=0
for r in "${results[@]}"; do IFS='|' read -r _ s _ _ <<< "$r"; case "$s" in failed|"timed out") failed=1 ;; esac; done
if [ "$mode" = dry ]; then echo "dry run: done in $((SECONDS - start)) s (steps failed: $failed)"; fi
exit $failed
