"""The window on a user's path, timed: how long after an input its full result is shown.

    /usr/bin/python3 tests/bench/window_drag.py --preset seed-field --param plane.offset \
        --from -700 --to 700 --steps 15 [--simscope PATH]

Opens simscope's real window on $DISPLAY (without one, on an Xvfb of its own started by
tests/e2e/xvfb_exec.py) with fresh settings, so the window has its default 1280 x 800 size, and
drives it with synthetic X input (tests/e2e/x_input.py):
- steps: each value of --from .. --to (--steps values, none visited before) typed into the
  parameter's field as a user does (Ctrl+click, the digits, Return); the time from Return to
  the window's log line "WORKLOAD result shown" of that value, which the window prints once the
  frame showing the full result is drawn;
- first_image_s: from the launch to the first such line;
- full_results_per_s: the lines of new values during a continuous drag of the field (the mouse
  held on it and moved back and forth every 10 ms), --drag-seconds long;
- idle_cpu_percent: the CPU time (utime + stime, /proc) of the simscope process over
  --idle-seconds with its result shown and no input, in % of one core.
Prints one JSON object with those, the CPU model and the load average. The timings are only
as quiet as the machine: give the load with each figure (tests/bench/NOTES.md).

The window runs with SIMSCOPE_LATENCY_LOG=1 and so logs, for each result shown, its own times
since the input it answers (app/gui/latency_log.hpp): each step's `window` (submitted,
run_start, run_end, polled, uploaded, drawn, in ms), their medians with the stages' own lengths
over the steps (`steps_window_median`) and over the drag's results (`drag.window_median`).

The field is found at --at X,Y (window coordinates; by default the left panel's plane.offset
field in the 1280 x 800 window, as tests/e2e/gui/gui_drag_offset.py has it). Every value typed
is checked against the result's line, so a field elsewhere fails loudly.
"""
import argparse
import json
import os
import re
import shutil
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "e2e"))

SHOWN = " result shown (computed in "
FOLLOW = " follow-up shown: "
# The window's own times of each shown result's path (SIMSCOPE_LATENCY_LOG=1, the line after
# its "result shown" line; app/gui/latency_log.hpp).
LATENCY = "simscope: latency (ms since the input): "


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--simscope", default=os.path.join(ROOT, "build", "app", "simscope"))
    p.add_argument("--preset", default="seed-field")
    p.add_argument("--param", default="plane.offset")
    p.add_argument("--from", dest="lo", type=float, default=-700)
    p.add_argument("--to", dest="hi", type=float, default=700)
    p.add_argument("--steps", type=int, default=15)
    p.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                   help="more parameters for simscope (e.g. sources.count=20000 for a smoke run)")
    p.add_argument("--backend", default=None, help="simscope --backend (default: its own)")
    p.add_argument("--drag-seconds", type=float, default=10.0)
    p.add_argument("--drag-pixels", type=int, default=280,
                   help="the drag's sweep to the right of the field and back (280 px: about "
                        "-700 .. 700 of plane.offset with the seed preset)")
    p.add_argument("--idle-seconds", type=float, default=10.0)
    p.add_argument("--pause", type=float, default=0.3,
                   help="seconds between a step's measured error and the next input")
    p.add_argument("--at", default="97,287", help="the field's window coordinates X,Y")
    p.add_argument("--screen", default="1600x1000", help="the Xvfb screen when there is no DISPLAY")
    p.add_argument("--wait", type=float, default=120, help="longest wait for one result, s")
    p.add_argument("--out", default=None, help="also write the JSON here")
    p.add_argument("--keep", action="store_true",
                   help="keep the window's folder (its log gui.log), named in the JSON as log")
    return p.parse_args()


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown"


def loadavg():
    try:
        with open("/proc/loadavg") as f:
            return [float(v) for v in f.read().split()[:3]]
    except OSError:
        return []


