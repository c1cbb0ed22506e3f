"""GUI under Xvfb: the status bar's message line says the outcome of the last action. A preset
saved where it cannot be written shows an error (in red); a later successful save replaces it
(the screenshot's simscope.status and its status bar pixels). Usage: gui_messages.py SIMSCOPE"""
import os
import sys

from gui_util import after_log, need_tools, png_size_and_text, run_gui, screenshot
from simscope_test_util import Checker, read_png, scratch

simscope = sys.argv[1]
c = Checker()
d = scratch("gui_messages")
need_tools("Xvfb", "xdotool")
bad = "/nonexistent-simscope-dir/p.json"
good = os.path.join(d, "good.json")


def hold(keys):
    # Dear ImGui 1.86 sees keys as per-frame state: a tap shorter than a frame (xdotool key) may
    # be lost by its text field, so Ctrl+A and Return are held for a while. The keys are released
    # last first (A before Ctrl): a key repeat of A after Ctrl's release would type an "a" (the
    # server's auto-repeat is off too, see run_gui, but the order does not depend on it).
    up = " ".join(reversed(keys.split("+")))
    return f"xdotool keydown {keys}; sleep 0.25; xdotool keyup {up}; sleep 0.3\n"


def save_preset(path):
    # Ctrl+S opens the popup with the path field focused (in the next frame: a short settle);
    # Ctrl+A selects its text. Then the log line of the outcome, which names the path.
    return (f"xdotool key ctrl+s; sleep 0.7; {hold('ctrl+a')}"
            f"xdotool type --delay 40 '{path}'; sleep 0.3\n" + after_log(path, hold("Return")))


steps = (save_preset(bad) + screenshot() + save_preset(bad) + save_preset(good) + screenshot())
log, shots = run_gui(simscope, d, ["--backend", "cpu", "--set", "grid.size=32"], steps,
                     screen="800x600")
c.check(len(shots) == 2, f"2 screenshots ({len(shots)}; log tail {log.strip()[-400:]!r})")
if len(shots) == 2:
    s0, s1 = (png_size_and_text(p)[1].get("simscope.status", "") for p in shots)
    c.check(s0.startswith("error:") and bad in s0, f"a failed save: its error ({s0!r})")
    c.check(os.path.exists(good), "the second path was saved")
    c.check(s1 == "saved preset " + good, f"a later save replaces the error ({s1!r})")
    # The error is drawn in red (1, 0.45, 0.4) in the status bar at the bottom.
    red = []
    for p in shots:
        img = read_png(p)[0][:, :, :3].astype(int)
        bar = img[-60:]
        red.append(int(((bar[:, :, 0] > 200) & (bar[:, :, 1] < 150) & (bar[:, :, 2] < 140)).sum()))
    c.check(red[0] > 30 and red[1] == 0, f"red error text in the status bar, then none {red}")
c.done()
