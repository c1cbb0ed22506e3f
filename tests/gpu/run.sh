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

step "anchors (same call)"
if [ -f .gpu/anchors/anchors_gpu.py ]; then
  (cd .gpu/anchors && ANCHORS_JSON="$out/anchors_gpu.json" timeout 300 python3 anchors_gpu.py) > "$out/anchors.log" 2>&1
  grep ANCHOR "$out/anchors.log" | head -40
fi

step "table"
python3 - "$out" <<'PY'
import json, os, sys
out = sys.argv[1]
def load(n):
    try: return json.load(open(os.path.join(out, n)))
    except Exception: return {}
a = load("anchors_gpu.json"); f = load("bench_field_cuda.json")
def anchor(k):
    v = a.get(k, {}); return v.get("value") if isinstance(v, dict) else None
rows = [("field fp32 8e6x8e4", "field.cuda_tiled.pairs_per_s", anchor("field.cuda_tiled.pairs_per_s"),
         f.get("pairs_per_s"), 2.2e12, lambda s: s is not None and s >= 2.2e12 and f.get("max_rel_error", 1) <= 1e-6)]
print(f"{'workload':22} {'anchor':32} {'anchor fig':>12} {'simscope':>12} {'ratio':>7} {'target':>10} met")
for w, an, av, sv, t, ok in rows:
    r = (sv / av) if (sv and av) else None
    fmt = lambda x: f"{x:.3g}" if isinstance(x, (int, float)) else "-"
    print(f"{w:22} {an:32} {fmt(av):>12} {fmt(sv):>12} {fmt(r):>7} {fmt(t):>10} {'yes' if ok(sv) else 'NO'}")
print("field max_rel_error:", f.get("max_rel_error"))
PY
echo "tests rc=$tests_rc sanitizer rc=$san_rc"
exit $(( tests_rc != 0 || san_rc != 0 ))
