"""GUI under Xvfb: the UI text is DejaVu Sans baked at the UI scale (SIMSCOPE_UI_SCALE 1 and 2):
the log names the font and its pixel size, and the status bar's text is twice as tall at scale 2
and anti-aliased (many grey levels at its edges, not a stretched bitmap font's few). Then a change
of scale while the window runs (SIMSCOPE_UI_SCALE_FILE, as a move to another monitor would):
both the UI font and the views' text atlases are baked again at twice the pixel size, and the
screenshots before and after show the status bar's text twice as tall. Usage:
gui_fonts.py SIMSCOPE"""
import os
import re
import subprocess
import sys

import numpy as np

from gui_util import (after_log, need_tools, png_size_and_text, run_gui, screenshot, slowdown,
                      xvfb_run)
from simscope_test_util import Checker, read_png, scratch

simscope = sys.argv[1]
c = Checker()
d = scratch("gui_fonts")
need_tools("Xvfb", "xdotool")


def text_rows(path, scale):
    """Heights of the bright text in the status bar's first line, and its grey levels."""
    img = read_png(path)[0][:, :, :3].astype(int)
    bar = img[-int(58 * scale):]  # the status bar: 58 px per unit of scale
    lum = bar.max(axis=2)
    rows = np.where((lum > 150).sum(axis=1) > 0)[0]
    if len(rows) == 0:
        return 0, 0
    first = [rows[0]]
    for r in rows[1:]:
        if r != first[-1] + 1:
            break
        first.append(r)
    band = lum[first[0]:first[-1] + 1]
    levels = len(np.unique(band[(band > 40) & (band < 150)]))
    return len(first), levels


# One window screenshot per scale in a 1280 x 800 window: the UI font named in the log at its
# pixel size, the status bar's text height and grey levels, and every parameter row fitting its
# panel (a long label goes above its widget) while what does not fit the height scrolls
# (simscope.panels, written by the window from ImGui's layout of the frame it saved).
heights = {}
for scale in (1, 2):
    path = os.path.join(d, f"panels{scale}.png")
    env = dict(os.environ, HOME=d, XDG_CONFIG_HOME=d, SIMSCOPE_UI_SCALE=str(scale))
    p = subprocess.run([*xvfb_run("1280x800"), simscope, "--backend", "cpu", "--set",
                        "grid.size=32", "--screenshot", path],
                       capture_output=True, text=True, env=env, timeout=300 * slowdown())
    m = re.search(r"UI font (\S+DejaVuSans\.ttf) at (\d+) px \(scale (\S+)\)", p.stderr)
    c.check(p.returncode == 0 and m is not None and int(m.group(2)) == 13 * scale,
            f"scale {scale}: DejaVu Sans at {13 * scale} px ({p.stderr.strip()[-300:]!r})")
    if p.returncode == 0 and os.path.exists(path):
        h, levels = text_rows(path, scale)
        heights[scale] = h
        c.check(levels >= 8, f"scale {scale}: anti-aliased text ({levels} grey levels)")
    layout = png_size_and_text(path)[1].get("simscope.panels", "") if os.path.exists(path) else ""
    panels = dict(re.findall(r"(\w+): (rows \d+, cut \d+, scroll_y \d, scroll_x \d)", layout))
    c.check(p.returncode == 0 and set(panels) == {"params", "view"},
            f"1280 x 800, scale {scale}: the panels' layout is recorded ({layout!r})")
    for name, v in panels.items():
        rows, cut = map(int, re.findall(r"\d+", v)[:2])
        c.check(rows > 5 and cut == 0, f"scale {scale}, {name} panel: no row cut off ({v})")
    if scale == 2 and "params" in panels:
        c.check("scroll_y 1" in panels["params"],
                f"scale 2: the parameters panel scrolls ({panels['params']})")
if len(heights) == 2:
    c.check(heights[1] >= 7 and 1.7 <= heights[2] / heights[1] <= 2.3,
            f"text twice as tall at scale 2 ({heights})")

# A change of scale at run time re-bakes the fonts.
scale_file = os.path.join(d, "scale.txt")
with open(scale_file, "w") as f:
    f.write("1\n")
os.environ["SIMSCOPE_UI_SCALE_FILE"] = scale_file
# The new scale is read in the next frame and logged as the view's text is baked again.
steps = (screenshot() + after_log("view text at ", f'echo 2 > "{scale_file}"') + screenshot())
log, shots = run_gui(simscope, d, ["--backend", "cpu", "--set", "grid.size=32"], steps,
                     screen="1600x1000")
ui = re.findall(r"UI font \S+ at (\d+) px \(scale (\S+)\)", log)
view = re.findall(r"view text at (\S+) px for scale (\S+) \(atlases: ([^)]*) px\)", log)
c.check([int(px) for px, _ in ui] == [13, 26], f"UI font baked at 13 then 26 px ({ui})")
c.check(len(view) == 2, f"view text logged at both scales ({view})")
if len(view) == 2:
    px1, px2 = float(view[0][0]), float(view[1][0])
    c.check(abs(px2 / px1 - 2) < 0.02, f"view text twice the pixel size ({px1}, {px2})")
    atlases = [float(v) for v in view[1][2].split()]
    c.check(any(abs(a - px2) < 0.2 for a in atlases) and len(atlases) > len(view[0][2].split()),
            f"the view's atlases baked again at {px2} px ({atlases})")
c.check(len(shots) == 2, f"two screenshots ({shots}; {log[-400:]!r})")
if len(shots) == 2:
    h1, _ = text_rows(shots[0], 1)
    h2, _ = text_rows(shots[1], 2)
    c.check(h1 >= 7 and 1.7 <= h2 / h1 <= 2.3, f"status text twice as tall after the change "
            f"({h1} -> {h2} px)")
c.done()
