"""GUI under Xvfb, 1280x800: the view panel's "Last run" shows named figures with units for each
workload (app/run/NAME/NAME_stat_labels.cpp), not raw run.json keys, and leaves out what did not happen
(device memory on the CPU back end, tree figures of a direct run); the field tree's error view
names its subgrid check apart from the error sample (simscope.subgrid_check). Read from the screenshots'
simscope.last_run (the lines the panel lays out, "label: value"); the view panel does not scroll
sideways where nothing else in it is wide. A study's panel after "Run study" (the right panel's
button at 1232, 268).
Usage: gui_last_run.py SIMSCOPE"""
import os
import re
import subprocess
import sys

from gui_util import need_tools, png_size_and_text, run_gui, screenshot, wait_log, xvfb_run
from simscope_test_util import Checker, scratch

simscope = sys.argv[1]
c = Checker()
d = scratch("gui_last_run")
need_tools("Xvfb", "xdotool")

NUM = r"-?\d+(?:\.\d+)?(?:e-?\d+)?"


def shot(name, args):
    """simscope ARGS on the CPU back end, its screenshot after 5 frames: (PNG text, lines)."""
    path = os.path.join(d, name + ".png")
    env = dict(os.environ, HOME=d, XDG_CONFIG_HOME=d)
    p = subprocess.run([*xvfb_run("1280x800"), simscope, "--backend", "cpu", *args,
                        "--frames", "5", "--screenshot", path],
                       capture_output=True, text=True, timeout=300, env=env, cwd=d)
    c.check(p.returncode == 0 and os.path.exists(path),
            f"{name}: screenshot ({p.returncode}: {p.stderr.strip()[-300:]!r})")
    if not os.path.exists(path):
        return {}, {}
    text = png_size_and_text(path)[1]
    return text, lines_of(text)


def lines_of(text):
    """simscope.last_run as {label: value}."""
    out = {}
    for line in text.get("simscope.last_run", "").splitlines():
        label, _, value = line.partition(": ")
        out[label] = value
    return out


def common(name, text, lines, sideways=False):
    """What every panel has: compute time first, no raw keys; no sideways scrolling unless
    `sideways` (nothing in the view panel is wider than it at 1280 x 800: the tree's error view
    wraps its figures)."""
    c.check(re.fullmatch(NUM + r" (ns|µs|ms|s)", lines.get("compute", "")) is not None,
            f"{name}: compute time with a unit ({lines.get('compute')!r})")
    raw = [k for k in lines if "_" in k]
    c.check(not raw, f"{name}: no raw run.json keys as names ({raw})")
    c.check("device memory" not in lines, f"{name}: no device memory on the CPU back end")
    panels = text.get("simscope.panels", "")
    view = panels.split("view:", 1)[-1]
    if not sideways:
        c.check("scroll_x 0" in view,
                f"{name}: the view panel does not scroll sideways ({panels!r})")


def has(name, lines, label, pattern):
    v = lines.get(label)
    c.check(v is not None and re.fullmatch(pattern, v) is not None,
            f"{name}: '{label}' reads /{pattern}/ ({v!r}; all: {lines})")


# The field, direct sums: speed in pairs/s with an SI prefix; no tree figures.
text, lines = shot("field_direct", ["--set", "grid.size=64", "--set", "method=direct"])
common("field direct", text, lines)
has("field direct", lines, "method", "direct")
has("field direct", lines, "sources", "20 k")
has("field direct", lines, "targets", "4096")
has("field direct", lines, "speed", NUM + r" [kMGT] pairs/s")
c.check(not any(k.startswith("tree") or k.startswith("error") for k in lines),
        f"field direct: no tree figures ({sorted(lines)})")

# The field's tree: order, times and the measured error.
text, lines = shot("field_tree", ["--set", "grid.size=32", "--set", "method=tree",
                                  "--set", "sources.count=20000"])
common("field tree", text, lines)
has("field tree", lines, "method", "tree")
has("field tree", lines, "tree order", r"\d+")
has("field tree", lines, "tree eval", NUM + r" (µs|ms|s)")
# One figure per measure, each named for what it is: the error sample's size, its RMS and its
# max; the speed of a tree run as the direct sum's it matches, not work done.
has("field tree", lines, "sample check", r"\d+ targets")
has("field tree", lines, "sample RMS error", NUM + " relative")
has("field tree", lines, "sample max error", NUM + " relative")
has("field tree", lines, "direct-equiv. speed", NUM + r" [kMGT] pairs/s")
c.check("speed" not in lines and "error (RMS)" not in lines,
        f"field tree: no bare 'speed' or 'error (RMS)' ({sorted(lines)})")
has("field tree", lines, "tolerance", "met|not met")
# The error view's subgrid check beside it: named as a subgrid check, with the figures' names
# in the same form ("subgrid median error", "subgrid max error"), none of them the sample's.
grid = {}
for line in text.get("simscope.subgrid_check", "").splitlines():
    label, _, value = line.partition(": ")
    grid[label] = value
has("field tree subgrid", grid, "subgrid check", r"(\d+) x \1 targets")
has("field tree subgrid", grid, "subgrid median error", NUM + " relative")
has("field tree subgrid", grid, "subgrid max error", NUM + " relative")
has("field tree subgrid", grid, "subgrid max at", "x=" + NUM + " y=" + NUM + " z=" + NUM)
c.check(not set(grid) & set(lines), f"field tree: no name in both tables ({sorted(grid)})")

# lsq: pixels and their rate; counts of what did not happen left out.
text, lines = shot("lsq", ["--workload", "lsq", "--set", "synth.height=64",
                           "--set", "synth.width=64"])
common("lsq", text, lines)
has("lsq", lines, "pixels", "4096")
has("lsq", lines, "speed", NUM + r"( [kMG])? pixels/s")
c.check("host pixels" not in lines and "all missing" not in lines,
        f"lsq: zero counts left out ({sorted(lines)})")

# The oscillators' live frames.
text, lines = shot("oscillators_live", ["--workload", "oscillators"])
common("oscillators live", text, lines)
has("oscillators live", lines, "step", r"\d+")
has("oscillators live", lines, "order R", NUM)

# A study, run from the panel's button.
steps = ("xdotool mousemove 1232 268; sleep 0.3; xdotool click 1; sleep 0.3\n" +
         wait_log("study done", 1, 120) + "sleep 0.5\n" + screenshot())
log, shots = run_gui(simscope, d, ["--backend", "cpu", "--workload", "oscillators",
                                   "--set", "ensemble.size=8", "--set", "integrator.steps=2000",
                                   "--set", "integrator.transient=500"], steps)
c.check(len(shots) == 1, f"study: 1 screenshot ({len(shots)}; log tail {log.strip()[-300:]!r})")
if shots:
    text = png_size_and_text(shots[0])[1]
    lines = lines_of(text)
    common("study", text, lines)
    has("study", lines, "members", "8")
    has("study", lines, "steps", "2000")
    has("study", lines, "samples", "200")
    has("study", lines, "msd (mean)", NUM)
    has("study", lines, "speed", NUM + r"( [kMG])? osc\. steps/s")
c.done()
