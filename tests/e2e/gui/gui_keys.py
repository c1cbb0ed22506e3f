"""GUI shortcuts under Xvfb.
Every quick key tap counts: xdotool sends each press and its release back to back, so both
usually arrive between two frames; Dear ImGui 1.86 alone loses such taps (it only sees the
key-down state per frame), the window's KeyPresses queue must not. Taps 'S' (screenshot) N times,
the last 4 in one xdotool call (12 ms apart: several inside one frame), and counts the "saved
screenshot" lines and the files (several a second: each gets its own name), then taps 'E'
(export) 3 times in one call: 3 folders.
Then README's keys R, H, F1 and Space ("Space pause, ... R reset the view (range and zoom), H hide
panels, ... F1 help"), each checked in screenshots (their PNG text and pixels) and the log.
Usage: gui_keys.py SIMSCOPE"""
import json
import os
import re
import sys
import zlib

import numpy as np

from gui_util import (RESULT, after_log, hold, need_tools, png_size_and_text, run_gui,
                      screenshot, wait_log)
from simscope_test_util import Checker, png_chunks, scratch

simscope = sys.argv[1]
c = Checker()
d = scratch("gui_keys")
need_tools("Xvfb", "xdotool")
json.dump({"simscope_preset": 1, "workload": "field", "params": {"grid.size": 32, "k": 2}},
          open(os.path.join(d, "k2.json"), "w"))
taps = 12
# Points of the 1280 x 800 window: on the plane off its centre (P2), the plane's centre (P1), in
# the left panel where the plane reaches once the panels are hidden (P3).
P1, P2, P3 = (698, 371), (760, 300), (380, 371)


def at(p):
    # the hover readout follows the mouse in the next frame: a short settle, nothing to wait for
    return f"xdotool mousemove {p[0]} {p[1]}; sleep 0.5\n"


def key(k):
    # R, H and F1 log nothing; what they did shows in the next frame (a short settle)
    return hold(k) + "sleep 0.3\n"


steps = (f"for i in $(seq 1 {taps - 4}); do xdotool key s; sleep 0.25; done\n"
         "xdotool key s s s s\n" + wait_log("saved screenshot ", taps, 30) +
         "xdotool key e e e\n" + wait_log("exported ", 3, 30) +
         # R: the locked range (command line) becomes the automatic one ...
         at(P2) + screenshot() + key("r") + screenshot() +
         # ... and a zoom (3 wheel steps about P1) goes: P2 shows its first sample again
         "xdotool mousemove 698 371; sleep 0.3; xdotool click 4 4 4; sleep 0.3\n" + at(P2) +
         screenshot() + key("r") + screenshot() +
         # H: P3, in the left panel, is on the plane while the panels are hidden
         at(P3) + key("h") + screenshot() + key("h") + screenshot() +
         # F1 opens the help window and closes it
         key("F1") + screenshot() + key("F1") + screenshot() +
         # Space: a preset loaded while paused is not computed (its k = 2 result comes only once
         # Space resumes); the screenshot 1 s after the load marks the time in the log
         key("space") + "xdotool key ctrl+o; sleep 0.7\n" + hold("ctrl+a") +
         "xdotool type --delay 40 k2.json; sleep 0.3\n" + after_log("loaded preset", hold("Return")) +
         "sleep 1\n" + screenshot() + after_log(f"simscope: field{RESULT}", hold("space")) +
         # Ctrl+O takes a shipped preset's name too (paused: its 8e6 sources are not computed)
         key("space") + "xdotool key ctrl+o; sleep 0.7\n" + hold("ctrl+a") +
         "xdotool type --delay 40 seed-field; sleep 0.3\n" +
         after_log("loaded preset", hold("Return")))
out, shots = run_gui(simscope, d, ["--backend", "cpu", "--set", "grid.size=32",
                                   "--set", "view.range=locked", "--set", "view.min=0.5",
                                   "--set", "view.max=2"], steps)
extra = 9  # the screenshots after the taps
saved = out.count("saved screenshot")
c.check(saved == taps + extra,
        f"{taps} taps of S, {saved - extra} screenshots (log tail: {out.strip()[-300:]!r})")
pngs = [f for f in os.listdir(d) if f.startswith("simscope-") and f.endswith(".png")]
c.check(len(pngs) == taps + extra, f"{taps} + {extra} screenshot files, none overwritten "
        f"({sorted(pngs)})")
