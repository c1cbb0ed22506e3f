"""GUI under Xvfb, oscillators: the hover readout of the phase view goes when the mouse leaves the
oscillator, and a finished study leaves no progress bar (no "100% ETA 0.0 s" with a cancel
button): it is paused on screen with "study done". Screenshots say what the window showed in
their PNG text (simscope.hover, simscope.progress, simscope.status). The positions are those of
the 1280 x 800 window's layout: a node at the top of the circle, the circle's empty centre, the
right panel's "Run study" button. Usage: gui_study.py SIMSCOPE"""
import sys

from gui_util import need_tools, png_size_and_text, run_gui, screenshot, wait_log
from simscope_test_util import Checker, scratch

simscope = sys.argv[1]
c = Checker()
d = scratch("gui_study")
need_tools("Xvfb", "xdotool")
# Hover readouts follow the mouse in the next frame, and the study's progress bar shows once it
# has run 0.25 s: short settles, nothing to wait for in the log. The rest waits for log lines.
steps = ("xdotool mousemove 700 99; sleep 0.5\n" + screenshot() +
         "xdotool mousemove 698 380; sleep 0.5\n" + screenshot() +
         "xdotool mousemove 1232 268; sleep 0.3; xdotool click 1; sleep 0.8\n" + screenshot() +
         wait_log("study done", 1, 60) + screenshot())
log, shots = run_gui(simscope, d, ["--backend", "cpu", "--workload", "oscillators",
                                   "--set", "ensemble.size=64", "--set", "integrator.steps=100000"],
                     steps)
c.check(len(shots) == 4, f"4 screenshots ({len(shots)}; log tail {log.strip()[-400:]!r})")
if len(shots) == 4:
    t = [png_size_and_text(p)[1] for p in shots]
    c.check("node" in t[0].get("simscope.hover", ""),
            f"over a node: its readout ({t[0].get('simscope.hover')!r})")
    c.check("simscope.hover" not in t[1],
            f"off the nodes: no readout left ({t[1].get('simscope.hover')!r})")
    c.check("simscope.progress" in t[2], "while the study runs: its progress bar")
    c.check("study done" in log, "the study finished")
    c.check("simscope.progress" not in t[3], "after the study: no progress bar")
    c.check(t[3].get("simscope.status", "").startswith("study done"),
            f"after the study: 'study done' in the status line ({t[3].get('simscope.status')!r})")
c.done()
