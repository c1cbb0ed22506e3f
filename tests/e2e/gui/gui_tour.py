"""One window session that tours the GUI's features (the sanitize stage's GUI test; the detailed
choreographies are the gui_* tests labelled gui): a sweep given on the command line runs to its
end, a click probes the plane, a Shift-drag draws a profile and P saves its CSV, A pins the result
Ctrl+Z undoes (a new B) and D cycles the compare views, 2 and 3 switch to lsq and the oscillators and 1
back, S saves screenshots and E exports; SIGTERM then closes the window and simscope exits 0
with no sanitizer report (gui_util.run_gui). Each step waits for the log line that proves the
previous one happened, where simscope writes one.
Usage: gui_tour.py SIMSCOPE"""
import os
import sys

from gui_util import (RESULT, after_log, export, hold, need_tools, png_size_and_text, run_gui,
                      screenshot, wait_log)
from simscope_test_util import Checker, scratch

simscope = sys.argv[1]
c = Checker()
d = scratch("gui_tour")
need_tools("Xvfb", "xdotool")


def switch(key, workload):
    # the key, then the switched-to workload's first full result in the log
    return after_log(f"simscope: {workload}{RESULT}", hold(key))


steps = (
    wait_log("sweep done")
    # the probe (a click on the plane) and a profile (Shift-drag), P saves its CSV (the click and
    # the drag log nothing: short settles)
    + "xdotool mousemove 620 380; sleep 0.3; xdotool mousedown 1; sleep 0.15; xdotool mouseup 1;"
      " sleep 0.6\n"
    + "xdotool mousemove 540 300; sleep 0.3; xdotool mousedown 1; sleep 0.15;"
      " xdotool keydown shift; sleep 0.12; xdotool keyup shift; sleep 0.1;"
      " xdotool mousemove 600 360; sleep 0.15; xdotool mousemove 700 470; sleep 0.3;"
      " xdotool mouseup 1; sleep 0.8\n"
    + "xdotool mousemove 700 775; sleep 0.3\n" + after_log("saved profile", hold("p"))
    + screenshot()
    # compare: pin A, undo the sweep's last k (a new B), cycle the views, a screenshot of B - A
    + after_log("pinned the shown result as A", hold("a"))
    + after_log(f"simscope: field{RESULT}", after_log("undo: ", hold("ctrl+z")))
    + hold("d") + hold("d") + screenshot()
    # the other workloads and back, with an export of each
    + switch("2", "lsq") + export() + screenshot()
    + switch("3", "oscillators") + export() + screenshot()
    + switch("1", "field") + export())
log, shots = run_gui(simscope, d, ["--backend", "cpu", "--set", "grid.size=32", "--set",
                                   "sources.count=20", "--sweep", "k=1:3:3"], steps)
c.check("sweep done" in log, f"the sweep ran to its end (log tail {log.strip()[-300:]!r})")
c.check("saved profile" in log, "P saved the profile's CSV")
c.check(len(shots) == 4 and all(os.path.exists(s) for s in shots),
        f"4 screenshots ({len(shots)}; log tail {log.strip()[-300:]!r})")
workloads = [png_size_and_text(s)[1].get("simscope.workload", "") for s in shots]
c.check(workloads[2:] == ["lsq", "oscillators"] if len(shots) == 4 else False,
        f"the last two screenshots are lsq's and the oscillators' ({workloads})")
exports = [f for f in os.listdir(d) if f.startswith("simscope-export-") and
           os.path.exists(os.path.join(d, f, "run.json"))]
c.check(log.count("exported ") == 3 and len(exports) == 3, f"3 exports ({sorted(exports)})")
c.check("simscope: SIGTERM: closing the window" in log, "SIGTERM closed the window")
c.done()
