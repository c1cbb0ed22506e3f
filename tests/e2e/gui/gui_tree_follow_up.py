"""GUI under Xvfb, the field's tree method: the measured error is not in the frame. The window
shows each full result first, its status "error … measuring" (the log line "field result shown
(computed in S s): tree ..., error … measuring"), and the error comes after, on the worker (the
line "field follow-up shown: tree ..., error E rms, M max"), for the first result and again
after plane.offset is dragged; the order is read from the log lines, no timing is assumed.
Usage: gui_tree_follow_up.py SIMSCOPE"""
import sys

from gui_util import after_log, need_tools, png_size_and_text, run_gui, screenshot, wait_log
from simscope_test_util import Checker, scratch

simscope = sys.argv[1]
c = Checker()
d = scratch("gui_tree_follow_up")
need_tools("Xvfb", "xdotool")
FOLLOW = "field follow-up shown: "
SHOWN = "field result shown ("

# Drag plane.offset (the left panel's field at about (97, 287) in 1280x800: gui_drag_offset.py)
# 60 pixels to the right in 10-pixel steps, then wait for one more follow-up line.
moves = "".join(f" xdotool mousemove {97 + 10 * k} 287; sleep 0.05;" for k in range(1, 7))
drag = ("xdotool mousemove 97 287; sleep 0.3; xdotool mousedown 1; sleep 0.2;" + moves +
        " sleep 0.2; xdotool mouseup 1; sleep 0.3; xdotool mousemove 700 780")
steps = wait_log(FOLLOW, 1) + after_log(FOLLOW, drag) + screenshot()
log, shots = run_gui(simscope, d, ["--backend", "cpu", "--set", "method=tree",
                                   "--set", "sources.count=20000", "--set", "grid.size=64",
                                   "--set", "plane.offset=300"], steps)
lines = [l for l in log.splitlines() if SHOWN in l or FOLLOW in l]
c.check(len([l for l in lines if FOLLOW in l]) >= 2,
        f"a follow-up for the first result and after the drag ({lines[-6:]!r})")
c.check(bool(lines) and SHOWN in lines[0], f"the first full result comes before any follow-up ({lines[:2]!r})")
for k, l in enumerate(lines):
    if SHOWN in l:
        c.check("measuring" in l and "rms" not in l,
                f"a frame's line says its error is still being measured ({l!r})")
    else:
        c.check(k > 0 and SHOWN in lines[k - 1],
                f"a follow-up comes after its frame ({lines[max(k - 1, 0)]!r} then {l!r})")
        c.check(" rms, " in l and "measuring" not in l, f"a follow-up carries the error ({l!r})")
c.check(len(shots) == 1, f"a screenshot ({len(shots)})")
if shots:
    tree = png_size_and_text(shots[0])[1].get("simscope.tree_status", "")
    c.check(" rms, " in tree, f"the status bar shows the measured error ({tree!r})")
sys.exit(c.done())
