"""End to end for what the views say about their images (headless view.png and the window):
the field box mosaic labels each face tile, a field plane and an lsq map carry axis titles below
and left of the image, an oscillators study of 8 members fills the image area (not a thin strip),
and the window keeps its colorbar in a small (640 x 480) window. Usage: e2e_views.py SIMSCOPE"""
import os
import shutil
import subprocess
import sys

import numpy as np

from gui_util import xvfb_run
from simscope_test_util import Checker, read_png, run, scratch

simscope = sys.argv[1]
c = Checker()
d = scratch("e2e_views")
W, H = 480, 360
BG = np.array([28, 28, 33])  # the plane view's background, (0.11, 0.11, 0.13)


def view_png(name, *args):
    out = os.path.join(d, name)
    p = run(simscope, "--headless", "-q", "--backend", "cpu", "--out-dir", out,
            "--image-size", f"{W}x{H}", *args)
    c.check(p.returncode == 0, f"{name}: headless run exits 0" +
            ("" if p.returncode == 0 else f" ({p.returncode}: {p.stderr.strip()[-300:]})"))
    if p.returncode != 0:
        return None
    return read_png(os.path.join(out, "view.png"))[0][:, :, :3].astype(int)


def is_background(img):
    return np.abs(img - BG).max(axis=2) <= 2


def is_white(img):
    return img.min(axis=2) >= 235


