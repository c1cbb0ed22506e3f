"""GUI under Xvfb: plane.offset (range +-1e12, so a drag, not a slider) changes by a relative step
when dragged: 100 pixels to the right from 1000 end between 1000 + 100 x 5 and 1000 x 1.005^100
(app/gui/number_widget.hpp: 0.5 % of the value per pixel), not billions of units away as on a
slider over the whole range. Usage: gui_drag_offset.py SIMSCOPE"""
import re
import sys

from gui_util import need_tools, png_size_and_text, run_gui, screenshot
from simscope_test_util import Checker, scratch

simscope = sys.argv[1]
c = Checker()
d = scratch("gui_drag_offset")
need_tools("Xvfb", "xdotool")

# In a 1280x800 window the left panel's plane.offset field is at about (97, 287); the drag moves
# in 10-pixel steps so every frame sees a part of it. S saves a screenshot with the parameters.
moves = "".join(f" xdotool mousemove {97 + 10 * k} 287; sleep 0.05;" for k in range(1, 11))
# (the drag logs nothing; the parameter it set is in the screenshot, which waits for its line)
steps = ("xdotool mousemove 97 287; sleep 0.3; xdotool mousedown 1; sleep 0.2;" + moves +
         " sleep 0.2; xdotool mouseup 1; sleep 0.3\n"
         "xdotool mousemove 700 780; sleep 0.3\n" + screenshot())
log, shots = run_gui(simscope, d, ["--backend", "cpu", "--set", "sources.count=200",
                                   "--set", "grid.size=16", "--set", "plane.offset=1000"], steps)
c.check(len(shots) >= 1, f"a screenshot ({len(shots)}; log tail {log.strip()[-400:]!r})")
if shots:
    params = png_size_and_text(shots[-1])[1].get("simscope.params", "")
    m = re.search(r"plane\.offset=([-\d.e+]+)", params)
    c.check(m is not None, f"the screenshot names plane.offset ({params[:300]!r})")
    if m:
        v = float(m.group(1))
        c.check(1000 + 100 * 5 * 0.5 <= v <= 1000 * 1.005 ** 100 * 1.05,
                f"dragged 100 px: plane.offset {v} (expected 1250 .. {1000 * 1.005 ** 100 * 1.05:.0f})")
sys.exit(c.done())