def number_text(v):
    """A value as typed: no exponent, no trailing zeros."""
    t = f"{v:.6f}".rstrip("0").rstrip(".")
    return "0" if t in ("-0", "") else t


def shown_value(text, param):
    """The parameter's value that a "result shown" line names (the window names the parameters
    that changed since the result shown before), or None."""
    m = re.search(re.escape(param) + r"=(-?[\d.]+(?:e[-+]?\d+)?)", text)
    return float(m.group(1)) if m else None


def line_stats(text):
    """The figures of a "result shown" or "follow-up shown" line: compute, eval, rms error."""
    out = {}
    m = re.search(r"computed in ([\d.]+) s", text)
    if m:
        out["compute_ms"] = round(float(m.group(1)) * 1e3, 1)
    m = re.search(r"eval (\d+) ms", text)
    if m:
        out["eval_ms"] = float(m.group(1))
    m = re.search(r"error ([\d.e+-]+) rms", text)
    if m:
        out["rms_error"] = float(m.group(1))
    return out


def latency_stats(text):
    """The window's times of a result's path, ms since the input it answers: submitted,
    run_start, run_end, polled, uploaded, drawn."""
    m = re.search(r"submitted ([\d.-]+), run ([\d.-]+) \.\. ([\d.-]+), polled ([\d.-]+), "
                  r"uploaded ([\d.-]+), drawn ([\d.-]+)", text)
    if not m:
        return None
    names = ("submitted", "run_start", "run_end", "polled", "uploaded", "drawn")
    return dict(zip(names, (float(g) for g in m.groups())))


def latency_after(lines, k):
    """The latency line that follows the result line lines[k] (printed right after it)."""
    for _, text in lines[k + 1:k + 4]:
        if text.startswith(LATENCY):
            return latency_stats(text)
        if SHOWN in text:
            return None
    return None


def median_parts(parts):
    """Per stage, the median of the window's times (ms since the input) over `parts`, and the
    medians of the stages' own lengths."""
    parts = [p for p in parts if p]
    if not parts:
        return None
    med = {k: round(statistics.median(p[k] for p in parts), 1) for k in parts[0]}
    spans = {"input_to_submit": ("submitted", None), "queued": ("run_start", "submitted"),
             "run": ("run_end", "run_start"), "to_poll": ("polled", "run_end"),
             "upload": ("uploaded", "polled"), "draw": ("drawn", "uploaded")}
    med["spans"] = {k: round(statistics.median(p[a] - (p[b] if b else 0) for p in parts), 1)
                    for k, (a, b) in spans.items()}
    return med


