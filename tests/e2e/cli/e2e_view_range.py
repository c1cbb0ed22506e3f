"""view.range's modes on a plane with one source right beside it (as the seed case's plane at
offset 750, at the cloud's face): the default percentile range lies within 2x of the plane's
99.5th percentile (it is numpy's 0.5th..99.5th percentile of the drawn values), where minmax
reaches the one spike; sweep frames use the same rule (their planes computed here in float64);
a preset saved with the old "view.range": "auto" draws the min/max range it drew then.
Checked from run.json's render.view and view.png's text chunk against numpy on magnitude.npy.
Usage: e2e_view_range.py SIMSCOPE"""
import json
import os
import sys

import numpy as np

from simscope_test_util import (Checker, field_reference, plane_targets, read_png, run,
                                scratch)

simscope = sys.argv[1]
c = Checker()
d = scratch("e2e_view_range")
rng = np.random.default_rng(750)
n, hw, off = 32, 1.2, 1.0
src = np.empty((2001, 4))
src[:2000, :3] = rng.uniform(-1, 1, (2000, 3))
src[:2000, 3] = rng.uniform(0.5, 1, 2000)
# The one source beside the plane z = 1: 0.003 above the grid point (7, 20).
tg = plane_targets("xy", off, n, hw)
src[2000] = [*tg[7 * n + 20, :2], off + 0.003, 1.0]
np.save(os.path.join(d, "src.npy"), src.astype(np.float32))
common = ["--headless", "--backend", "cpu", "--set", f"sources.file={d}/src.npy", "--set",
          "plane=xy", "--set", f"grid.size={n}", "--set", f"grid.half_width={hw}",
          "--set", "view=magnitude"]


def headless(name, *extra):
    out = os.path.join(d, name)
    p = run(simscope, "--out-dir", out, *common, *extra)
    c.check(p.returncode == 0, f"{name}: simscope exits 0 ({p.stderr.strip()[-300:]!r})")
    if p.returncode != 0:
        c.done()
    view = json.load(open(os.path.join(out, "run.json"))).get("render", {}).get("view", {})
    _, text = read_png(os.path.join(out, "view.png"))
    c.check(json.loads(text.get("simscope.view", "{}")) == view,
            f"{name}: view.png's simscope.view is run.json's render.view")
    mag = np.load(os.path.join(out, "magnitude.npy")).astype(np.float64)
    return view, mag[np.isfinite(mag) & (mag > 0)]  # the log scale draws the positive values


def close(a, b, rel=1e-6):
    return abs(a - b) <= rel * abs(b)


# The default: percentile, the values' 0.5th and 99.5th percentiles (log scale: of those > 0).
view, pos = headless("default", "--set", f"plane.offset={off}")
p_lo, p_hi = np.percentile(pos, [0.5, 99.5])
lo, hi = view.get("range") or [0, 0]
c.check(view.get("scale") == "log" and close(lo, p_lo) and close(hi, p_hi),
        f"percentile: range [{lo:.7g}, {hi:.7g}] = numpy's percentiles [{p_lo:.7g}, {p_hi:.7g}]")
c.check(p_hi / 2 <= hi <= 2 * p_hi and p_lo / 2 <= lo <= 2 * p_lo,
        f"percentile: the colour range lies within 2x of the plane's 0.5th..99.5th percentile")
# The case has its spike: the max is far above the 99.5th percentile.
c.check(pos.max() > 20 * p_hi, f"the source beside the plane: max {pos.max():.4g} > 20 x the "
        f"99.5th percentile {p_hi:.4g}")

# minmax: the old automatic range, stretched by the spike.
view, pos = headless("minmax", "--set", f"plane.offset={off}", "--set", "view.range=minmax")
lo, hi = view.get("range") or [0, 0]
c.check(close(lo, pos.min()) and close(hi, pos.max()),
        f"minmax: range [{lo:.7g}, {hi:.7g}] = the data's [{pos.min():.7g}, {pos.max():.7g}]")

# A linear scale: percentiles of every finite value.
view, _ = headless("linear", "--set", f"plane.offset={off}", "--set", "view.scale=linear")
mag = np.load(os.path.join(d, "linear", "magnitude.npy")).astype(np.float64)
p_lo, p_hi = np.percentile(mag[np.isfinite(mag)], [0.5, 99.5])
lo, hi = view.get("range") or [0, 0]
c.check(view.get("scale") == "linear" and close(lo, p_lo) and close(hi, p_hi),
        f"linear percentile: [{lo:.7g}, {hi:.7g}] = numpy's [{p_lo:.7g}, {p_hi:.7g}]")

# A preset saved before view.range=percentile ("auto") draws as minmax, what it drew then.
preset = os.path.join(d, "old.json")
json.dump({"simscope_preset": 1, "workload": "field", "params": {"plane.offset": off},
           "view": {"view.range": "auto"}}, open(preset, "w"))
view, pos = headless("legacy", "--preset", preset)
lo, hi = view.get("range") or [0, 0]
c.check(close(lo, pos.min()) and close(hi, pos.max()),
        f"preset with view.range=auto: the min/max range [{lo:.7g}, {hi:.7g}]")

# Sweep frames: each its own percentile range, against numpy's float64 plane (fp32 sums: 1e-4).
out = os.path.join(d, "sweep")
p = run(simscope, "--out-dir", out, *common, "--sweep", f"plane.offset=0.5:{off}:2")
c.check(p.returncode == 0, f"sweep exits 0 ({p.stderr.strip()[-300:]!r})")
frames = json.load(open(os.path.join(out, "run.json"))).get("frames", []) if p.returncode == 0 else []
c.check(len(frames) == 2, f"sweep: 2 frames ({len(frames)})")
for f in frames:
    e, _ = field_reference(src.astype(np.float32).astype(np.float64), 1.0, 0.0,
                           plane_targets("xy", f["value"], n, hw))
    m = np.sqrt((e * e).sum(1))
    r_lo, r_hi = np.percentile(m[m > 0], [0.5, 99.5])
    lo, hi = f.get("view", {}).get("range") or [0, 0]
    c.check(close(lo, r_lo, 1e-4) and close(hi, r_hi, 1e-4),
            f"sweep frame at offset {f['value']}: range [{lo:.6g}, {hi:.6g}] = numpy's float64 "
            f"percentiles [{r_lo:.6g}, {r_hi:.6g}]")
c.done()
