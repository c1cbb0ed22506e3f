"""What the window shows cannot mislead, under Xvfb (one field window, one lsq window):
- view.range: the default percentile range is numpy's 0.5th..99.5th percentile of the shown
  values (the exported .npy), within 2x of the plane's 99.5th percentile although one source sits
  beside the plane; a preset's view.range=minmax draws the min and max; a signed component under
  coolwarm -m..m, m numpy's 99.5th percentile of |value|;
- parameters the run ignores are drawn disabled with their reason (the screenshot's
  simscope.disabled): the generator's settings while sources.file gives the sources, view.min and
  view.max while the range is not locked, lsq's view.component (drawn once) outside the solution
  view;
- each output its own default colormap: field ex coolwarm, back to magnitude viridis; lsq's
  solution coolwarm, its residual (>= 0) viridis, not the solution's diverging map;
- the status bar names the upload path in words (simscope.upload);
- Esc with the help window open, or in the preset popup's text field, leaves the window open;
  Ctrl+Q closes the window (exit 0, no signal).
Usage: gui_view_modes.py SIMSCOPE"""
import json
import os
import sys

import numpy as np

from gui_util import (RESULT, after_log, export, hold, need_tools, png_size_and_text, run_gui,
                      screenshot)
from simscope_test_util import Checker, plane_targets, scratch

simscope = sys.argv[1]
c = Checker()
d = scratch("gui_view_modes")
need_tools("Xvfb", "xdotool")

# The field: 2000 sources in [-1, 1]^3 and one 0.003 above a grid point of the plane z = 1.
rng = np.random.default_rng(750)
n, hw, off = 32, 1.2, 1.0
src = np.empty((2001, 4))
src[:2000, :3] = rng.uniform(-1, 1, (2000, 3))
src[:2000, 3] = rng.uniform(0.5, 1, 2000)
src[2000] = [*plane_targets("xy", off, n, hw)[7 * n + 20, :2], off + 0.003, 1.0]
np.save(os.path.join(d, "src.npy"), src.astype(np.float32))
for name, params, view in (("minmax", {}, {"view.range": "minmax"}),
                           ("ex", {"view": "ex"}, {"view.range": "percentile"}),
                           ("magnitude", {"view": "magnitude"}, {}),
                           ("residual", {"view": "residual"}, {})):
    json.dump({"simscope_preset": 1, "workload": "lsq" if name == "residual" else "field",
               "params": params, "view": view}, open(os.path.join(d, name + ".json"), "w"))


def load(name):
    """Ctrl+O, the preset's file name, Return: a step that waits for its "loaded preset" line and
    the result it brings (a loaded preset is computed again, also for a view change alone)."""
    return after_log(RESULT, "xdotool key ctrl+o; sleep 0.7\n" + hold("ctrl+a") +
                     f"xdotool type --delay 30 {name}.json; sleep 0.3\n" +
                     after_log("loaded preset", hold("Return"))) + "sleep 0.3\n"


# One export (after ex): every output, the magnitude as in the first screenshot (same parameters).
steps = (screenshot() + load("minmax") + screenshot() + load("ex") + screenshot() +
         export() + load("magnitude") + screenshot() +
         # Esc with the help window open, then in the preset popup's text field: the window stays
         # (the screenshot after); then Ctrl+Q closes the window.
         hold("F1") + "sleep 0.3\n" + hold("Escape") + "sleep 0.3\n" +
         "xdotool key ctrl+o; sleep 0.7\n" + hold("Escape") + "sleep 0.3\n" + screenshot() +
         after_log("Ctrl+Q: closing the window", hold("ctrl+q"), 20) + "sleep 1\n")
log, shots = run_gui(simscope, d, ["--backend", "cpu", "--set", "sources.file=src.npy",
                                   "--set", "plane=xy", "--set", f"plane.offset={off}",
                                   "--set", f"grid.size={n}", "--set", f"grid.half_width={hw}"],
                     steps)
c.check(len(shots) == 5, f"field: 5 screenshots ({len(shots)}; log tail {log.strip()[-400:]!r})")
exports = sorted(f for f in os.listdir(d) if f.startswith("simscope-export-"))
c.check(len(exports) == 1, f"field: 1 export ({exports})")
if len(shots) != 5 or len(exports) != 1:
    c.done()
texts = [png_size_and_text(s)[1] for s in shots]


def view(t):
    return json.loads(t.get("simscope.view", "{}"))


def close(a, b, rel=1e-6):
    return abs(a - b) <= rel * abs(b)