class Bench:
    def __init__(self, a, session, xin):
        self.a, self.s, self.x = a, session, xin
        self.fx, self.fy = (int(v) for v in a.at.split(","))
        self.unnamed = False  # a result line without the parameter's value was taken

    def fail(self, why):
        tail = "\n".join(t for _, t in self.s.lines[-8:])
        self.s.stop()
        sys.exit(f"window_drag: {why}; log tail:\n{tail}")

    def is_value(self, v):
        def match(text):
            if SHOWN not in text:
                return False
            got = shown_value(text, self.a.param)
            if got is None:  # a window that names no parameters: the first result after it
                self.unnamed = True
                return True
            return abs(got - v) <= 1e-9 * max(1.0, abs(v))
        return match

    def follow_up(self, shown_text, start):
        """Waits for the follow-up of a shown result whose error is being measured."""
        if "measuring" not in shown_text:
            return None
        hit = self.s.wait_line(FOLLOW, start, self.a.wait)
        return hit

    def type_value(self, v):
        """Ctrl+click on the field, the digits, Return; returns the time of Return's press.
        Return is held 0.25 s (Dear ImGui 1.86 sees a key only if a frame sees it down); a
        result shown meanwhile is timed when its line is written (WindowSession's reader)."""
        self.x.ctrl_click(self.fx, self.fy)
        time.sleep(0.1)
        self.x.type_number(number_text(v))
        time.sleep(0.05)
        t = time.monotonic()
        self.x.key("Return", held=0.25)
        return t

    def step(self, v):
        v = float(number_text(v))  # the value as typed (6 decimals), which the window names
        start = self.s.read()
        t_in = self.type_value(v)
        hit = self.s.wait_line(self.is_value(v), start, self.a.wait)
        if hit is None:
            self.fail(f"no result shown for {self.a.param}={v} within {self.a.wait} s")
        k, t_shown, text = hit
        out = {"value": v, "ms": round((t_shown - t_in) * 1e3, 1)}
        out.update(line_stats(text))
        self.s.wait_line(LATENCY, k + 1, 1.0)  # printed right after the result's line
        window = latency_after(self.s.lines, k)
        if window:
            out["window"] = window
        f = self.follow_up(text, k + 1)
        if f is not None and "rms_error" in line_stats(f[2]):
            out["rms_error"] = line_stats(f[2])["rms_error"]
        time.sleep(self.a.pause)
        return out

    def drag(self):
        """Holds the mouse on the field and moves it right and back for drag_seconds; returns
        the drag's figures."""
        start = self.s.read()
        px, period = self.a.drag_pixels, 4.0  # one sweep right and back per 4 s
        self.x.move(self.fx, self.fy)
        time.sleep(0.2)
        self.x.button(True)
        t0 = time.monotonic()
        while True:
            t = time.monotonic() - t0
            if t >= self.a.drag_seconds:
                break
            phase = (t / period) % 1.0
            self.x.move(self.fx + round(px * (1 - abs(2 * phase - 1))), self.fy)
            time.sleep(0.01)
        t1 = time.monotonic()
        self.x.button(False)
        self.s.read()
        shown = [(t, text) for t, text in self.s.lines[start:] if SHOWN in text and t <= t1]
        parts = [latency_after(self.s.lines, k) for k in range(start, len(self.s.lines))
                 if SHOWN in self.s.lines[k][1] and self.s.lines[k][0] <= t1]
        times = [t for t, _ in shown]
        values = [v for v in (shown_value(text, self.a.param) for _, text in shown)
                  if v is not None]
        gaps = [b - a for a, b in zip([t0] + times, times + [t1])]
        return {"seconds": round(t1 - t0, 2), "full_results": len(times),
                "longest_gap_ms": round(max(gaps) * 1e3, 1) if gaps else None,
                "values_shown": [min(values), max(values)] if values else [],
                "window_median": median_parts(parts)}

    def done(self):
        """Whether the newest input's result and its measured error are shown: the last result
        line says "after its input" (the window says so only for the newest parameters) and,
        where its error was being measured, a follow-up line came after it. A window that
        writes no such words: never (settle() then waits for quiet)."""
        k = max((i for i, (_, t) in enumerate(self.s.lines) if SHOWN in t), default=None)
        if k is None or "after its input" not in self.s.lines[k][1]:
            return False
        return "measuring" not in self.s.lines[k][1] or any(
            FOLLOW in t for _, t in self.s.lines[k + 1:])

    def settle(self):
        """Waits until the last input's result and its measured error are in, then one second
        without a log line (three where the window's lines do not say which is the newest)."""
        deadline = time.monotonic() + self.a.wait
        quiet_since, n = time.monotonic(), self.s.read()
        while time.monotonic() < deadline:
            time.sleep(0.1)
            if self.s.read() != n:
                quiet_since, n = time.monotonic(), len(self.s.lines)
            quiet = time.monotonic() - quiet_since
            says_newest = any("after its input" in t for _, t in self.s.lines)
            if (self.done() and quiet >= 1.0) or (not says_newest and quiet >= 3.0):
                return
        self.fail("the window kept logging for the whole wait")

    def idle(self):
        """CPU % of one core over idle_seconds with the result shown and no input."""
        self.x.move(700, 400)  # over the plane, where a user looks
        self.settle()
        c0, t0 = self.s.cpu_seconds(), time.monotonic()
        time.sleep(self.a.idle_seconds)
        c1, t1 = self.s.cpu_seconds(), time.monotonic()
        return round(100 * (c1 - c0) / (t1 - t0), 2)


