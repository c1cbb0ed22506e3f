"""GUI under Xvfb: a click on the plane probes every output at that sample (the screenshot's
simscope.probe against the exported .npy at the sample it names); a drag with Shift draws a line,
opens the profile plot, and P saves its CSV, checked against numpy's bilinear interpolation of the
exported .npy at the CSV's coordinates. Usage: gui_probe.py SIMSCOPE"""
import os
import re
import sys

import numpy as np

from gui_util import after_log, export, hold, need_tools, png_size_and_text, run_gui, screenshot
from simscope_test_util import Checker, scratch

simscope = sys.argv[1]
c = Checker()
d = scratch("gui_probe")
need_tools("Xvfb", "xdotool")
n, hw = 40, 1.5


# The centre view of a 1280x800 window spans x 410..987, y 0..742; the image is square inside it.
# The click and the drag log nothing (the probe and the profile show in the next frames: short
# settles); P, E and S wait for their lines.
steps = (
    "xdotool mousemove 620 380; sleep 0.3; xdotool mousedown 1; sleep 0.15; xdotool mouseup 1;"
    " sleep 0.6\n"
    # the drag: Shift is tapped while the button is held (any frame with Shift makes a line)
    "xdotool mousemove 540 300; sleep 0.3; xdotool mousedown 1; sleep 0.15;"
    " xdotool keydown shift; sleep 0.12; xdotool keyup shift; sleep 0.1;"
    " xdotool mousemove 600 360; sleep 0.15; xdotool mousemove 700 470; sleep 0.3;"
    " xdotool mouseup 1; sleep 0.5\n"
    "xdotool mousemove 1100 700; sleep 0.3\n" + after_log("saved profile", hold("p")) + export() +
    screenshot())
log, shots = run_gui(simscope, d, ["--backend", "cpu", "--set", f"grid.size={n}",
                                   "--set", f"grid.half_width={hw}", "--set", "sources.count=30",
                                   "--set", "plane.offset=0.2"], steps)
c.check(len(shots) == 1, f"1 screenshot ({len(shots)}; log tail {log.strip()[-400:]!r})")
m_csv = re.search(r"saved profile (\S+)", log)
m_exp = re.search(r"exported \d+ files to (\S+)", log)
c.check(m_csv is not None and m_exp is not None, f"profile CSV and export saved ({log[-300:]!r})")
if shots and m_exp:
    exp = os.path.join(d, m_exp.group(1))
    names = ["magnitude", "ex", "ey", "ez", "potential"]
    arrays = {k: np.load(os.path.join(exp, k + ".npy")) for k in names}
    text = png_size_and_text(shots[0])[1]
    probe = text.get("simscope.probe", "")
    m = re.search(r"\[i=(\d+) j=(\d+)\]", probe)
    c.check(m is not None, f"the screenshot names the probed sample ({probe!r})")
    if m:
        i, j = int(m.group(1)), int(m.group(2))
        xs = np.linspace(-hw, hw, n)
        coords = dict(re.findall(r"(\w)=(-?[\d.e+-]+)", probe))
        c.check(abs(float(coords["x"]) - xs[i]) < 1e-5 and abs(float(coords["y"]) - xs[j]) < 1e-5
                and abs(float(coords["z"]) - 0.2) < 1e-6, f"probe coordinates {coords}")
        lines = dict(re.findall(r"(\w+) = (\S+)", probe))
        c.check(sorted(lines) == sorted(names), f"every output in the probe ({sorted(lines)})")
        for k in names:
            if k in lines:
                ref = float(arrays[k][i, j])
                c.check(abs(float(lines[k]) - ref) <= 1e-6 * max(abs(ref), 1e-30),
                        f"probe {k} = {lines[k]} = {k}.npy[{i}, {j}] = {ref:.7g}")
    prof = text.get("simscope.profile", "")
    c.check(prof.startswith("magnitude:") and "points" in prof, f"the profile is shown ({prof!r})")
if m_csv and m_exp:
    lines = open(os.path.join(d, m_csv.group(1))).read().splitlines()
    header = lines[0].split(",")
    t = np.array([[float(v) for v in line.split(",")] for line in lines[1:]])
    h = dict(zip(header, t.T))
    c.check(header == ["distance", "x", "y", "z"] + names, f"CSV header {header}")
    c.check(len(t) >= 10, f"a line across several samples ({len(t)} points)")
    fi = (h["x"] + hw) / (2 * hw) * (n - 1)
    fj = (h["y"] + hw) / (2 * hw) * (n - 1)
    # one point per grid spacing along the line (the last may be closer)
    step = np.hypot(np.diff(fi), np.diff(fj))
    c.check(np.all(step <= 1 + 1e-6) and np.allclose(step, step[0]), "points <= 1 sample apart")
    c.check(np.allclose(h["distance"], np.hypot(h["x"] - h["x"][0], h["y"] - h["y"][0])),
            "distance from the start")
    for k in names:
        a = arrays[k].astype(np.float64)
        i0 = np.minimum(np.floor(fi).astype(int), n - 2)
        j0 = np.minimum(np.floor(fj).astype(int), n - 2)
        ti, tj = fi - i0, fj - j0
        ref = ((1 - ti) * (1 - tj) * a[i0, j0] + ti * (1 - tj) * a[i0 + 1, j0] +
               (1 - ti) * tj * a[i0, j0 + 1] + ti * tj * a[i0 + 1, j0 + 1])
        c.check(np.abs(h[k] - ref).max() <= 2e-6 * np.abs(ref).max(),
                f"CSV {k}: numpy's bilinear interpolation of the export")
c.done()