def image_box(img):
    """Bounding box (x0, y0, x1, y1), top row 0, of the image: the run of columns (and then rows)
    with data pixels (neither background nor white text) around the view's left half's fullest
    column; the gap before the colorbar ends it."""
    data = ~is_background(img) & ~is_white(img)

    def run_around(counts, start):
        a = b = start
        while a > 0 and counts[a - 1] > 20:
            a -= 1
        while b + 1 < len(counts) and counts[b + 1] > 20:
            b += 1
        return a, b + 1

    col_counts = data.sum(axis=0)
    x0, x1 = run_around(col_counts, int(np.argmax(col_counts[: img.shape[1] // 2])))
    row_counts = data[:, x0:x1].sum(axis=1)
    y0, y1 = run_around(row_counts, int(np.argmax(row_counts)))
    return x0, y0, x1, y1


# ---- field, plane=box: a label in each of the six tiles -----------------------------------
img = view_png("box", "--workload", "field", "--set", "plane=box", "--set", "grid.size=48",
               "--set", "sources.count=2000")
if img is not None:
    x0, y0, x1, y1 = image_box(img)
    c.check(abs((x1 - x0) / (y1 - y0) - 1.5) < 0.05,
            f"box: the mosaic is 3 x 2 square tiles ({x1 - x0} x {y1 - y0} pixels)")
    tw, th = (x1 - x0) / 3, (y1 - y0) / 2
    counts = []
    for col in range(3):
        for row in range(2):  # row 0: the top (+ faces)
            tx, ty = int(x0 + col * tw), int(y0 + row * th)
            corner = is_white(img[ty:ty + int(th / 3), tx:tx + int(tw * 0.9)])
            counts.append(int(corner.sum()))
    c.check(min(counts) > 15, f"box: text in the top-left corner of every tile {counts}")

# ---- field, plane=xz: axis titles below and left of the image, square pixels -----------------
img = view_png("xz", "--workload", "field", "--set", "plane=xz", "--set", "grid.size=64",
               "--set", "sources.count=2000")
if img is not None:
    x0, y0, x1, y1 = image_box(img)
    c.check(abs((x1 - x0) - (y1 - y0)) <= 2, f"xz: square image ({x1 - x0} x {y1 - y0})")
    below = int(is_white(img[y1 + 1:, x0:x1]).sum())
    left = int(is_white(img[y0:y1, :x0]).sum())
    c.check(below > 30 and left > 30, f"xz: axis titles below ({below}) and left ({left}) of the image")

# ---- lsq: axis titles ----------------------------------------------------------------------
img = view_png("lsq", "--workload", "lsq", "--set", "synth.height=40", "--set", "synth.width=60",
               "--set", "synth.observations=20", "--set", "synth.unknowns=4")
if img is not None:
    x0, y0, x1, y1 = image_box(img)
    c.check(abs((x1 - x0) / (y1 - y0) - 1.5) < 0.05, f"lsq: 60 x 40 map with square pixels ({x1 - x0} x {y1 - y0})")
    below = int(is_white(img[y1 + 1:, x0:x1]).sum())
    left = int(is_white(img[y0:y1, :x0]).sum())
    c.check(below > 30 and left > 30, f"lsq: axis titles below ({below}) and left ({left}) of the map")

# ---- oscillators: an 8-member study fills the image area ---------------------------------
img = view_png("osc", "--workload", "oscillators", "--set", "ensemble.size=8",
               "--set", "network.nodes=100", "--set", "integrator.steps=200",
               "--set", "integrator.transient=100")
if img is not None:
    area = img[: int(0.9 * H), : int(0.75 * W)]
    frac = is_background(area).mean()
    c.check(frac < 0.25, f"oscillators: the 8 x 100 phases fill the view ({100 * frac:.0f} % background)")
    x0, y0, x1, y1 = image_box(img)
    c.check(x1 - x0 > 0.6 * W and y1 - y0 > 0.7 * H,
            f"oscillators: image {x1 - x0} x {y1 - y0} pixels of {W} x {H}")
    below = int(is_white(img[y1 + 1:, x0:x1]).sum())
    c.check(below > 30, f"oscillators: axis title below the image ({below})")

# ---- the window at 640 x 480: the colorbar stays (compact) ---------------------------------
if shutil.which("Xvfb") is None:
    c.check(False, "Xvfb not found: install xvfb")
else:
    g = os.path.join(d, "gui")
    os.makedirs(os.path.join(g, "simscope"))
    with open(os.path.join(g, "simscope", "simscope.conf"), "w") as f:
        f.write("[window]\nwidth=640\nheight=480\n")
    shot = os.path.join(g, "shot.png")
    env = dict(os.environ, HOME=g, XDG_CONFIG_HOME=g)
    p = subprocess.run([*xvfb_run("640x480"), os.path.abspath(simscope),
                        "--backend",
                        "cpu", "--set", "grid.size=64", "--set", "sources.count=2000",
                        "--frames", "3", "--screenshot", shot],
                       capture_output=True, text=True, timeout=300, env=env, cwd=g)
    ok = p.returncode == 0 and os.path.exists(shot)
    c.check(ok, "window 640 x 480: exits 0 with a screenshot" +
            ("" if ok else f" ({p.returncode}: {p.stderr.strip()[-300:]})"))
    if os.path.exists(shot):
        img = read_png(shot)[0][:, :, :3].astype(int)
        h, w, _ = img.shape
        c.check((w, h) == (640, 480), f"screenshot is 640 x 480 ({w} x {h})")
        # The centre viewport lies between the panels (0.4 and 0.3 of the width); the colorbar's
        # frame is two vertical light-grey (0.75) lines there.
        centre = img[: h - 70, int(0.4 * w) + 2: int(0.7 * w) - 2]
        frame = (np.abs(centre - 191).max(axis=2) <= 1)
        lines = int((frame.sum(axis=0) > 60).sum())
        c.check(lines >= 2, f"window 640 x 480: the colorbar is drawn ({lines} frame columns)")

# ---- view.min / view.max with an auto range: not used, said once (stderr and run.json) --------
import json as _json
common = ["--headless", "--no-image", "--backend", "cpu", "--set", "grid.size=16",
          "--set", "sources.count=20"]
for label, extra, warned in [("auto range", ["--set", "view.min=0.5", "--set", "view.max=2"], True),
                             ("auto range, view.max only", ["--set", "view.max=2"], True),
                             ("locked range", ["--set", "view.range=locked", "--set",
                                               "view.min=0.5", "--set", "view.max=2"], False),
                             ("defaults", [], False)]:
    out = os.path.join(d, "unused_" + label.replace(" ", "_").replace(",", ""))
    p = run(simscope, *common, "--out-dir", out, "--quiet", *extra)
    c.check(p.returncode == 0, f"{label}: runs ({p.stderr.strip()[-300:]})")
    lines = [l for l in p.stderr.splitlines() if "view.min" in l or "view.max" in l]
    try:
        notes = [w for w in _json.load(open(os.path.join(out, "run.json")))["warnings"]
                 if "view.min" in w or "view.max" in w]
    except (OSError, ValueError, KeyError):
        notes = None
    if warned:
        given = [x.split("=")[0] for x in extra if x.startswith("view.")]
        ok = (len(lines) == 1 and lines[0].startswith("simscope: warning: ") and
              all(g in lines[0] for g in given) and "view.range=locked" in lines[0] and
              "not used" in lines[0])
        c.check(ok, f"{label}: one warning naming {given} and the locked range: {lines!r}")
        c.check(notes is not None and len(notes) == 1 and lines and lines[0].endswith(notes[0]),
                f"{label}: the same warning once in run.json: {notes!r}")
    else:
        c.check(lines == [] and notes == [], f"{label}: no warning about view.min / view.max "
                f"({lines!r}, {notes!r})")
# A sweep's run.json says it once too (not once per frame).
out = os.path.join(d, "unused_sweep")
p = run(simscope, *[a for a in common if a != "--no-image"], "--out-dir", out, "--quiet",
        "--sweep", "k=1:2:3", "--image-size", "64x64", "--set", "view.min=0.5")
try:
    notes = [w for w in _json.load(open(os.path.join(out, "run.json")))["warnings"]
             if "view.min" in w]
except (OSError, ValueError, KeyError):
    notes = None
c.check(p.returncode == 0 and notes is not None and len(notes) == 1 and "view.range=locked" in notes[0],
        f"sweep: the view.min warning once in run.json ({p.returncode}, {notes!r}, "
        f"{p.stderr.strip()[-200:]!r})")

c.done()
