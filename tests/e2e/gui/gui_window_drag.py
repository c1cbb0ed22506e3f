"""tests/bench/window_drag.py at a small size (20,000 sources, a 32 x 32 plane, 3 typed values,
a 2 s drag, 2 s idle) on an Xvfb of its own: its JSON has every field, with sane types and
values: each typed value came back as a result shown (the bench checks the window's line names
it), the milliseconds are positive, median <= max, the measured error of each typed value is
within the tolerance (the tree's error, measured after the frame). The timings themselves are
not checked here; tests/bench/NOTES.md has them. Usage: gui_window_drag.py SIMSCOPE"""
import json
import math
import os
import subprocess
import sys

from gui_util import need_tools, slowdown, xvfb_run
from simscope_test_util import Checker, scratch

simscope = sys.argv[1]
c = Checker()
d = scratch("gui_window_drag")
need_tools("Xvfb", "xdotool")
bench = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench",
                     "window_drag.py")
out = os.path.join(d, "drag.json")
cmd = [*xvfb_run(), sys.executable, bench, "--simscope", simscope, "--preset", "seed-field",
       "--set", "sources.count=20000", "--set", "grid.size=32", "--set", "method=tree",
       "--backend", "cpu", "--from", "-300", "--to", "300", "--steps", "3",
       "--drag-seconds", "2", "--idle-seconds", "2", "--pause", "0.1", "--out", out, "--keep"]
r = subprocess.run(cmd, capture_output=True, text=True, timeout=300 * slowdown())
c.check(r.returncode == 0, f"window_drag.py exit 0 (got {r.returncode}; {r.stderr.strip()[-800:]!r})")
try:
    j = json.load(open(out))
except (OSError, ValueError) as e:
    print(f"FAIL: no JSON from window_drag.py ({e}); stdout {r.stdout[-400:]!r}")
    sys.exit(1)


def number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


for key in ("first_image_s", "median_ms", "max_ms", "full_results_per_s", "idle_cpu_percent",
            "idle_seconds", "cpus"):
    c.check(number(j.get(key)) and j[key] >= 0, f"{key} is a number >= 0 ({j.get(key)!r})")
for key in ("cpu_model", "renderer", "simscope", "preset", "param", "display"):
    c.check(isinstance(j.get(key), str) and j[key] != "", f"{key} is a text ({j.get(key)!r})")
for key in ("loadavg_before", "loadavg_after"):
    v = j.get(key)
    c.check(isinstance(v, list) and len(v) == 3 and all(number(x) for x in v),
            f"{key} holds the three load averages ({v!r})")
steps = j.get("steps")
c.check(isinstance(steps, list) and [s.get("value") for s in steps] == [-300, 0, 300],
        f"the steps are the 3 values typed ({steps!r})")
for s in steps or []:
    c.check(number(s.get("ms")) and s["ms"] > 0, f"a step's ms is a number > 0 ({s!r})")
    c.check(number(s.get("eval_ms")) and number(s.get("compute_ms")),
            f"a step has its eval and compute ms from the window's line ({s!r})")
    c.check(number(s.get("rms_error")) and s["rms_error"] <= 1e-5,
            f"a step's measured error is within the tolerance 1e-5 ({s!r})")
if steps and all(number(s.get("ms")) for s in steps):
    ms = sorted(s["ms"] for s in steps)
    c.check(j.get("median_ms") == ms[1] and j.get("max_ms") == ms[-1],
            f"median_ms and max_ms are the steps' ({j.get('median_ms')}, {j.get('max_ms')}, {ms})")
# The window's own times of each step's path (SIMSCOPE_LATENCY_LOG, latency_log.hpp), in ms
# since the input it saw: in the order of the path, and the frame drawn no later than the bench
# saw its line, timed from before it sent the key (the same monotonic clock).
STAGES = ("submitted", "run_start", "run_end", "polled", "uploaded", "drawn")
for s in steps or []:
    w = s.get("window") or {}
    c.check(all(number(w.get(k)) for k in STAGES), f"a step has the window's stages ({s!r})")
    if all(number(w.get(k)) for k in STAGES):
        t = [w[k] for k in STAGES]
        c.check(all(a <= b for a, b in zip(t, t[1:])) and t[0] >= 0,
                f"the stages follow the path, from 0 ({w!r})")
        c.check(number(s.get("ms")) and w["drawn"] <= s["ms"] + 1,
                f"the frame was drawn before the bench saw its line ({s!r})")
c.check(isinstance(j.get("steps_window_median"), dict) and
        number(j["steps_window_median"].get("drawn")),
        f"steps_window_median holds the stages' medians ({j.get('steps_window_median')!r})")
drag = j.get("drag", {})
c.check(number(drag.get("seconds")) and drag["seconds"] >= 2,
        f"the drag lasted its 2 s ({drag!r})")
log = open(j["log"]).read() if os.path.exists(j.get("log", "")) else ""
c.check(isinstance(drag.get("full_results"), int) and drag["full_results"] >= 1,
        f"the drag showed results ({drag!r}; log tail {log[-1500:]!r})")
c.check("note" not in j, f"every result line named its value ({j.get('note')!r})")
sys.exit(c.done())
