"""GUI under Xvfb: view settings the view does not use are warned as headless warns them.
`--set view.min=1` with the percentile range (the default): stderr says it once, and the window shows
it where it shows the run's warnings (the status bar: the screenshot's simscope.status). The
same settings headless: the same words. Usage: gui_view_warning.py SIMSCOPE"""
import os
import sys

from gui_util import need_tools, png_size_and_text, run_gui, screenshot
from simscope_test_util import Checker, run, scratch

simscope = sys.argv[1]
c = Checker()
d = scratch("gui_view_warning")
need_tools("Xvfb", "xdotool")
args = ["--backend", "cpu", "--set", "grid.size=32", "--set", "sources.count=20",
        "--set", "view.min=1"]

# headless: the warning's words (one line "simscope: warning: view.range=percentile, so view.min ...")
p = run(simscope, "--headless", "--no-image", "--out-dir", os.path.join(d, "headless"), *args)
c.check(p.returncode == 0, f"headless runs ({p.stderr.strip()[-300:]})")
lines = [l for l in p.stderr.splitlines() if "so view.min is not used" in l]
c.check(len(lines) == 1 and lines[0].startswith("simscope: warning: view.range=percentile, so view.min"),
        f"headless warns once ({p.stderr.strip()[-400:]!r})")
warning = lines[0][len("simscope: warning: "):] if lines else "?"

log, shots = run_gui(simscope, d, args, screenshot(), screen="800x600")
said = [l for l in log.splitlines() if "so view.min is not used" in l]
c.check(said == ["simscope: warning: " + warning], f"the GUI's stderr says it once ({said!r})")
c.check(len(shots) == 1, f"1 screenshot ({len(shots)}; log tail {log.strip()[-400:]!r})")
if shots:
    status = png_size_and_text(shots[0])[1].get("simscope.status", "")
    c.check(status == "warning: " + warning, f"the status bar shows it ({status!r})")

# the default view: no such warning
log, _ = run_gui(simscope, d, args[:-2], "", screen="800x600")  # until its first result
c.check("not used" not in log, f"no warning without view.min ({log.strip()[-300:]!r})")
c.done()
