#!/usr/bin/env bash
# lsq (issue 17) in one shell: the numpy anchor (batched normal equations on OpenBLAS, the lsq part
# of ../shared/anchors/anchors_cpu.py), then simscope-bench lsq on the targets' cases (500 x 500
# pixels: M 100 x N 50 at 20 % NaN in fp64 and fp32, the seeds' M 50 x N 100 in fp64 and fp32,
# 5 % and 60 % gaps beside method normal), each line with the machine's load; then one table.
# Run it on a quiet machine (check `uptime`): the targets are wall-clock figures.
#   OUT=dir (default /tmp/lsq_side_by_side)  BENCH=path (default build/tests/bench/simscope-bench)
#   BASE_BENCH=path: also run a second simscope-bench (e.g. main's, before a change) after each
#   case, for a before/after column.  ANCHOR=0: skip the numpy anchor (~25 s).
#   PINV=0: skip seed 003's gap-free case beside numpy's pinv(A) @ B (lsq_seed_pinv.py, through
#   the Python module of build/python; BASE_PYTHONPATH=dir: also the module there, e.g. main's).
#   PATTERNS=0: skip the shared-pattern cases (lsq_patterns.py: M 100 x N 50, gap-free beside the
#   same 20 frames missing everywhere, 8 cloud-mask patterns and 20 % random NaN; the Python
#   module of build/python, and of BASE_PYTHONPATH when set).
set -u
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
B=${BENCH:-build/tests/bench/simscope-bench}
OUT=${OUT:-/tmp/lsq_side_by_side}
mkdir -p "$OUT"
[ -x "$B" ] || { echo "lsq_side_by_side.sh: $B not found: build first (./simscope.sh build)" >&2; exit 2; }
load() { cut -d' ' -f1 /proc/loadavg; }
if [ "${ANCHOR:-1}" != 0 ]; then
  anchors="$root/../shared/anchors/anchors_cpu.py"
  echo "== numpy anchor load=$(load) $(date +%T)"
  if [ -f "$anchors" ]; then
    /usr/bin/python3 -c "
src = open('$anchors').read()
exec(compile(src[:src.index('# field: numpy broadcast')] + src[src.index('# masked least squares'):src.index('# Stuart-Landau')], 'anchors_cpu.py (lsq part)', 'exec'))" \
      > "$OUT/numpy_anchor.txt" 2>&1 || echo "(the anchor failed: $OUT/numpy_anchor.txt)"
    echo "load_after=$(load)" >> "$OUT/numpy_anchor.txt"
    cat "$OUT/numpy_anchor.txt"
  else
    echo "(anchor not run: $anchors missing)"
  fi
fi
if [ "${PINV:-1}" != 0 ]; then
  echo "== seed 003 beside numpy pinv load=$(load) $(date +%T)"
  PYTHONPATH="$root/build/python" /usr/bin/python3 "$root/tests/bench/lsq_seed_pinv.py" \
    2>&1 | tee "$OUT/seed_pinv.txt"
  if [ -n "${BASE_PYTHONPATH:-}" ]; then
    echo "== (base: $BASE_PYTHONPATH)"
    PYTHONPATH="$BASE_PYTHONPATH" /usr/bin/python3 "$root/tests/bench/lsq_seed_pinv.py" \
      2>&1 | tee "$OUT/seed_pinv.base.txt"
  fi
fi
if [ "${PATTERNS:-1}" != 0 ]; then
  echo "== shared missing-row patterns load=$(load) $(date +%T)"
  PYTHONPATH="$root/build/python" /usr/bin/python3 "$root/tests/bench/lsq_patterns.py" \
    2>&1 | tee "$OUT/patterns.txt"
  if [ -n "${BASE_PYTHONPATH:-}" ]; then
    echo "== (base: $BASE_PYTHONPATH)"
    PYTHONPATH="$BASE_PYTHONPATH" /usr/bin/python3 "$root/tests/bench/lsq_patterns.py" \
      2>&1 | tee "$OUT/patterns.base.txt"
  fi
fi
cases=(
  "auto_fp64|--method auto"
  "auto_fp32|--method auto --precision fp32"
  "seeds_fp64|--method auto --observations 50 --unknowns 100"
  "seeds_fp32|--method auto --observations 50 --unknowns 100 --precision fp32"
  "downdate_fp64|--method downdate"
  "normal_fp64|--method normal"
  "gaps5_auto|--method auto --nan-fraction 0.05"
  "gaps5_normal|--method normal --nan-fraction 0.05"
  "gaps60_auto|--method auto --nan-fraction 0.6"
)
for c in "${cases[@]}"; do
  name=${c%%|*}
  args=${c#*|}
  echo "== $name load=$(load) $(date +%T)"
  # shellcheck disable=SC2086
  "$B" lsq $args > "$OUT/$name.json" 2> "$OUT/$name.err"
  echo "load_after=$(load)" >> "$OUT/$name.err"
  if [ -n "${BASE_BENCH:-}" ]; then
    # shellcheck disable=SC2086
    "$BASE_BENCH" lsq $args > "$OUT/$name.base.json" 2> "$OUT/$name.base.err"
  fi
done
/usr/bin/python3 - "$OUT" "${cases[@]}" <<'EOF'
import json, os, re, sys
out, cases = sys.argv[1], [c.split('|')[0] for c in sys.argv[2:]]
anchor = None
p = os.path.join(out, 'numpy_anchor.txt')
if os.path.exists(p):
    m = re.search(r'numpy_batched_normal_s ([0-9.eE+-]+)', open(p).read())
    anchor = float(m.group(1)) if m else None
def load(name):
    try:
        return json.load(open(os.path.join(out, name)))
    except (OSError, ValueError):
        return None
print('| case | seconds (min) | cpu_seconds | x anchor | max rel error | paths | before (base) |')
print('|---|---|---|---|---|---|---|')
for c in cases:
    d = load(c + '.json')
    if d is None:
        print(f'| {c} | failed: see {out}/{c}.err | | | | | |')
        continue
    paths = ', '.join(f'{d[k]:,} {k[:-7]}' for k in ('downdate_pixels', 'minnorm_pixels', 'fallback_pixels') if d.get(k))
    ratio = f"{anchor / d['seconds']:.0f}x" if anchor and c.startswith(('auto_fp', 'downdate', 'normal_fp64')) else ''
    b = load(c + '.base.json')
    before = f"{b['seconds']:.3f} s ({b['cpu_seconds']:.3f} CPU-s)" if b else ''
    print(f"| {c} | {d['seconds']:.3f} ({d['seconds_min']:.3f}) | {d['cpu_seconds']:.3f} | {ratio} | {d['max_rel_error']:.2g} | {paths or 'Gram'} | {before} |")
if anchor:
    print(f'numpy anchor (M 100, N 50, 20 %, 250,000 pixels): {anchor:.1f} s')
EOF
echo "== done $(date +%T) load=$(load)"
