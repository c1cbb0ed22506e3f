#!/usr/bin/env bash
# The GPU machine's check (issue 5: GPU verification), run THERE from the repository root after
# tests/gpu/prepare.sh ran here and .gpu was carried along:
#   device run, carry [".gpu"], command `bash tests/gpu/run.sh`, timeout_s 600.
# Builds compute + render + tests + bench with SIMSCOPE_APP=OFF for sm_90; runs the compute and
# render tests on the CUDA back end (CUDA against the CPU back end, and the headless interop path:
# EGL device platform + a CUDA field plane in a GL buffer, exported .npy against the CPU's);
# simscope-bench for the three workloads, then the anchor scripts in the same call; then
# the run layer's tests and the Python module's CUDA tests (the same build, reconfigured with the
# carried nlohmann-json/pybind11); compute-sanitizer memcheck and racecheck over the CUDA tests;
# and prints the table last.
# Every step has a time limit taken from one deadline (RUN_SECONDS, default 560 s), so that the
# table is printed inside the device tool's 600 s. Logs go to $OUT (or /tmp/simscope-gpu).
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
out="${OUT:-/tmp/simscope-gpu}"; mkdir -p "$out"; export OUT="$out"
deadline=$((SECONDS + ${RUN_SECONDS:-560}))
left() { local l=$((deadline - SECONDS - ${1:-0})); echo $((l > 5 ? l : 5)); }
step() { echo; echo "=== $* (t=${SECONDS}s, $(left) s left)"; }