mag = np.load(os.path.join(d, exports[0], "magnitude.npy")).astype(np.float64)
pos = mag[np.isfinite(mag) & (mag > 0)]
p_lo, p_hi = np.percentile(pos, [0.5, 99.5])
v = view(texts[0])
lo, hi = v.get("range") or [0, 0]
c.check(v.get("colormap") == "viridis" and v.get("scale") == "log" and close(lo, p_lo) and
        close(hi, p_hi), f"percentile (default): {v} = numpy's [{p_lo:.7g}, {p_hi:.7g}]")
c.check(p_hi / 2 <= hi <= 2 * p_hi and pos.max() > 20 * p_hi,
        f"the range's top {hi:.4g} within 2x of the 99.5th percentile {p_hi:.4g}, far below the "
        f"spike {pos.max():.4g}")
disabled = texts[0].get("simscope.disabled", "")
for line in ("sources.count: not used: sources.file is set (settings of generated sources)",
             "sources.distribution: not used: sources.file is set",
             "view.min: not used: view.range=percentile", "view.max: not used: view.range="):
    c.check(line in disabled, f"disabled with the reason: {line!r} ({disabled!r})")
names = [line.split(":", 1)[0] for line in disabled.splitlines()]
c.check("grid.size" not in names and "sources.file" not in names and "plane" not in names,
        f"parameters in use stay enabled ({names})")
up = texts[0].get("simscope.upload", "")
c.check(up.startswith("upload: host copy to texture") or up.startswith("upload: CUDA-GL interop"),
        f"the status bar names the upload path in words ({up!r})")

v = view(texts[1])
lo, hi = v.get("range") or [0, 0]
c.check("view.range=minmax" in texts[1].get("simscope.view_params", "") and
        close(lo, pos.min()) and close(hi, pos.max()),
        f"minmax: [{lo:.7g}, {hi:.7g}] = the data's [{pos.min():.7g}, {pos.max():.7g}]")
c.check("view.min: not used: view.range=minmax" in texts[1].get("simscope.disabled", ""),
        f"minmax: view.min still disabled ({texts[1].get('simscope.disabled', '')!r})")

ex = np.load(os.path.join(d, exports[0], "ex.npy")).astype(np.float64)
m = np.percentile(np.abs(ex[np.isfinite(ex)]), 99.5)
v = view(texts[2])
lo, hi = v.get("range") or [0, 0]
c.check(v.get("output") == "ex" and v.get("colormap") == "coolwarm" and v.get("scale") == "linear"
        and close(lo, -m) and close(hi, m),
        f"ex: coolwarm over -m..m, m = numpy's 99.5th percentile of |Ex| {m:.7g} ({v})")
v = view(texts[3])
c.check(v.get("output") == "magnitude" and v.get("colormap") == "viridis" and
        v.get("scale") == "log", f"back to magnitude: its own default colormap and scale, "
        f"viridis, log ({v})")
c.check(view(texts[4]).get("output") == "magnitude",
        "Esc with the help window, then in the preset popup, did not close the window")
c.check(log.count("closing the window") == 1 and "simscope: Ctrl+Q: closing the window" in log,
        f"Ctrl+Q closed the window, before the test's SIGTERM "
        f"({[l for l in log.splitlines() if 'closing' in l]})")

# lsq: the solution (signed) under coolwarm, the residual (>= 0) under viridis.
steps = screenshot() + load("residual") + screenshot()
log, shots = run_gui(simscope, d, ["--backend", "cpu", "--workload", "lsq", "--set",
                                   "synth.height=32", "--set", "synth.width=48", "--set",
                                   "view=solution"], steps)
c.check(len(shots) == 2, f"lsq: 2 screenshots ({len(shots)}; log tail {log.strip()[-300:]!r})")
if len(shots) == 2:
    ta, tb = (png_size_and_text(s)[1] for s in shots)
    a, b = view(ta), view(tb)
    # view.component: drawn once (the View panel), used by the solution view only: disabled
    # there with the schema's reason in the residual view.
    da, db = ta.get("simscope.disabled", ""), tb.get("simscope.disabled", "")
    c.check("view.component" not in da, f"lsq solution: view.component enabled ({da!r})")
    want = ("view.component: not used: view is 'residual' (it picks the unknown x_k that the "
            "solution view shows)")
    c.check(db.count("view.component:") == 1 and want in db,
            f"lsq residual: view.component drawn once, disabled with its reason ({db!r})")
    c.check(a.get("output") == "solution" and a.get("colormap") == "coolwarm",
            f"lsq solution: coolwarm ({a})")
    c.check(b.get("output") == "residual" and b.get("colormap") == "viridis",
            f"lsq residual: its own sequential viridis, not the solution's coolwarm ({b})")
c.done()
