"""Helpers for the GUI tests: run simscope in Xvfb with a script of xdotool steps (run_gui), or
drive its window from Python with each log line's time noted (WindowSession, for
tests/bench/window_drag.py), and read the text chunks of its screenshots without decoding the
pixels."""
import itertools
import math
import os
import re
import shlex
import shutil
import subprocess
import sys
import threading
import time

from simscope_test_util import png_chunks


def need_tools(*tools):
    for tool in tools:
        if shutil.which(tool) is None:
            print(f"{tool} not found: install xvfb and xdotool")
            sys.exit(1)


def slowdown():
    """The factor SIMSCOPE_TEST_SLOWDOWN (default 1) by which the GUI tests stretch their waits:
    ./simscope.sh sanitize sets 4, since the ASan/UBSan binary draws and computes several times
    slower (a study not finished, a preview not yet replaced in the unstretched waits)."""
    try:
        f = float(os.environ.get("SIMSCOPE_TEST_SLOWDOWN", "1"))
    except ValueError:
        f = 1.0
    return max(f, 1.0)


def stretch_sleeps(steps, factor):
    """`steps` with every `sleep SECONDS` multiplied by `factor`."""
    return re.sub(r"\bsleep (\d+(?:\.\d+)?)",
                  lambda m: f"sleep {float(m.group(1)) * factor:g}", steps)


SANITIZER_REPORTS = ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:")


def check_exit(log_text, status_file, expect_status=0):
    """Ends the test (exit 1, one line) unless simscope exited with `expect_status` (its status
    as written to `status_file` by the script of run_gui) and printed no sanitizer report."""
    try:
        status = open(status_file).read().split(":")[-1].strip()
    except OSError:
        status = "unknown (the window's script did not finish)"
    report = next((r for r in SANITIZER_REPORTS if r in log_text), None)
    if report or status != str(expect_status):
        tail = log_text.strip()[-600:]
        why = f"a sanitizer report ({report})" if report else f"exit status {status}"
        print(f"FAIL: simscope ended with {why}, expected exit {expect_status} and no report; "
              f"log tail: {tail!r}")
        sys.exit(1)


def xvfb_run(screen="1280x800"):
    """The command line that runs the command after it on a virtual X screen WIDTHxHEIGHT of its
    own, exiting with its status (tests/e2e/xvfb_exec.py: Xvfb picks a free display itself; no
    authority file; no auto-repeat)."""
    return [sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                         "xvfb_exec.py"), screen]


# The log line of every full result the window shows (a live workload: its first after a switch),
# "simscope: WORKLOAD result shown (computed in S s)" (app/gui/runs.cpp).
RESULT = " result shown (computed in "


def wait_log(text, count=1, seconds=60):
    """A step of run_gui's script: waits until the log has `count` lines with `text` (a fixed
    string; `count` may be a shell expression such as $((n + 1))), at most `seconds` (stretched
    by slowdown()). A wait that runs out fails the test (run_gui) and skips the later waits."""
    return f"wait_log {shlex.quote(text)} {count} {math.ceil(seconds * slowdown())}\n"


_marks = itertools.count()


def after_log(text, action, seconds=60):
    """A step of run_gui's script: `action` (shell lines), then a wait for one more log line with
    `text` than there was before it, i.e. the line that proves the action happened."""
    n = f"n{next(_marks)}"
    return (f"{n}=$(grep -cF -- {shlex.quote(text)} gui.log)\n{action.rstrip()}\n" +
            wait_log(text, f"$(({n} + 1))", seconds))


def hold(keys, held=0.12, after=0.2):
    """A step: `keys` (xdotool names, e.g. ctrl+shift+z) held for `held` s, since Dear ImGui 1.86
    sees keys as per-frame state, and released last key first (a repeat of the letter after
    Ctrl's release would type it), then `after` s. Well under the X repeat delay even when the
    sanitizer stretches the waits 4x (and run_gui's server has no auto-repeat)."""
    up = " ".join(reversed(keys.split("+")))
    return f"xdotool keydown {keys}; sleep {held:g}; xdotool keyup {up}; sleep {after:g}\n"


def screenshot():
    """A step: S, then a wait for its "saved screenshot" line."""
    return after_log("saved screenshot ", hold("s"))


def export():
    """A step: E, then a wait for its "exported" line."""
    return after_log("exported ", hold("e"))


