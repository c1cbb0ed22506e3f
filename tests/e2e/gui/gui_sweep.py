"""GUI under Xvfb: `simscope --sweep k=1:3:3` runs the sweep in the window once the first result
is in: simscope-sweep-<time>/frames/0000.png ... (each with its frame's k, all of the view's
size), run.json listing the frames, sweep.mp4 (ffprobe: 3 frames). Ctrl+Z afterwards undoes the
whole sweep in one step (k back to 1). Usage: gui_sweep.py SIMSCOPE"""
import json
import os
import re
import shutil
import subprocess
import sys

from gui_util import (after_log, hold, need_tools, png_size_and_text, run_gui, screenshot,
                      wait_log)
from simscope_test_util import Checker, scratch

simscope = sys.argv[1]
c = Checker()
d = scratch("gui_sweep")
need_tools("Xvfb", "xdotool")


steps = ("xdotool mousemove 700 775\n" + wait_log("sweep done", 1, 60) + screenshot() +
         after_log("undo: ", hold("ctrl+z")) + screenshot())
log, shots = run_gui(simscope, d, ["--backend", "cpu", "--set", "grid.size=32", "--set",
                                   "sources.count=20", "--sweep", "k=1:3:3"], steps)
m = re.search(r"sweep done: 3 frames( and sweep\.mp4)? .*in (\S+)", log)
c.check(m is not None, f"the sweep is done ({log[-400:]!r})")
if m:
    out = os.path.join(d, m.group(2))
    files = [os.path.join(out, "frames", f"{f:04d}.png") for f in range(3)]
    sizes = set()
    for f, k in zip(files, [1, 2, 3]):
        ok = os.path.exists(f)
        if ok:
            size, text = png_size_and_text(f)
            sizes.add(size)
            got = dict(re.findall(r"(?:^|\s)(k)=(\S+)", text.get("simscope.params", "")))
            ok = float(got.get("k", "nan")) == k
        c.check(ok, f"{os.path.basename(f)} with k = {k}")
    c.check(len(sizes) == 1 and min(next(iter(sizes))) > 100, f"frames of the view's size {sizes}")
    fr = json.load(open(os.path.join(out, "run.json")))["frames"]
    c.check([x["params"]["k"] for x in fr] == [1, 2, 3], "run.json lists the frames")
    if shutil.which("ffprobe"):
        probe = subprocess.run(["ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0",
                                "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0",
                                os.path.join(out, "sweep.mp4")], capture_output=True, text=True)
        c.check(probe.stdout.strip() == "3", f"sweep.mp4 has 3 frames ({probe.stdout.strip()!r})")
c.check(len(shots) == 2, f"2 screenshots ({len(shots)})")
if len(shots) == 2:
    ks = [dict(re.findall(r"(?:^|\s)(k)=(\S+)", png_size_and_text(p)[1].get("simscope.params", "")))
          .get("k") for p in shots]
    c.check([float(k) for k in ks] == [3, 1], f"k = 3 after the sweep, 1 after Ctrl+Z ({ks})")
c.done()
