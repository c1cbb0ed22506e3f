"""Helpers for the GUI tests: run simscope in Xvfb with a script of xdotool steps, and read the
text chunks of its screenshots without decoding the pixels."""
import os
import re
import shlex
import shutil
import subprocess
import sys

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
    """The xvfb-run command line for a screen WIDTHxHEIGHT: -a -n from a display number that
    differs between concurrent tests (xvfb-run -a alone starts every search at 99, and two tests
    started together can pick the same one); -r: no auto-repeat."""
    start = 100 + (os.getpid() % 400) * 2
    return ["xvfb-run", "-a", "-n", str(start), "-s", f"-screen 0 {screen}x24 -r"]


def run_gui(simscope, d, args, steps, screen="1280x800", timeout=300, expect_status=0):
    """Starts `simscope args` in Xvfb (fresh settings under d, working directory d), waits for
    its window and 3 s more, runs the shell lines `steps` (xdotool...), then ends it with SIGTERM
    (the window closes and simscope exits 0). Every wait is stretched by slowdown(). Ends the
    test when simscope's exit status is not `expect_status` or its log has a sanitizer report.
    Returns the log (stdout and stderr) and the screenshots it saved, in order."""
    f = slowdown()
    steps = stretch_sleeps(steps, f)
    timeout = timeout * f
    env = dict(os.environ, HOME=d, XDG_CONFIG_HOME=d)
    log = os.path.join(d, "gui.log")
    script = f"""
{shlex.join([simscope, *map(str, args)])} > "{log}" 2>&1 &
pid=$!
for i in $(seq 1 150); do xdotool search --name '^simscope' > /dev/null 2>&1 && break; sleep 0.2; done
sleep {3 * f:g}
{steps}
kill $pid; wait $pid; echo "simscope exit status: $?" > "{log}.status"
"""
    # -r (xvfb_run): no auto-repeat. The waits between keydown and keyup are stretched under the
    # sanitizer past the server's repeat delay (660 ms), and a repeated key would be typed twice.
    subprocess.run([*xvfb_run(screen), "sh", "-c", script],
                   capture_output=True, text=True, timeout=timeout, env=env, cwd=d)
    out = open(log).read() if os.path.exists(log) else ""
    check_exit(out, log + ".status", expect_status)
    shots = [line.split("saved screenshot ", 1)[1].strip() for line in out.splitlines()
             if "saved screenshot " in line]
    return out, [s if os.path.isabs(s) else os.path.join(d, s) for s in shots]


def png_size_and_text(path):
    """(width, height) and the tEXt/zTXt/iTXt chunks of a PNG."""
    header, _, text = png_chunks(path)
    return (header[0], header[1]) if header else (0, 0), text
