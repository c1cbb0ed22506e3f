"""GUI under Xvfb: Ctrl+Z / Ctrl+Shift+Z undo and redo parameter changes, preset loads included,
one history per workload. Two presets change k, then grid.size; each undo steps back one load,
redo forward; after a switch to lsq (nothing to undo there) and back (field at its defaults),
Ctrl+Z brings back field's parameters from before the switch. Checked in each screenshot's
simscope.params (and the log's messages). Usage: gui_undo.py SIMSCOPE"""
import json
import os
import re
import sys

from gui_util import RESULT, after_log, hold, need_tools, png_size_and_text, run_gui, screenshot
from simscope_test_util import Checker, scratch

simscope = sys.argv[1]
c = Checker()
d = scratch("gui_undo")
need_tools("Xvfb", "xdotool")
base = {"sources.count": 20, "grid.size": 32}
p1, p2 = os.path.join(d, "p1.json"), os.path.join(d, "p2.json")
json.dump({"simscope_preset": 1, "workload": "field", "params": dict(base, k=2)}, open(p1, "w"))
json.dump({"simscope_preset": 1, "workload": "field",
           "params": dict(base, k=2, **{"grid.size": 24})}, open(p2, "w"))


def load(path):
    # the popup opens in the next frame (a short settle), then the load's log line
    return ("xdotool key ctrl+o; sleep 0.7\n" + hold("ctrl+a") +
            f"xdotool type --delay 40 '{path}'; sleep 0.3\n" +
            after_log("loaded preset", hold("Return")))


def key(keys, line):
    # the keys, then the log line that says what they did
    return after_log(line, hold(keys))


shot = screenshot()
steps = ("xdotool mousemove 700 775; sleep 0.3\n" + load(p1) + load(p2) + shot +
         key("ctrl+z", "undo: ") + shot + key("ctrl+z", "undo: ") + shot +
         key("ctrl+z", "nothing to undo") + key("ctrl+shift+z", "redo: ") + shot +
         key("2", f"simscope: lsq{RESULT}") + key("ctrl+z", "nothing to undo") +
         key("1", f"simscope: field{RESULT}") + shot + key("ctrl+z", "undo: ") + shot)
args = ["--backend", "cpu", "--set", "sources.count=20", "--set", "grid.size=32"]
log, shots = run_gui(simscope, d, args, steps)
want = [("2", "24"), ("2", "32"), ("1", "32"), ("2", "32"), ("1", "128"), ("2", "32")]
c.check(len(shots) == len(want), f"{len(want)} screenshots ({len(shots)}; log {log[-400:]!r})")
for n, (path, (k, g)) in enumerate(zip(shots, want)):
    text = png_size_and_text(path)[1].get("simscope.params", "")
    got = dict(re.findall(r"(?:^|\s)(k|grid\.size)=(\S+)", text))
    c.check(got.get("grid.size") == g and float(got.get("k", "nan")) == float(k),
            f"screenshot {n}: k={k} grid.size={g} ({got})")
c.check("undo: grid.size" in log and "undo: k" in log and "redo: k" in log,
        "the status bar names what changed back")
# one at the start of field's history (a third Ctrl+Z), one in lsq's own
c.check(log.count("nothing to undo") == 2, "nothing before the start, nor in lsq's history")
c.done()
