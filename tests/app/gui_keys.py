"""GUI shortcuts under Xvfb: every quick key tap counts. xdotool sends each press and its release
back to back, so both usually arrive between two frames; Dear ImGui 1.86 alone loses such taps
(it only sees the key-down state per frame), the window's KeyPresses queue must not. Taps 'S'
(screenshot) N times, the last 4 in one xdotool call (12 ms apart: several inside one frame),
and counts the "saved screenshot" lines and the files (several a second: each gets its own
name), then taps 'E' (export) 3 times in one call: 3 folders.
Usage: gui_keys.py SIMSCOPE"""
import os
import shutil
import subprocess
import sys

from simscope_test_util import Checker, scratch

simscope = sys.argv[1]
c = Checker()
d = scratch("gui_keys")
for tool in ("xvfb-run", "xdotool"):
    if shutil.which(tool) is None:
        print(f"{tool} not found: install xvfb and xdotool"); sys.exit(1)
env = dict(os.environ, HOME=d, XDG_CONFIG_HOME=d)  # fresh QSettings
log = os.path.join(d, "gui.log")
taps = 12
script = f"""
"{simscope}" --backend cpu --set grid.size=32 > "{log}" 2>&1 &
pid=$!
for i in $(seq 1 150); do xdotool search --name '^simscope' > /dev/null 2>&1 && break; sleep 0.2; done
sleep 3
for i in $(seq 1 {taps - 4}); do xdotool key s; sleep 0.25; done
xdotool key s s s s
sleep 1
xdotool key e e e
sleep 2
kill $pid; wait $pid
"""
p = subprocess.run(["xvfb-run", "-a", "-s", "-screen 0 1280x800x24", "sh", "-c", script],
                   capture_output=True, text=True, timeout=300, env=env, cwd=d)
out = open(log).read() if os.path.exists(log) else ""
saved = out.count("saved screenshot")
c.check(saved == taps, f"{taps} taps of S, {saved} screenshots (log tail: {out.strip()[-300:]!r})")
pngs = [f for f in os.listdir(d) if f.startswith("simscope-") and f.endswith(".png")]
c.check(len(pngs) == taps, f"{taps} screenshot files, none overwritten ({sorted(pngs)})")
exports = [f for f in os.listdir(d) if f.startswith("simscope-export-") and
           os.path.exists(os.path.join(d, f, "run.json"))]
c.check(out.count("exported ") == 3 and len(exports) == 3,
        f"3 taps of E, 3 export folders ({sorted(exports)})")
c.done()