# The glvnd loaders (libEGL.so.1, libOpenGL.so.0) unless this machine has them already.
if ! ldconfig -p | grep -q 'libEGL.so.1 '; then
  for f in .gpu/debs/*.deb; do dpkg -x "$f" /; done; ldconfig
fi
if [ -f /usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json ]; then
  export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
fi
export PATH=/usr/local/cuda/bin:$PATH
py="$(command -v python3)"
nvidia-smi -L 2>&1 | head -2; nvcc --version | tail -2; echo "python3: $py"

step configure
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DSIMSCOPE_APP=OFF \
  -DSIMSCOPE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DSIMSCOPE_GTEST_SOURCE="$root/.gpu/googletest" \
  -DSIMSCOPE_GLAD="env;PYTHONPATH=$root/.gpu/pylib;$py;-m;glad" \
  -DSIMSCOPE_STB_DIR="$root/.gpu/stb" -DSIMSCOPE_VIEW_FONT="$root/.gpu/fonts/DejaVuSans.ttf" \
  -DSIMSCOPE_TEST_PYTHON="$py" \
  > "$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
step build
timeout "$(left 300)" cmake --build build-gpu -j "$(nproc)" > "$out/build.log" 2>&1 ||
  { grep -E 'error|Error' -A3 "$out/build.log" | head -60; tail -5 "$out/build.log"; exit 1; }

step "compute and render tests (CUDA back end)"
timeout "$(left 240)" ctest --test-dir build-gpu -L 'compute|render' -j 8 --timeout 120 \
  --output-on-failure > "$out/ctest.log" 2>&1
tests_rc=$?
grep -E 'tests passed|Total Test time' "$out/ctest.log"
grep -E '\(Failed\)|\(Timeout\)|\(SEGFAULT\)|Exception' "$out/ctest.log" | head -20
# On this machine nothing CUDA may skip: a skipped CUDA test is an unproven path.
skipped_re='Test +#[0-9]+: [^ ]*(Cuda|Interop|FieldPlane|Device)[^ ]* .*Skipped'
cuda_skips=$(grep -E "$skipped_re" "$out/ctest.log" | grep -cv WithoutDevice)  # those skip here
grep -E 'Test +#[0-9]+: .*Skipped' "$out/ctest.log" | head -20
echo "CUDA-related tests skipped: $cuda_skips"
# The interop path and the zero-copy upload, with their [ info ] lines.
timeout 60 build-gpu/tests/render/test_render --gtest_filter='*Interop*:*FieldPlane*:*DeviceUpload*' \
  > "$out/interop.log" 2>&1; interop_rc=$?
grep -E '\[ info \]|OK \]|FAILED|SKIPPED' "$out/interop.log" | head -12

step "field kernels with 2 and 8 targets per thread (SIMSCOPE_FIELD_CUDA_RB; ctest ran 4)"
rb_rc=0
for rb in 2 8; do
  SIMSCOPE_FIELD_CUDA_RB=$rb timeout "$(left 200)" build-gpu/tests/test_compute \
    --gtest_filter='Field/CudaVsCpu.*:FieldCuda.*:FieldRangesCuda.*:FieldDeviceInputsCuda.*' > "$out/field_rb$rb.log" 2>&1 || rb_rc=1
  echo "RB=$rb: $(grep -E '^\[  (PASSED|FAILED) ' "$out/field_rb$rb.log" | tr '\n' ' ')"
done

step "run layer and Python module on the CUDA back end (same build, reconfigured)"
# After the compute/render tests, so a configure failure here (e.g. pybind11 against this
# machine's Python) cannot cost them: the run layer's tests (field/lsq/oscillators through the
# adapters, device outputs) and the module's CUDA tests (pytest -k cuda; DLPack on the device).
runpy_rc=0
if [ -d .gpu/prefix ]; then
  pp="$root/.gpu/prefix"
  "$py" -c 'import pytest' 2> /dev/null || export PYTHONPATH="$root/.gpu/pytest${PYTHONPATH:+:$PYTHONPATH}"
  if cmake -S . -B build-gpu -DCMAKE_PREFIX_PATH="$pp" -DSIMSCOPE_PYTHON_EXECUTABLE="$py" \
       > "$out/configure_run.log" 2>&1 &&
     timeout "$(left 280)" cmake --build build-gpu -j "$(nproc)" --target test_run test_split_merge \
       > "$out/build_run.log" 2>&1; then
    timeout "$(left 260)" ctest --test-dir build-gpu -L run -j 8 --timeout 120 --output-on-failure \
      > "$out/ctest_run.log" 2>&1 || runpy_rc=1
    grep -E 'tests passed|\(Failed\)|\(Timeout\)' "$out/ctest_run.log" | head -10
  else
    runpy_rc=1; tail -15 "$out/configure_run.log" "$out/build_run.log" 2> /dev/null
  fi
  if timeout "$(left 250)" cmake --build build-gpu -j "$(nproc)" --target simscope_python \
       > "$out/build_python.log" 2>&1; then
    PYTHONPATH="$root/build-gpu/python${PYTHONPATH:+:$PYTHONPATH}" timeout "$(left 240)" \
      "$py" -m pytest -q -rs -p no:cacheprovider -k cuda tests/python > "$out/pytest_cuda.log" 2>&1
    rc=$?; [ $rc -ne 0 ] && runpy_rc=1
    tail -3 "$out/pytest_cuda.log"
    if grep -q 'SKIPPED' "$out/pytest_cuda.log"; then  # nothing CUDA may skip here
      grep 'SKIPPED' "$out/pytest_cuda.log" | head -5; runpy_rc=1
    fi
  else
    runpy_rc=1; grep -E 'error' -A3 "$out/build_python.log" | head -20
  fi
else
  echo "no .gpu/prefix: rerun tests/gpu/prepare.sh"; runpy_rc=1
fi

step "simscope-bench"
B=build-gpu/tests/bench/simscope-bench
bench() { local name=$1; shift; timeout 90 "$B" "$@" > "$out/$name.json" 2> "$out/$name.err";
          echo "$name: $(head -c 600 "$out/$name.json") $(tail -2 "$out/$name.err")"; }
bench bench_field_cuda field --backend cuda --sources 8000000 --targets 80000 --repeat 5
bench bench_field_cuda_fp64 field --backend cuda --sources 8000000 --targets 80000 --precision fp64 --repeat 1
bench bench_field_tree_cuda field --backend cuda --method tree --sources 8000000 --targets 80000 --repeat 5
bench bench_field_tree_cuda_z0 field --backend cuda --method tree --sources 8000000 --targets 80000 --plane-offset 0 --repeat 3
bench bench_lsq_cuda lsq --backend cuda --precision fp32 --repeat 5
bench bench_lsq_cuda_fp64 lsq --backend cuda --precision fp64 --repeat 3
bench bench_lsq_cuda_downdate lsq --backend cuda --method downdate --precision fp64 --repeat 5
bench bench_lsq_cuda_seeds lsq --backend cuda --method auto --observations 50 --unknowns 100 --repeat 5
bench bench_osc_single oscillators --mode single --backend cuda --repeat 3
bench bench_osc_study oscillators --mode study --backend cuda --members 100000 --steps 20000 --repeat 1

step "anchors (same call)"
if [ -f .gpu/anchors/anchors_gpu.py ]; then
  (cd .gpu/anchors && PYTHONUNBUFFERED=1 timeout "$(left 150)" "$py" anchors_gpu.py) > "$out/anchors.log" 2>&1
  grep -E 'ANCHOR|TOTAL_S' "$out/anchors.log" | cut -c1-150 | head -30
  (cd .gpu/anchors && PYTHONUNBUFFERED=1 timeout "$(left 120)" "$py" calib_gpu.py) > "$out/calib.log" 2>&1
  grep -E 'ANCHOR|CALIB|sl\.|lsq\.' "$out/calib.log" | cut -c1-150 | head -20
else
  echo "no .gpu/anchors: run tests/gpu/prepare.sh where ../shared/anchors exists"
fi

step "compute-sanitizer memcheck / racecheck over the CUDA tests"
san_rc=0
if command -v compute-sanitizer > /dev/null; then
  for tool in memcheck racecheck; do
    # memcheck gets half of what is left, racecheck the rest (each test binary run is capped).
    limit=$(left 20); [ $tool = memcheck ] && limit=$((limit / 2))
    SIMSCOPE_TEST_SANITIZER=1 timeout "$limit" compute-sanitizer --tool $tool --error-exitcode 9 \
      build-gpu/tests/test_compute --gtest_filter='*Cuda*' > "$out/sanitizer_$tool.log" 2>&1
    rc=$?; [ $rc -ne 0 ] && san_rc=1
    echo "$tool rc=$rc: $(grep -E 'ERROR SUMMARY|PASSED|FAILED' "$out/sanitizer_$tool.log" | tr '\n' ' ' | cut -c1-200)"
    [ $rc -eq 124 ] && echo "  time limit ($limit s) reached in: $(grep -E '^\[ RUN' "$out/sanitizer_$tool.log" | tail -1)"
  done
else
  echo "compute-sanitizer not found"; san_rc=1
fi

step "table"
"$py" - "$out" <<'PY'
import json, os, sys
out = sys.argv[1]
def load(n):
    try: return json.load(open(os.path.join(out, n)))
    except Exception: return {}
a = load("anchors.json"); c = load("calib.json")
f = load("bench_field_cuda.json"); l = load("bench_lsq_cuda.json")
o1 = load("bench_osc_single.json"); o2 = load("bench_osc_study.json")
def anchor(d, k, field="value"):
    v = d.get(k, {}); return v.get(field) if isinstance(v, dict) else None
tiled = anchor(a, "field.cuda_tiled.pairs_per_s")
jax1 = anchor(a, "sl.jax_fori.K1.float32.step_s")
fused1 = anchor(c, "sl.fused_block.sl64.K1", "s_per_1e6_steps")
fusedK = anchor(c, "sl.fused_block.sl64.K16384")
# (workload, anchor name, anchor figure, simscope figure, target, met?, higher is better?)
rows = [
  ("field fp32 [pairs/s]", "cuda_tiled (cupy)", tiled, f.get("pairs_per_s"), 2.2e12,
   lambda s: s is not None and s >= 2.2e12 and f.get("max_rel_error", 1) <= 1e-6, True),
  ("lsq 250k px fp32 [s]", "torch batched normal eq.", anchor(a, "lsq_masked.torch_batched_normal_s"),
   l.get("seconds"), 5e-3, lambda s: s is not None and s <= 5e-3, False),
  ("osc 1 net [s/1e6 st]", "jax fori fp32", jax1 * 1e6 if jax1 else None,
   o1.get("seconds_per_1e6_steps"), 0.25, lambda s: s is not None and s <= 0.25, False),
  ("osc 1 net [s/1e6 st]", "fused block fp64 (calib)", fused1,
   o1.get("seconds_per_1e6_steps"), 0.25, lambda s: s is not None and s <= 0.25, False),
  ("osc study [osc-st/s]", "fused block fp64 (calib)", fusedK, o2.get("osc_steps_per_s"), 1.7e11,
   lambda s: s is not None and s >= 1.7e11, True),
]
fmt = lambda x: f"{x:.3g}" if isinstance(x, (int, float)) else "-"
print(f"{'workload':21} {'anchor':25} {'anchor fig':>10} {'simscope':>10} {'ratio':>7} {'target':>8} met")
for w, an, av, sv, t, ok, higher in rows:
    r = ((sv / av) if higher else (av / sv)) if (sv and av) else None
    print(f"{w:21} {an:25} {fmt(av):>10} {fmt(sv):>10} {fmt(r):>7} {fmt(t):>8} {'yes' if ok(sv) else 'NO'}")
print("field max_rel_error:", f.get("max_rel_error"), " lsq max_rel_error:", l.get("max_rel_error"),
      " lsq first solve (with the cube's upload):", l.get("first_seconds"), "s")
PY
echo "tests rc=$tests_rc interop rc=$interop_rc field-rb rc=$rb_rc run/python rc=$runpy_rc cuda-skips=$cuda_skips sanitizer rc=$san_rc (t=${SECONDS}s)"
exit $(( tests_rc != 0 || interop_rc != 0 || rb_rc != 0 || runpy_rc != 0 || cuda_skips != 0 || san_rc != 0 ))
