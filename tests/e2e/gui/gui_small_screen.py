"""GUI on a small screen, and --screenshot's own checks:
- on an 800 x 600 screen the window fits (fresh settings, and a saved 1600 x 1000 size), with the
  right panel and the status bar on screen and the centre view at least 40 % of the width;
- --screenshot without --frames writes the window once the first full result is shown, and exits;
- a --screenshot path that cannot be written is refused before any window opens (no display
  needed): a missing directory (exit 1), a name not ending in .png (exit 2).
Usage: gui_small_screen.py SIMSCOPE"""
import os
import subprocess
import sys

import numpy as np

from gui_util import need_tools, png_size_and_text, xvfb_run
from simscope_test_util import Checker, read_png, run, scratch

simscope = sys.argv[1]
c = Checker()
d = scratch("gui_small_screen")
need_tools("Xvfb")
BG = (28, 28, 33)  # the centre view's background


def shot_at(name, screen, saved_size=None):
    cfg = os.path.join(d, name + "-cfg")
    if saved_size:
        os.makedirs(os.path.join(cfg, "simscope"), exist_ok=True)
        with open(os.path.join(cfg, "simscope", "simscope.conf"), "w") as f:
            f.write(f"[window]\nwidth={saved_size[0]}\nheight={saved_size[1]}\n")
    shot = os.path.join(d, name + ".png")
    env = dict(os.environ, HOME=cfg, XDG_CONFIG_HOME=cfg)
    p = subprocess.run([*xvfb_run(screen), simscope, "--backend",
                        "cpu", "--set", "grid.size=48", "--screenshot", shot],
                       capture_output=True, text=True, timeout=240, env=env, cwd=d)
    c.check(p.returncode == 0 and os.path.exists(shot),
            f"{name}: --screenshot alone writes the window and exits 0 "
            f"({p.returncode}: {p.stderr.strip()[-300:]})")
    return shot if os.path.exists(shot) else None


for name, saved in (("fresh", None), ("saved-1600x1000", (1600, 1000))):
    shot = shot_at(name, "800x600", saved)
    if not shot:
        continue
    (w, h), _ = png_size_and_text(shot)
    c.check(w <= 800 and h <= 600 and w >= 600 and h >= 450,
            f"{name}: the window fits the 800 x 600 screen ({w} x {h})")
    img = read_png(shot)[0][:, :, :3].astype(int)
    bright = img.max(axis=2) > 150
    c.check(bright[50:400, w - 150:w - 10].mean() > 0.01,
            f"{name}: the right panel's text is on screen")
    c.check(bright[h - 45:h - 5, 5:300].mean() > 0.01, f"{name}: the status bar's text is on screen")
    row = img[int(h * 0.8)]
    centre = int((np.abs(row - BG).max(axis=1) == 0).sum())
    c.check(centre >= 0.4 * w, f"{name}: the centre view is {centre} of {w} pixels wide (>= 40 %)")
    data = img[h // 4: h // 2, w // 2 - 40: w // 2 + 40].reshape(-1, 3)
    c.check(len(np.unique(data, axis=0)) > 20, f"{name}: the plane is drawn (the first result)")

# Bad paths: refused at once, before a window (no DISPLAY: the message is about the path).
env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
for args, code, words in (
        (["--screenshot", "/nonexistent-simscope-dir/x.png"], 1, ["/nonexistent-simscope-dir",
                                                                 "does not exist"]),
        (["--screenshot", os.path.join(d, "x.jpg")], 2, [".png"]),
        (["--screenshot", d + "/"], 2, [".png"])):
    p = subprocess.run([simscope, *args], capture_output=True, text=True, timeout=60, env=env,
                       cwd=d)
    c.check(p.returncode == code and all(w in p.stderr for w in words) and
            "display" not in p.stderr.lower() and "window" not in p.stderr.lower(),
            f"{args[1]}: exit {code} before any window ({p.returncode}: {p.stderr.strip()!r})")
c.done()