def main():
    a = parse_args()
    if not os.environ.get("DISPLAY"):
        # No display: the same command on an Xvfb of its own (software GL, llvmpipe).
        if os.environ.get("WINDOW_DRAG_XVFB"):
            sys.exit("window_drag: no DISPLAY even under xvfb_exec.py")
        os.environ["WINDOW_DRAG_XVFB"] = "1"
        xvfb = os.path.join(ROOT, "tests", "e2e", "xvfb_exec.py")
        os.execv(sys.executable, [sys.executable, xvfb, a.screen, sys.executable,
                                  os.path.abspath(__file__), *sys.argv[1:]])
    from gui_util import WindowSession, need_tools
    from x_input import XInput
    need_tools("xdotool")
    a.simscope = os.path.abspath(a.simscope)  # the window runs in a scratch folder
    if not os.access(a.simscope, os.X_OK):
        sys.exit(f"window_drag: --simscope {a.simscope}: no such executable (build first)")
    if a.steps < 1:
        sys.exit("window_drag: --steps must be at least 1")
    values = [a.lo + (a.hi - a.lo) * k / max(a.steps - 1, 1) for k in range(a.steps)]
    load_before = loadavg()
    d = tempfile.mkdtemp(prefix="window_drag-")
    args = ["--preset", a.preset]
    if a.backend:
        args += ["--backend", a.backend]
    for kv in a.set:
        args += ["--set", kv]
    xin = XInput()
    os.environ["SIMSCOPE_LATENCY_LOG"] = "1"  # the window's own times of each result's path
    s = WindowSession(a.simscope, d, args)
    b = Bench(a, s, xin)
    if not s.wait_window(a.wait):
        b.fail("no window")
    first = s.wait_line(SHOWN, 0, a.wait)
    if first is None:
        b.fail("no first result")
    first_image_s = first[1] - s.launched
    b.follow_up(first[2], first[0] + 1)
    time.sleep(a.pause)
    renderer = next((t.split(" on ", 1)[1] for _, t in s.lines if "simscope: OpenGL " in t), "")
    steps = [b.step(v) for v in values]
    b.step(a.lo)  # the drag starts from --from, at the field's left end
    drag = b.drag()
    idle = b.idle()
    status = s.stop()
    if status != 0:
        sys.exit(f"window_drag: simscope exited with status {status} (log in {d})")
    if not a.keep:
        shutil.rmtree(d, ignore_errors=True)
    ms = [st["ms"] for st in steps]
    out = {
        "simscope": os.path.abspath(a.simscope),
        "preset": a.preset,
        "set": a.set,
        "param": a.param,
        "cpu_model": cpu_model(),
        "cpus": os.cpu_count(),
        "loadavg_before": load_before,
        "loadavg_after": loadavg(),
        "renderer": renderer,
        "display": "Xvfb " + a.screen if os.environ.get("WINDOW_DRAG_XVFB") else
                   os.environ.get("DISPLAY", ""),
        "first_image_s": round(first_image_s, 3),
        "steps": steps,
        "median_ms": round(statistics.median(ms), 1),
        "max_ms": max(ms),
        "steps_window_median": median_parts([st.get("window") for st in steps]),
        "drag": drag,
        "full_results_per_s": round(drag["full_results"] / drag["seconds"], 2),
        "idle_seconds": a.idle_seconds,
        "idle_cpu_percent": idle,
    }
    if a.keep:
        out["log"] = s.log_path
    if b.unnamed:
        out["note"] = ("the window's result lines name no parameters: each step took the first "
                       "result shown after its Return")
    text = json.dumps(out, indent=1)
    print(text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