exports = sorted(f for f in os.listdir(d) if f.startswith("simscope-export-") and
                 os.path.exists(os.path.join(d, f, "run.json")))
c.check(out.count("exported ") == 3 and len(exports) == 3,
        f"3 taps of E, 3 export folders ({exports})")
if len(shots) != taps + extra or not exports:
    c.done()
texts = [png_size_and_text(s)[1] for s in shots[taps:]]
locked, reset, zoomed, unzoomed, hidden, shown, help_on, help_off, paused = texts


def view(t):
    return json.loads(t.get("simscope.view", "{}"))


def sample(t):
    m = re.search(r"\[i=(\d+) j=(\d+)\]", t.get("simscope.hover", ""))
    return (int(m.group(1)), int(m.group(2))) if m else None


# README: "R reset the view (range and zoom)". The range: locked 0.5 .. 2 from the command line,
# after R view.range=percentile, the default, drawn over the data's 0.5th .. 99.5th percentile
# (numpy, of the exported magnitude, the result on screen; the scale is log, and |E| > 0 here).
mag = np.load(os.path.join(d, exports[0], "magnitude.npy")).astype(np.float64)
c.check(view(locked).get("range") == [0.5, 2] and "view.range=locked" in
        locked.get("simscope.view_params", ""), f"before R: the locked range ({view(locked)})")
lo, hi = view(reset).get("range", [0, 0])
p_lo, p_hi = np.percentile(mag, [0.5, 99.5])
c.check("view.range=percentile" in reset.get("simscope.view_params", "") and
        abs(lo - p_lo) <= 1e-6 * p_lo and abs(hi - p_hi) <= 1e-6 * p_hi,
        f"R: the percentile range {lo:.7g} .. {hi:.7g} = the data's {p_lo:.7g} .. {p_hi:.7g}")
# The zoom: the sample under P2 moves with a zoom about P1 and comes back with R.
s0, s1, s2 = sample(reset), sample(zoomed), sample(unzoomed)
c.check(s0 is not None and s1 is not None and s1 != s0 and s2 == s0,
        f"R: the zoom is undone (sample under the mouse {s0}, zoomed {s1}, after R {s2})")
# README: "H hide panels": at P3 the plane (its readout) once H hid the left panel, which the
# second H brings back there.
c.check(sample(hidden) is not None and sample(shown) is None,
        f"H hides the panels and brings them back (readout at {P3}: "
        f"{[t.get('simscope.hover') for t in (hidden, shown)]})")
# README: "F1 help": a window over the view, and F1 again closes it (back to the picture before).
# Compared by the PNGs' rows above the status bar (whose message changes with every screenshot):
# a row's filtered bytes are equal when its pixels and the row above are (Qt's encoder chooses
# each row's filter from those alone), so no slow decoding is needed.
def rows(path):
    (w, h, _, ctype, _, _, _), idat, _ = png_chunks(path)
    raw, n = zlib.decompress(idat), w * (3 if ctype == 2 else 4) + 1
    return [raw[r * n:(r + 1) * n] for r in range(h - 58)]


before, opened, closed = (rows(s) for s in shots[taps + 5:taps + 8])
n_open = sum(a != b for a, b in zip(before, opened))
n_closed = sum(a != b for a, b in zip(before, closed))
c.check(n_open >= 100 and n_closed <= n_open // 10,
        f"F1 opens the help window ({n_open} rows change) and F1 closes it ({n_closed} left)")
# README: "Space pause": while paused the loaded preset (k = 2) is in the parameters but not
# computed; the next field result comes after the screenshot 1 s later, once Space resumes.
c.check(re.search(r"(^|\s)k=2(\s|$)", paused.get("simscope.params", "")) is not None,
        f"paused: the preset's k = 2 is loaded ({paused.get('simscope.params', '')[:200]!r})")
lines = out.splitlines()
load = next(i for i, l in enumerate(lines) if "loaded preset" in l)
after_load = [l for l in lines[load:] if RESULT in l or "saved screenshot" in l]
c.check(len(after_load) >= 2 and "saved screenshot" in after_load[0] and RESULT in after_load[1],
        f"Space: no result while paused, one once resumed ({after_load})")
shipped = [l for l in lines if "loaded preset" in l and "seed-field.json" in l]
c.check(len(shipped) == 1, f"Ctrl+O with a shipped preset's name loads it ({shipped})")
c.done()
