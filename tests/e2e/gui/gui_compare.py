"""GUI under Xvfb: key A pins the shown result as A, a preset load changes k from 1 to 2 (B), key
D cycles the view to B - A and (B - A) / |A|. The screenshots' simscope.compare (max and RMS of
the difference) and simscope.view (a diverging colormap, a range symmetric about 0) are checked
against the export (E), which holds B, DIR/pinned/ (A) and DIR/difference/ (B - A): the field is
linear in k, so A's magnitude is half B's and (B - A) / |A| is 1. Usage: gui_compare.py SIMSCOPE"""
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
d = scratch("gui_compare")
need_tools("Xvfb", "xdotool")
params = {"grid.size": 32, "sources.count": 30, "eps": 0.05}
preset = os.path.join(d, "k2.json")
json.dump({"simscope_preset": 1, "workload": "field", "params": dict(params, k=2)},
          open(preset, "w"))


# The preset's popup opens in the next frame (a short settle); the pin, the load, B's result
# and the export each wait for their log line. D only changes the view (no line): the keys are
# taken in order, one frame each.
steps = ("xdotool mousemove 700 775; sleep 0.3\n" +
         after_log("pinned the shown result as A", hold("a")) +
         "xdotool key ctrl+o; sleep 0.7\n" + hold("ctrl+a") +
         f"xdotool type --delay 40 '{preset}'; sleep 0.3\n" +
         after_log(f"simscope: field{RESULT}", after_log("loaded preset", hold("Return"))) +
         hold("d") + hold("d") + screenshot() + export() + hold("d") + screenshot())
args = ["--backend", "cpu"] + sum((["--set", f"{k}={v}"] for k, v in params.items()), [])
log, shots = run_gui(simscope, d, args, steps)
c.check(len(shots) == 2, f"2 screenshots ({len(shots)}; log tail {log.strip()[-400:]!r})")
m_exp = re.search(r"exported (\d+) files to (\S+)", log)
c.check(m_exp is not None and int(m_exp.group(1)) >= 17,
        f"the export holds B, A and B - A ({m_exp.group(1) if m_exp else None} files)")
if len(shots) == 2 and m_exp:
    exp = os.path.join(d, m_exp.group(2))
    b = np.load(os.path.join(exp, "magnitude.npy")).astype(np.float64)
    a = np.load(os.path.join(exp, "pinned", "magnitude.npy")).astype(np.float64)
    diff = np.load(os.path.join(exp, "difference", "magnitude.npy")).astype(np.float64)
    kb = json.load(open(os.path.join(exp, "run.json")))["params"]["k"]
    ka = json.load(open(os.path.join(exp, "pinned", "run.json")))["params"]["k"]
    c.check(ka == 1 and kb == 2, f"A has k = 1, B k = 2 ({ka}, {kb})")
    c.check(np.allclose(b, 2 * a, rtol=1e-5), "B's magnitude is twice A's")
    c.check(np.allclose(diff, b - a, rtol=1e-6, atol=1e-6 * np.abs(b).max()),
            "difference/magnitude.npy = B - A")
    t1 = png_size_and_text(shots[0])[1]
    s1 = t1.get("simscope.compare", "")
    m = re.search(r"showing B - A; .*max \|B - A\| (\S+), RMS (\S+);", s1)
    c.check(m is not None, f"the first screenshot shows B - A ({s1!r})")
    if m:
        mx, rms = float(m.group(1)), float(m.group(2))
        ref = b - a
        c.check(abs(mx - np.abs(ref).max()) <= 1e-5 * np.abs(ref).max() and
                abs(rms - np.sqrt((ref ** 2).mean())) <= 1e-5 * np.abs(ref).max(),
                f"max {mx:.6g} and RMS {rms:.6g} as numpy's of the export")
    view = json.loads(t1.get("simscope.view", "{}"))
    lo, hi = view.get("range", [0, 0])
    dif = np.abs((b - a).astype(np.float64))
    m995 = float(np.percentile(dif[np.isfinite(dif)], 99.5))
    c.check(view.get("colormap") == "coolwarm" and view.get("scale") == "linear" and
            hi > 0 and abs(lo + hi) <= 1e-6 * hi and abs(hi - m995) <= 1e-4 * hi,
            f"diverging colormap, linear, centred on 0, over the 99.5th percentile of |B - A| "
            f"{m995:.6g} (view.range=percentile) ({view})")
    s2 = png_size_and_text(shots[1])[1].get("simscope.compare", "")
    m = re.search(r"showing \(B - A\) / \|A\|; .*relative max (\S+), RMS (\S+)$", s2)
    c.check(m is not None and abs(float(m.group(1)) - 1) < 1e-5 and
            abs(float(m.group(2)) - 1) < 1e-5, f"(B - A) / |A| is 1 ({s2!r})")
c.done()
