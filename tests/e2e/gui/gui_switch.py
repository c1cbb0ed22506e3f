"""GUI under Xvfb, switching workloads with keys 1/2/3 (S screenshots carry what the window showed
in their PNG text: simscope.view, simscope.view_params, simscope.hover, simscope.status):
- each workload gets its own view back: field started with view.colormap=inferno keeps it after
  a visit to lsq (coolwarm, linear), and lsq gets its own hints on its first visit, before its
  first result too (visited while paused: the View panel's parameters are lsq's own, not the
  view's viridis / log defaults, and stay so when the result comes);
- the lsq hover readout names the pixel as the exported arrays index it: solution[k, h, w] is the
  value shown, h counts rows from the top (the upper point has the smaller h), and no flipped
  view index (j) is shown;
- no stale readout: after switching from lsq to oscillators the lsq pixel readout is gone.
Usage: gui_switch.py SIMSCOPE"""
import glob
import json
import os
import re
import sys

import numpy as np

from gui_util import (RESULT, after_log, export, hold, need_tools, png_size_and_text, run_gui,
                      screenshot)
from simscope_test_util import Checker, scratch

simscope = sys.argv[1]
c = Checker()
d = scratch("gui_switch")
need_tools("Xvfb", "xdotool")
# The centre view of a 1280 x 800 window spans x 410..987, y 0..742: its centre, and a point
# near the top of a square map.
cx, cy, top_y = 698, 371, 200


def switch(key, workload):
    # the key, then the switched-to workload's first full result in the log
    return after_log(f"simscope: {workload}{RESULT}", f"xdotool key {key}")


def hover(x, y):
    # the readout follows the mouse in the next frame: nothing to wait for but a short settle
    return f"xdotool mousemove {x} {y}; sleep 0.5\n"


# lsq's first visit while paused (Space): no result until Space again.
first_lsq = (hold("space") + "xdotool key 2; sleep 1\n" + screenshot() +
             after_log(f"simscope: lsq{RESULT}", hold("space")))
steps = (screenshot() + first_lsq + hover(cx, cy) + screenshot() + hover(cx, top_y) +
         screenshot() + export() + switch(3, "oscillators") + screenshot() +
         switch(1, "field") + hover(5, 795) + screenshot() + switch(2, "lsq") + screenshot())
log, shots = run_gui(simscope, d, ["--backend", "cpu", "--set", "grid.size=32",
                                   "--set", "view.colormap=inferno"], steps)
c.check(len(shots) == 7, f"7 screenshots ({len(shots)}; log tail {log.strip()[-400:]!r})")
if len(shots) < 7:
    c.done()
texts = [png_size_and_text(s)[1] for s in shots]
views = [json.loads(t["simscope.view"]) if "simscope.view" in t else {} for t in texts]
field0, lsq0, lsq1, lsq2, osc, field1, lsq3 = range(7)
c.check([texts[i]["simscope.workload"] for i in range(7)] ==
        ["field", "lsq", "lsq", "lsq", "oscillators", "field", "lsq"], "the workloads in turn")
pre = dict(kv.split("=", 1) for kv in texts[lsq0]["simscope.view_params"].splitlines()
           if "=" in kv)
# The second screenshot's log line comes before lsq's first result.
lines = log.splitlines()
shot_at = [i for i, l in enumerate(lines) if "saved screenshot " in l]
lsq_at = [i for i, l in enumerate(lines) if f"simscope: lsq{RESULT}" in l]
c.check(len(shot_at) > 1 and lsq_at and shot_at[1] < lsq_at[0] and
        "simscope.view" not in texts[lsq0],
        f"lsq's first visit, paused: no result shown yet (screenshots at log lines {shot_at}, "
        f"lsq results at {lsq_at}, view {texts[lsq0].get('simscope.view')!r})")
c.check(pre.get("view.colormap") == "coolwarm" and pre.get("view.scale") == "linear",
        f"lsq before its first result: its own view parameters, coolwarm / linear ({pre})")
c.check(texts[lsq1]["simscope.view_params"] == texts[lsq0]["simscope.view_params"],
        "lsq's first result leaves the view parameters the panel showed before it")
c.check(views[field0].get("colormap") == "inferno", f"field starts with inferno ({views[field0]})")
c.check(views[lsq1].get("colormap") == "coolwarm" and views[lsq1].get("scale") == "linear",
        f"lsq, first visit: its own hints, coolwarm / linear ({views[lsq1]})")
c.check(views[field1].get("colormap") == "inferno" and
        views[field1].get("scale") == views[field0].get("scale"),
        f"field again: its own view back ({views[field1]} after {views[field0]})")
c.check(texts[field1]["simscope.view_params"] == texts[field0]["simscope.view_params"],
        "field again: every view parameter as it was")
c.check(views[lsq3].get("colormap") == "coolwarm",
        f"lsq again: its view back ({views[lsq3]})")

# lsq readout against the exported arrays.
exports = sorted(glob.glob(os.path.join(d, "simscope-export-*", "solution.npy")))
c.check(len(exports) == 1, f"E exported the lsq result ({exports}; log {log.strip()[-300:]!r})")
pix = []
for i in (lsq1, lsq2):
    hover = texts[i].get("simscope.hover", "")
    m = re.search(r"x\[(\d+)\] = (\S+)\s+pixel h=(\d+) w=(\d+)", hover)
    c.check(m is not None, f"lsq hover readout names the pixel ({hover!r})")
    c.check("j=" not in hover and "i=" not in hover, f"no view indices in the readout ({hover!r})")
    if m:
        pix.append((int(m.group(1)), float(m.group(2)), int(m.group(3)), int(m.group(4))))
if len(pix) == 2:
    (_, _, h1, w1), (_, _, h2, w2) = pix
    c.check(h2 < h1 - 40 and abs(w2 - w1) <= 2,
            f"the upper point has the smaller h, the same w (h {h1} -> {h2}, w {w1} -> {w2})")
    c.check(abs(h1 - 128) < 30 and abs(w1 - 128) < 30,
            f"the view's centre is near pixel (128, 128) of the 256 x 256 map ({h1}, {w1})")
    if exports:
        sol = np.load(exports[0])
        for k, v, h, w in pix:
            ref = float(sol[k, h, w])
            c.check(abs(v - ref) <= 1e-5 * max(1.0, abs(ref)),
                    f"readout x[{k}] = {v} is solution[{k}, {h}, {w}] = {ref:.6g}")
c.check("pixel h=" not in texts[osc].get("simscope.hover", ""),
        f"oscillators: no stale lsq readout ({texts[osc].get('simscope.hover', '')!r})")
c.check("simscope.hover" not in texts[field1],
        f"no readout with the mouse off the view ({texts[field1].get('simscope.hover')!r})")
c.done()
