"""GUI under Xvfb: `simscope --workload oscillators --record 4` records the live phase view's next
4 frames into simscope-record-<time>/frames/0000.png ... 0003.png (all of the view's size), with
run.json listing each frame's parameters and stats (its integrator step increases from frame to
frame) and sweep.mp4 (ffprobe: 4 frames). Bad --record values are refused. Usage: gui_record.py
SIMSCOPE"""
import json
import os
import re
import shutil
import subprocess
import sys

from gui_util import need_tools, png_size_and_text, run_gui, wait_log
from simscope_test_util import Checker, run, scratch

simscope = sys.argv[1]
c = Checker()
d = scratch("gui_record")
need_tools("Xvfb", "xdotool")
steps = wait_log("recording done", 1, 60)
log, _ = run_gui(simscope, d, ["--backend", "cpu", "--workload", "oscillators", "--set",
                               "ensemble.size=8", "--set", "network.nodes=30", "--record", "4"],
                 steps)
m = re.search(r"recording done: 4 frames( and sweep\.mp4)? .*in (\S+)", log)
c.check(m is not None, f"the recording is done ({log[-400:]!r})")
if m:
    out = os.path.join(d, m.group(2))
    names = sorted(os.listdir(os.path.join(out, "frames")))
    c.check(names == [f"{k:04d}.png" for k in range(4)], f"4 frames ({names})")
    sizes = {png_size_and_text(os.path.join(out, "frames", n))[0] for n in names}
    c.check(len(sizes) == 1 and min(next(iter(sizes))) > 100, f"of the view's size {sizes}")
    fr = json.load(open(os.path.join(out, "run.json")))["frames"]
    steps_ = [x["stats"].get("step") for x in fr]
    c.check(len(fr) == 4 and all(b > a for a, b in zip(steps_, steps_[1:])),
            f"run.json: the integrator steps increase ({steps_})")
    c.check(all(x["params"]["network.nodes"] == 30 for x in fr), "with the frames' parameters")
    if shutil.which("ffprobe"):
        probe = subprocess.run(["ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0",
                                "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0",
                                os.path.join(out, "sweep.mp4")], capture_output=True, text=True)
        c.check(probe.stdout.strip() == "4", f"sweep.mp4 has 4 frames ({probe.stdout.strip()!r})")
for args, words in [(["--record", "0"], "--record expects a number of frames"),
                    (["--record", "x"], "--record expects a number of frames"),
                    (["--headless", "--record", "3"], "not with --headless")]:
    p = run(simscope, *args)
    c.check(p.returncode == 2 and words in p.stderr, f"{args}: {p.stderr.strip()!r}")
c.done()
