"""GUI shortcuts under Xvfb: every quick key tap counts. xdotool sends each press and its release
back to back, so both usually arrive between two frames; Dear ImGui 1.86 alone loses such taps
(it only sees the key-down state per frame), the window's KeyPresses queue must not. Taps 'S'
(screenshot) N times, the last 4 in one xdotool call (12 ms apart: several inside one frame),
and counts the "saved screenshot" lines and the files (several a second: each gets its own
name), then taps 'E' (export) 3 times in one call: 3 folders.
Usage: gui_keys.py SIMSCOPE"""
import os
import sys

from gui_util import need_tools, run_gui
from simscope_test_util import Checker, scratch

simscope = sys.argv[1]
c = Checker()
d = scratch("gui_keys")
need_tools("xvfb-run", "xdotool")
taps = 12
steps = f"""
for i in $(seq 1 {taps - 4}); do xdotool key s; sleep 0.25; done
xdotool key s s s s
sleep 1
xdotool key e e e
sleep 2
"""
out, _ = run_gui(simscope, d, ["--backend", "cpu", "--set", "grid.size=32"], steps)
saved = out.count("saved screenshot")
c.check(saved == taps, f"{taps} taps of S, {saved} screenshots (log tail: {out.strip()[-300:]!r})")
pngs = [f for f in os.listdir(d) if f.startswith("simscope-") and f.endswith(".png")]
c.check(len(pngs) == taps, f"{taps} screenshot files, none overwritten ({sorted(pngs)})")
exports = [f for f in os.listdir(d) if f.startswith("simscope-export-") and
           os.path.exists(os.path.join(d, f, "run.json"))]
c.check(out.count("exported ") == 3 and len(exports) == 3,
        f"3 taps of E, 3 export folders ({sorted(exports)})")
c.done()