def run_gui(simscope, d, args, steps, screen="1280x800", timeout=300, expect_status=0,
            ready=RESULT, settle=0.5):
    """Starts `simscope args` in Xvfb (fresh settings under d, working directory d), waits for
    its window and then for the log line `ready` (by default the first full result shown; None:
    3 s instead) and `settle` s more, runs the shell lines `steps` (xdotool..., wait_log,
    after_log), then ends it with SIGTERM (the window closes and simscope exits 0). Every wait
    is stretched by slowdown(). Ends the test when simscope's exit status is not
    `expect_status`, its log has a sanitizer report or a wait_log ran out. Returns the log
    (stdout and stderr) and the screenshots it saved, in order."""
    f = slowdown()
    steps = stretch_sleeps(steps, f)
    timeout = timeout * f
    env = dict(os.environ, HOME=d, XDG_CONFIG_HOME=d)
    log = os.path.join(d, "gui.log")
    waits = log + ".waits"
    for old in (log, waits, log + ".status"):  # an earlier session's in the same folder
        if os.path.exists(old):
            os.remove(old)
    first = (wait_log(ready, 1, 120) + f"sleep {settle * f:g}") if ready else f"sleep {3 * f:g}"
    # wait_log TEXT COUNT SECONDS: polls the log every 0.1 s (not stretched: only the deadline
    # is); a deadline passed is written to gui.log.waits, which also ends the later waits.
    script = f"""
wait_log() {{
  [ -e "{waits}" ] && return 0
  end=$(( $(date +%s) + $3 ))
  while [ "$(grep -cF -- "$1" "{log}")" -lt "$2" ]; do
    if [ "$(date +%s)" -ge "$end" ]; then
      echo "waited $3 s for $2 log line(s) with '$1', saw $(grep -cF -- "$1" "{log}")" > "{waits}"
      return 0
    fi
    sleep 0.1
  done
}}
{shlex.join([simscope, *map(str, args)])} > "{log}" 2>&1 &
pid=$!
for i in $(seq 1 150); do xdotool search --name '^simscope' > /dev/null 2>&1 && break; sleep 0.2; done
{first}
{steps}
kill $pid; wait $pid; echo "simscope exit status: $?" > "{log}.status"
"""
    # -r (xvfb_run): no auto-repeat. The waits between keydown and keyup are stretched under the
    # sanitizer past the server's repeat delay (660 ms), and a repeated key would be typed twice.
    subprocess.run([*xvfb_run(screen), "sh", "-c", script],
                   capture_output=True, text=True, timeout=timeout, env=env, cwd=d)
    out = open(log).read() if os.path.exists(log) else ""
    check_exit(out, log + ".status", expect_status)
    if os.path.exists(waits):
        print(f"FAIL: a wait of the window's script ran out: {open(waits).read().strip()}; "
              f"log tail: {out.strip()[-600:]!r}")
        sys.exit(1)
    shots = [line.split("saved screenshot ", 1)[1].strip() for line in out.splitlines()
             if "saved screenshot " in line]
    return out, [s if os.path.isabs(s) else os.path.join(d, s) for s in shots]


def png_size_and_text(path):
    """(width, height) and the tEXt/zTXt/iTXt chunks of a PNG."""
    header, _, text = png_chunks(path)
    return (header[0], header[1]) if header else (0, 0), text


class WindowSession:
    """simscope's window on the current $DISPLAY, driven from Python rather than by run_gui's
    shell script, for a bench that times inputs: starts `simscope args` (fresh settings under d,
    working directory d, log d/gui.log) and notes when each log line appeared, by the monotonic
    clock (time.monotonic()). A thread reads the window's output from a pipe as it is written,
    so the times cost no polling (which would take CPU from the window on a small machine)."""

    def __init__(self, simscope, d, args, poll_s=0.002):
        env = dict(os.environ, HOME=d, XDG_CONFIG_HOME=d)
        self.log_path = os.path.join(d, "gui.log")
        self.poll_s = poll_s  # the sleep between steps of a caller's own loops
        self.lines = []  # (monotonic time seen, text)
        self._cond = threading.Condition()
        self.launched = time.monotonic()
        self.proc = subprocess.Popen([simscope, *map(str, args)], stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                     env=env, cwd=d)
        self._log = open(self.log_path, "wb")
        self._pump = threading.Thread(target=self._read_pipe, daemon=True)
        self._pump.start()

    def _read_pipe(self):
        for raw in iter(self.proc.stdout.readline, b""):
            now = time.monotonic()
            self._log.write(raw)
            self._log.flush()
            with self._cond:
                self.lines.append((now, raw.rstrip(b"\n").decode(errors="replace")))
                self._cond.notify_all()

    def read(self):
        """How many log lines there are so far (self.lines grows as they are written)."""
        with self._cond:
            return len(self.lines)

    def wait_line(self, match, start=0, seconds=60):
        """The first log line from index `start` on for which match(text) is true (match: a
        function, or a fixed string the line contains), as (index, time seen, text); None when
        `seconds` pass or simscope ends first."""
        test = match if callable(match) else (lambda text: match in text)
        end = time.monotonic() + seconds * slowdown()
        k = start
        with self._cond:
            while True:
                while k < len(self.lines):
                    if test(self.lines[k][1]):
                        return k, self.lines[k][0], self.lines[k][1]
                    k += 1
                left = end - time.monotonic()
                if left <= 0 or (self.proc.poll() is not None and not self._pump.is_alive()):
                    return None
                self._cond.wait(min(left, 0.1))

    def wait_window(self, seconds=60):
        """Whether a window of this process showed up on the display within `seconds`."""
        end = time.monotonic() + seconds * slowdown()
        while time.monotonic() < end and self.proc.poll() is None:
            r = subprocess.run(["xdotool", "search", "--pid", str(self.proc.pid)],
                               capture_output=True, text=True)
            if r.returncode == 0 and r.stdout.strip():
                return True
            time.sleep(0.1)
        return False

    def cpu_seconds(self):
        """User + system CPU seconds of the simscope process so far, all its threads
        (/proc/PID/stat utime and stime)."""
        with open(f"/proc/{self.proc.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def stop(self, seconds=60):
        """Ends simscope as the window's close button does (SIGTERM); returns its exit status
        (None when it had to be killed)."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=seconds * slowdown())
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                status = None
            else:
                status = self.proc.returncode
        else:
            status = self.proc.returncode
        self._pump.join(timeout=10)
        self._log.close()
        return status
