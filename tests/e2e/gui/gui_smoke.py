"""GUI smoke test under Xvfb: `simscope --frames 5 --screenshot F` gives a non-blank window image
with the plane (many colours in the centre) and the panels (ImGui's grey text/widgets at the
sides). Usage: gui_smoke.py SIMSCOPE"""
import os
import shutil
import subprocess
import sys

import numpy as np

from gui_util import xvfb_run
from simscope_test_util import Checker, read_png, scratch

simscope = sys.argv[1]
c = Checker()
d = scratch("gui_smoke")
shot = os.path.join(d, "shot.png")
env = dict(os.environ, HOME=d, XDG_CONFIG_HOME=d)  # fresh QSettings
cmd = [*xvfb_run("1280x800"), simscope, "--backend", "cpu",
       "--set", "grid.size=64", "--frames", "5", "--screenshot", shot]
if shutil.which("Xvfb") is None:
    print("Xvfb not found: install xvfb"); sys.exit(1)
p = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=env, cwd=d)
c.check(p.returncode == 0, f"GUI exits 0 after 5 frames ({p.returncode}: {p.stderr.strip()[-400:]})")
c.check(os.path.exists(shot), "screenshot written")
if os.path.exists(shot):
    img, text = read_png(shot)
    h, w, _ = img.shape
    c.check((w, h) == (1280, 800), f"screenshot is the window, 1280x800 ({w}x{h})")
    rgb = img[:, :, :3].reshape(-1, 3)
    c.check(len(np.unique(rgb, axis=0)) > 100, "screenshot is not blank")
    centre = img[h // 4: h // 2, w // 2 - 80: w // 2 + 80, :3].reshape(-1, 3)
    c.check(len(np.unique(centre, axis=0)) > 30, "the plane is drawn in the centre")
    left = img[50:400, 20:300, :3].astype(int)
    c.check((left.max(axis=2) > 150).mean() > 0.002, "the parameter panel shows text on the left")
    c.check("simscope.params" in text, "screenshot carries the parameters")
c.done()
