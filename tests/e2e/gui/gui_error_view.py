"""GUI under Xvfb, the field's tree method in the window: view=error of a result computed by direct
sums has no error output, so the centre says why (its message, simscope.view_message) and draws
no plane and no colorbar (none of the colorbar frame's light-grey columns, no colour gradient);
with method=tree the status bar names what the tree cost: the first full result reuses the tree
that its coarse preview built, so it says "tree build N ms (preview)" (it said "tree build 0 ms",
then "tree kept", which read as if no tree had been built), while a fresh headless run of the same
parameters builds it (tree_build_seconds > 0), and its compute time adds the preview's ("computed in
S s + preview P s", the status bar's "compute S ms + preview P ms"; P at least the build); the screenshot (--frames counts from the measured
error's follow-up) shows the measured error, and the full result's tree order and theta are the
headless run's (the preview, whose error is never measured, no longer moves the ladder). A run
that fails in the window prints its error once on stderr and --screenshot exits 1.
Usage: gui_error_view.py SIMSCOPE"""
import json
import os
import re
import subprocess
import sys

import numpy as np

from gui_util import need_tools, png_size_and_text, slowdown, xvfb_run
from simscope_test_util import Checker, read_png, run, scratch

simscope = sys.argv[1]
c = Checker()
d = scratch("gui_error_view")
need_tools("Xvfb")
common = ["--backend", "cpu", "--set", "grid.size=48", "--set", "sources.count=3000"]


def window_shot(name, *args, fails=False):
    g = os.path.join(d, name)
    os.makedirs(g)
    shot = os.path.join(g, "shot.png")
    env = dict(os.environ, HOME=g, XDG_CONFIG_HOME=g)
    p = subprocess.run([*xvfb_run("1280x800"), os.path.abspath(simscope),
                        *common, *args, "--frames", "3", "--screenshot", shot],
                       capture_output=True, text=True, timeout=300 * slowdown(), env=env, cwd=g)
    ok = p.returncode == (1 if fails else 0) and os.path.exists(shot)
    c.check(ok, f"{name}: exits {1 if fails else 0} with a screenshot" +
            ("" if ok else f" ({p.returncode}: {p.stderr.strip()[-300:]})"))
    stderr[name] = p.stderr
    return (shot, p.stderr) if fails else shot if ok else None


stderr = {}  # each window's log, by name


# ---- view=error with method=direct: a message, no colorbar -----------------------------------
shot = window_shot("direct", "--set", "method=direct", "--set", "view=error")
if shot:
    text = png_size_and_text(shot)[1]
    msg = text.get("simscope.view_message", "")
    c.check("error view" in msg and "direct sums" in msg,
            f"direct: the centre's message says why there is no error view ({msg!r})")
    c.check("simscope.view" not in text, f"direct: no plane recorded as shown ({text.get('simscope.view')})")
    img = read_png(shot)[0][:, :, :3].astype(int)
    h, w, _ = img.shape
    centre = img[: h - 70, int(0.33 * w) + 2: int(0.77 * w) - 2]  # between the panels
    frame = np.abs(centre - 191).max(axis=2) <= 1  # the colorbar's light-grey frame
    cols = int((frame.sum(axis=0) > 60).sum())
    colourful = int((centre.max(axis=2) - centre.min(axis=2) > 60).sum())
    white = int((centre.min(axis=2) > 200).sum())
    c.check(cols == 0 and colourful < 50,
            f"direct: no colorbar or image in the centre ({cols} frame columns, {colourful} coloured pixels)")
    c.check(white > 100, f"direct: the message is drawn in the centre ({white} light pixels)")

# ---- method=tree: the full result reuses the preview's tree ----------------------------------
shot = window_shot("tree", "--set", "method=tree", "--set", "tree.tolerance=1e-4")
out = os.path.join(d, "headless")
p = run(simscope, "--headless", "-q", "--no-image", "--out-dir", out, *common, "--set", "method=tree",
        "--set", "tree.tolerance=1e-4")
c.check(p.returncode == 0, f"headless tree run exits 0 ({p.stderr.strip()[-300:]})")
if shot and p.returncode == 0:
    stats = json.load(open(os.path.join(out, "run.json")))["stats"]
    built = stats["tree_build_seconds"]
    text = png_size_and_text(shot)[1]
    tree = text.get("simscope.tree_status", "")
    c.check(built > 0, f"a fresh headless run builds the tree ({built} s)")
    c.check(tree.startswith("tree build ") and "ms (preview), eval " in tree and "rms" in tree,
            f"window: the full result says its preview built the tree ({tree!r})")
    c.check(stats.get("method") == "tree", f"headless run.json names the method ({stats.get('method')!r})")
    rule = text.get("simscope.tree_rule", "")
    want = "order %g, theta %.4g" % (stats["tree_order"], stats["tree_theta"])
    c.check(rule == want, f"window and headless evaluate at the same order and theta ({rule!r}, {want!r})")
    c.check("build 0 ms" not in tree, f"window: no 'tree build 0 ms' ({tree!r})")
    # The compute time shown adds the preview's, which built the tree (the status bar's
    # "compute S ms + preview P ms", the log's "computed in S s + preview P s").
    shown = [l for l in stderr["tree"].splitlines() if " result shown (computed in " in l]
    m = re.search(r"computed in ([\d.]+) s \+ preview ([\d.]+) s", shown[0] if shown else "")
    b = re.search(r"tree build (\d+) ms \(preview\)", tree)
    c.check(m is not None and b is not None and float(m.group(2)) * 1e3 >= float(b.group(1)),
            f"window: the first result's time adds its preview's, tree build included "
            f"({shown[:1]}, {tree!r})")

# ---- a run that fails in the window: its error on stderr, exit status 1 ------------------------
missing = os.path.join(d, "no_such_sources.npy")
shot, err = window_shot("failed", "--set", "sources.file=" + missing, fails=True)
lines = [l for l in err.splitlines() if l.startswith("simscope: error: ")]
c.check(len(lines) == 1 and missing in lines[0],
        f"failed: the error once on stderr, naming the file ({lines})")
c.done()
