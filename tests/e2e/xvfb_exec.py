"""xvfb_exec.py WIDTHxHEIGHT COMMAND...: runs COMMAND on a virtual X screen of its own and exits
with COMMAND's status (1 when no server starts). The display number is drawn at random from
1000-59999, and a number in use is drawn again: concurrent tests, and a test that starts a
server while its previous one is still closing, do not meet on one number (xvfb-run's search
from one start number did, and its temporary authority folder failed to be removed, under a
loaded CI). Readiness: Xvfb writes the number to -displayfd once it accepts clients, and a
connection to its socket must succeed (once in CI a client found no display after that). No
authority file (local clients only: -nolisten tcp). -r: no auto-repeat (a key held past the
repeat delay under the sanitizers would be typed twice). Used by gui_util.xvfb_run."""
import os
import random
import signal
import socket
import subprocess
import sys
import time


def start_server(screen):
    """(Popen, display number) of a running Xvfb, or (None, the last failure's words)."""
    err = ""
    for _ in range(20):
        number = random.randrange(1000, 60000)
        r, w = os.pipe()
        server = subprocess.Popen(["Xvfb", f":{number}", "-displayfd", str(w), "-screen", "0",
                                   f"{screen}x24", "-r", "-nolisten", "tcp"], pass_fds=(w,),
                                  stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE)
        os.close(w)
        with os.fdopen(r, "rb") as f:
            ready = f.readline().strip()
        if ready and accepts(number, server):
            return server, number
        if ready:  # announced but not accepting (seen once in CI: the client found no display)
            server.terminate()
            err = f"Xvfb :{number} announced itself but refused a connection"
        else:
            err = server.stderr.read().decode(errors="replace").strip()[-300:]
        server.wait()
    return None, err


def accepts(number, server, seconds=5.0):
    """Whether the server takes a connection on its socket within `seconds`."""
    path = f"/tmp/.X11-unix/X{number}"
    end = time.monotonic() + seconds
    while time.monotonic() < end and server.poll() is None:
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
                s.connect(path)
            return True
        except OSError:
            time.sleep(0.05)
    return False


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: xvfb_exec.py WIDTHxHEIGHT COMMAND...")
    screen, cmd = sys.argv[1], sys.argv[2:]
    server, number = start_server(screen)
    if server is None:
        print(f"xvfb_exec: Xvfb did not start on 20 display numbers: {number}", file=sys.stderr)
        sys.exit(1)
    env = dict(os.environ, DISPLAY=f":{number}")
    env.pop("XAUTHORITY", None)
    child = subprocess.Popen(cmd, env=env)

    def forward(sig, _frame):
        child.send_signal(sig)

    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, forward)
    status = child.wait()
    server.terminate()
    try:
        server.wait(timeout=30)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()
    sys.exit(status if status >= 0 else 128 - status)


if __name__ == "__main__":
    main()
