"""GUI under Xvfb: the lsq pixel inspector's plots have axes and a hover readout. With the mouse
over the solution plot, the screenshot's simscope.plot_hover names x_k, checked against the
exported solution.npy[k, h, w] of the inspected pixel; over the data/fit plot it names b_i,
(A x)_i and b - Ax, checked for consistency and against the pixel's RMS residual (residual.npy).
Usage: gui_lsq_plots.py SIMSCOPE"""
import os
import re
import sys

import numpy as np

from gui_util import export, need_tools, png_size_and_text, run_gui, screenshot
from simscope_test_util import Checker, scratch

simscope = sys.argv[1]
c = Checker()
d = scratch("gui_lsq_plots")
need_tools("Xvfb", "xdotool")
size = 64


# 1280x800 window: the right panel spans x 988..1280; scrolled to its end, the inspector's
# data/fit plot is about y 290..410 and the solution plot y 495..565 (at UI scale 1).
# (scrolled once the first result is in, run_gui's start: the panel's full length is known then;
# the scroll and the plots' hover readouts log nothing: short settles)
steps = ("xdotool mousemove 1130 500; sleep 0.2\n"
         "xdotool click --repeat 40 --delay 40 5; sleep 0.5\n"
         "xdotool mousemove 1090 535; sleep 0.5\n" + screenshot() +
         "xdotool mousemove 1120 360; sleep 0.5\n" + screenshot() + export())
log, shots = run_gui(simscope, d, ["--workload", "lsq", "--backend", "cpu",
                                   "--set", f"synth.height={size}", "--set", f"synth.width={size}"],
                     steps)
m_exp = re.search(r"exported \d+ files to (\S+)", log)
c.check(len(shots) == 2 and m_exp is not None,
        f"2 screenshots and an export ({len(shots)}; {log.strip()[-300:]!r})")
if len(shots) == 2 and m_exp:
    exp = os.path.join(d, m_exp.group(1))
    sol = np.load(os.path.join(exp, "solution.npy"))
    res = np.load(os.path.join(exp, "residual.npy"))
    h = w = size // 2  # the inspected pixel until one is clicked: the centre
    hover = png_size_and_text(shots[0])[1].get("simscope.plot_hover", "")
    m = re.fullmatch(r"##lsqx: x_(\d+) = (\S+)", hover)
    c.check(m is not None, f"solution plot readout ({hover!r})")
    if m:
        k, v = int(m.group(1)), float(m.group(2))
        ref = float(sol[k, h, w])
        c.check(abs(v - ref) <= 1e-5 * max(abs(ref), 1e-6),
                f"x_{k} = {v} = solution.npy[{k}, {h}, {w}] = {ref:.7g}")
    hover = png_size_and_text(shots[1])[1].get("simscope.plot_hover", "")
    m = re.fullmatch(r"##lsqfit: i = (\d+): data b_i = (\S+)\s+fit \(A x\)_i = (\S+)\s+"
                     r"b - Ax = (\S+)", hover)
    gap = re.fullmatch(r"##lsqfit: i = (\d+): gap \(not observed\)\s+fit \(A x\)_i = (\S+)", hover)
    c.check(m is not None or gap is not None, f"data/fit plot readout ({hover!r})")
    if m:
        b, f, r = float(m.group(2)), float(m.group(3)), float(m.group(4))
        c.check(abs((b - f) - r) <= 1e-4 * max(abs(b), abs(f), 1e-3),
                f"b - Ax = {r} is b_i - (A x)_i = {b - f:.6g}")
        rms = float(res[h, w])
        c.check(abs(r) <= 6 * rms, f"|b - Ax| = {abs(r):.3g} within 6 x the pixel's RMS residual "
                f"{rms:.3g}")
c.done()
