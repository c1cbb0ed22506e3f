#!/usr/bin/env bash
# The GPU machine's check (issue: GPU verification), run THERE from the repository root after
# tests/gpu/prepare.sh ran here and .gpu was carried along. Builds compute + render + tests +
# bench with SIMSCOPE_APP=OFF for sm_90, runs the compute and render tests on the CUDA back end
# (CUDA-vs-CPU and the CUDA-GL interop upload through the EGL device platform), compute-sanitizer
# memcheck and racecheck over the CUDA tests, simscope-bench beside the anchor script, and prints
# a table last. Logs go to $OUT when set. Aim: well under 10 minutes.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
out="${OUT:-/tmp/simscope-gpu}"; mkdir -p "$out"
for f in .gpu/debs/*.deb; do dpkg -x "$f" /; done; ldconfig
if [ -f /usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json ]; then
  export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
fi
export PATH=/usr/local/cuda/bin:$PATH
step() { echo; echo "=== $* ($(date +%T))"; }

step configure
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DSIMSCOPE_APP=OFF \
  -DSIMSCOPE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DSIMSCOPE_GTEST_SOURCE="$root/.gpu/googletest" \
  -DSIMSCOPE_GLAD="env;PYTHONPATH=$root/.gpu/pylib;python3;-m;glad" \
  -DSIMSCOPE_STB_DIR="$root/.gpu/stb" > "$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
step build
cmake --build build-gpu -j "$(nproc)" > "$out/build.log" 2>&1 || { grep -E 'error' -A3 "$out/build.log" | head -60; exit 1; }

step "compute and render tests (CUDA back end)"
ctest --test-dir build-gpu -L 'compute|render' -j 4 --output-on-failure > "$out/ctest.log" 2>&1
tests_rc=$?
tail -25 "$out/ctest.log"
grep -E 'Skipped|\(Failed\)' "$out/ctest.log" | head -20

step "compute-sanitizer memcheck / racecheck over the CUDA tests"
san_rc=0
for tool in memcheck racecheck; do
  compute-sanitizer --tool $tool --error-exitcode 9 build-gpu/tests/test_compute \
    --gtest_filter='*Cuda*' > "$out/sanitizer_$tool.log" 2>&1 || san_rc=1
  tail -3 "$out/sanitizer_$tool.log"
done

step "simscope-bench"
B=build-gpu/tests/bench/simscope-bench
$B field --backend cuda --sources 8000000 --targets 80000 --repeat 5 | tee "$out/bench_field_cuda.json"
$B field --backend cuda --sources 8000000 --targets 80000 --precision fp64 --repeat 2 | tee "$out/bench_field_cuda_fp64.json"
$B lsq --backend cuda --precision fp32 --repeat 5 | tee "$out/bench_lsq_cuda.json"
$B lsq --backend cuda --precision fp64 --repeat 3 | tee "$out/bench_lsq_cuda_fp64.json"
$B oscillators --mode single --backend cuda --repeat 3 | tee "$out/bench_osc_single.json"
$B oscillators --mode study --backend cuda --members 100000 --steps 20000 --repeat 1 | tee "$out/bench_osc_study.json"

step "anchors (same call)"
if [ -f .gpu/anchors/anchors_gpu.py ]; then
  (cd .gpu/anchors && ANCHORS_JSON="$out/anchors_gpu.json" timeout 300 python3 anchors_gpu.py) > "$out/anchors.log" 2>&1
  grep ANCHOR "$out/anchors.log" | head -40
  (cd .gpu/anchors && timeout 120 python3 calib_gpu.py) > "$out/calib.log" 2>&1
  grep -E 'ANCHOR|CALIB|sl\.|lsq\.' "$out/calib.log" | head -20
fi

step "table"
python3 - "$out" <<'PY'
import json, os, sys
out = sys.argv[1]
def load(n):
    try: return json.load(open(os.path.join(out, n)))
    except Exception: return {}
a = load("anchors_gpu.json"); f = load("bench_field_cuda.json"); l = load("bench_lsq_cuda.json")
o1 = load("bench_osc_single.json"); o2 = load("bench_osc_study.json")
def anchor(k):
    v = a.get(k, {}); return v.get("value") if isinstance(v, dict) else None
# (workload, anchor name, anchor figure, simscope figure, target, met?, higher is better?)
rows = [
  ("field fp32 8e6x8e4", "field.cuda_tiled.pairs_per_s", anchor("field.cuda_tiled.pairs_per_s"),
   f.get("pairs_per_s"), 2.2e12, lambda s: s is not None and s >= 2.2e12 and f.get("max_rel_error", 1) <= 1e-6, True),
  ("lsq 250k px fp32 [s]", "lsq_masked.torch_batched_normal_s", anchor("lsq_masked.torch_batched_normal_s"),
   l.get("seconds"), 5e-3, lambda s: s is not None and s <= 5e-3, False),
  ("osc single [s/1e6]", "(JAX 7.4 s, fused 0.61 s)", 0.61, o1.get("seconds_per_1e6_steps"), 0.25,
   lambda s: s is not None and s <= 0.25, False),
  ("osc study [steps/s]", "(fused block 9.2e10)", 9.2e10, o2.get("osc_steps_per_s"), 1.7e11,
   lambda s: s is not None and s >= 1.7e11, True),
]
fmt = lambda x: f"{x:.3g}" if isinstance(x, (int, float)) else "-"
print(f"{'workload':22} {'anchor':34} {'anchor fig':>10} {'simscope':>10} {'speed-up':>8} {'target':>8} met")
for w, an, av, sv, t, ok, higher in rows:
    r = ((sv / av) if higher else (av / sv)) if (sv and av) else None
    print(f"{w:22} {an:34} {fmt(av):>10} {fmt(sv):>10} {fmt(r):>8} {fmt(t):>8} {'yes' if ok(sv) else 'NO'}")
print("field max_rel_error:", f.get("max_rel_error"), " lsq max_rel_error:", l.get("max_rel_error"))
PY
echo "tests rc=$tests_rc sanitizer rc=$san_rc"
exit $(( tests_rc != 0 || san_rc != 0 ))
