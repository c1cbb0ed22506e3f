"""A log colour scale over values <= 0 (a signed component, the potential of mixed charges) says
what it draws: one warning naming the output and counting its values <= 0 (counted here with
numpy from the written .npy), that they take the lowest colour (clamped, not |v|), on stderr and
in run.json's warnings (headless run and sweep) and in the window's status line; an explicit
--set view.scale=log is kept on a signed output (the workload's linear hint applies only where
the user chose nothing), and without it the signed output is linear with no warning.
Usage: gui_log_scale.py SIMSCOPE"""
import json
import os
import re
import sys

import numpy as np

from gui_util import need_tools, png_size_and_text, run_gui, screenshot
from simscope_test_util import Checker, run, scratch

simscope = sys.argv[1]
c = Checker()
d = scratch("gui_log_scale")
base = ["--headless", "--backend", "cpu", "--set", "grid.size=40", "--set", "sources.count=200"]


def counted(message, values, label):
    """The warning's 'N of M values' against numpy's count of values <= 0 among the finite."""
    m = re.search(r"(\d+) of (\d+) values \([\d.e+-]+ %\) of (.+?) are <= 0", message)
    finite = values[np.isfinite(values)]
    want = (int((finite <= 0).sum()), finite.size)
    got = (int(m.group(1)), int(m.group(2))) if m else None
    c.check(got == want and m.group(3) == label,
            f"{label}: the warning counts {got} values <= 0, numpy {want}: {message!r}")


def log_warnings(lines):
    return [w for w in lines if "view.scale=log" in w]


# ---- headless: ex with an explicit log scale -----------------------------------------------
out = os.path.join(d, "ex_log")
p = run(simscope, *base, "-q", "--out-dir", out, "--set", "view=ex", "--set", "view.scale=log")
c.check(p.returncode == 0, f"ex, log: exit 0 ({p.stderr.strip()[-300:]})")
if p.returncode == 0:
    j = json.load(open(os.path.join(out, "run.json")))
    c.check(j["render"]["view"]["scale"] == "log", f"ex: the explicit log scale is drawn "
            f"({j['render']['view']})")
    ws = log_warnings(j["warnings"])
    c.check(len(ws) == 1, f"ex: one log-scale warning in run.json ({j['warnings']})")
    if ws:
        counted(ws[0], np.load(os.path.join(out, "ex.npy")), "Ex")
        c.check("lowest colour" in ws[0] and "not its magnitude |v|" in ws[0]
                and "view.scale=linear" in ws[0], f"ex: the warning says what is drawn ({ws[0]!r})")
    err = log_warnings(p.stderr.splitlines())
    c.check(len(err) == 1 and err[0].startswith("simscope: warning: view.png: "),
            f"ex: the same warning once on stderr ({p.stderr.strip()!r})")
    lo = j["render"]["view"]["range"][0]
    c.check(lo > 0, f"ex: the log range spans the positive values ({j['render']['view']['range']})")

# ---- headless: ex without a scale: the workload's linear hint, no warning -------------------
out = os.path.join(d, "ex_default")
p = run(simscope, *base, "-q", "--out-dir", out, "--set", "view=ex")
c.check(p.returncode == 0, f"ex: exit 0 ({p.stderr.strip()[-300:]})")
if p.returncode == 0:
    j = json.load(open(os.path.join(out, "run.json")))
    c.check(j["render"]["view"]["scale"] == "linear" and not log_warnings(j["warnings"]),
            f"ex, no scale given: linear, no warning ({j['render']['view']}, {j['warnings']})")

# ---- sweep: the potential of dipoles (mixed charges) on the default log scale ---------------
out = os.path.join(d, "sweep")
p = run(simscope, *base, "--out-dir", out, "--set", "sources.distribution=dipoles",
        "--set", "view=potential", "--sweep", "k=1:2:3", "--image-size", "320x240")
c.check(p.returncode == 0, f"sweep: exit 0 ({p.stderr.strip()[-300:]})")
if p.returncode == 0:
    j = json.load(open(os.path.join(out, "run.json")))
    ws = log_warnings(j.get("warnings", []))
    c.check(len(ws) == 1 and ws[0].startswith("frames (from frame 0): "),
            f"sweep: one log-scale warning in run.json ({j.get('warnings')})")
    c.check(len(log_warnings(p.stderr.splitlines())) == 1,
            f"sweep: the warning once on stderr ({p.stderr.strip()[-600:]!r})")
    # Frame 0's potential (k = 1), independently: the same run without the sweep.
    one = os.path.join(d, "frame0")
    q = run(simscope, *base, "-q", "--no-image", "--out-dir", one,
            "--set", "sources.distribution=dipoles", "--set", "k=1")
    if ws and q.returncode == 0:
        counted(ws[0], np.load(os.path.join(one, "potential.npy")), "phi")

# ---- the window: ex with --set view.scale=log; the status line carries the warning ----------
need_tools("Xvfb", "xdotool")
g = os.path.join(d, "gui")
os.makedirs(g)
log, shots = run_gui(simscope, g, ["--backend", "cpu", "--set", "grid.size=40",
                                   "--set", "sources.count=200", "--set", "view=ex",
                                   "--set", "view.scale=log"],
                     screenshot())
c.check(len(shots) == 1, f"window: a screenshot ({log.strip()[-300:]!r})")
if shots:
    text = png_size_and_text(shots[0])[1]
    view = json.loads(text.get("simscope.view", "{}"))
    status = text.get("simscope.status", "")
    c.check(view.get("scale") == "log", f"window: ex drawn on the log scale given ({view})")
    c.check(status.startswith("warning: view.scale=log, but ") and "of Ex are <= 0" in status,
            f"window: the status line says what the log scale draws ({status!r})")
    # The warning wraps inside the View panel's visible width (app/gui/visible_wrap.hpp): before,
    # ImGui wrapped it at the panel's content width, which the text itself had widened, so its
    # last words ran under the scrollbar and the panel scrolled sideways.
    panels = text.get("simscope.panels", "")
    m = re.search(r"view: rows \d+, cut \d+, scroll_y \d, scroll_x (\d)", panels)
    c.check(m is not None and m.group(1) == "0",
            f"window: the View panel with the warning does not scroll sideways ({panels!r})")
c.done()
