"""GUI under Xvfb: key I opens the image-size popup; "1500x1100" saves the centre view rendered
offscreen at 1500 x 1100 (the PNG's size and metadata); a size beyond the GL's limit and a
malformed size fail with messages naming the limit / the expected form (the screenshots'
simscope.status). Usage: gui_image_size.py SIMSCOPE"""
import os
import re
import sys

from gui_util import after_log, hold, need_tools, png_size_and_text, run_gui, screenshot
from simscope_test_util import Checker, scratch

simscope = sys.argv[1]
c = Checker()
d = scratch("gui_image_size")
need_tools("Xvfb", "xdotool")


def size(text, line):
    # I opens the popup (in the next frame: a short settle); Return saves or fails, saying so
    return (hold("i") + "sleep 0.5\n" + hold("ctrl+a") + f"xdotool type --delay 40 '{text}';"
            " sleep 0.3\n" + after_log(line, hold("Return")))


failed = "simscope: error: "
steps = ("xdotool mousemove 700 775; sleep 0.3\n" + size("1500x1100", "saved view image") +
         size("100000x64", failed) + screenshot() + size("15OOx9", failed) + screenshot())
log, shots = run_gui(simscope, d, ["--backend", "cpu", "--set", "grid.size=48"], steps)
m = re.search(r"saved view image (\S+) \((\d+) x (\d+)\)", log)
c.check(m is not None, f"a view image saved ({log[-400:]!r})")
if m:
    (w, h), text = png_size_and_text(os.path.join(d, m.group(1)))
    c.check((w, h) == (1500, 1100), f"1500 x 1100 pixels ({w} x {h})")
    c.check(text.get("simscope.workload") == "field" and "grid.size=48" in
            text.get("simscope.params", ""), "with the workload and parameters")
c.check(len(shots) == 2, f"2 screenshots ({len(shots)})")
if len(shots) == 2:
    s0 = png_size_and_text(shots[0])[1].get("simscope.status", "")
    c.check(s0.startswith("error:") and "100000 x 64" in s0 and "GL_MAX_RENDERBUFFER_SIZE" in s0,
            f"too large: the GL limit named ({s0!r})")
    s1 = png_size_and_text(shots[1])[1].get("simscope.status", "")
    c.check(s1.startswith("error:") and "image size expects WxH" in s1 and "15OOx9" in s1,
            f"malformed: the expected form ({s1!r})")
c.done()
