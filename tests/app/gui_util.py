"""Helpers for the GUI tests: run simscope in Xvfb with a script of xdotool steps, and read the
text chunks of its screenshots without decoding the pixels."""
import os
import shlex
import shutil
import struct
import subprocess
import sys
import zlib


def need_tools(*tools):
    for tool in tools:
        if shutil.which(tool) is None:
            print(f"{tool} not found: install xvfb and xdotool")
            sys.exit(1)


def run_gui(simscope, d, args, steps, screen="1280x800", timeout=300):
    """Starts `simscope args` in Xvfb (fresh settings under d, working directory d), waits for
    its window and 3 s more, runs the shell lines `steps` (xdotool...), then ends it. Returns the
    log (stdout and stderr) and the screenshots it saved, in order."""
    env = dict(os.environ, HOME=d, XDG_CONFIG_HOME=d)
    log = os.path.join(d, "gui.log")
    script = f"""
{shlex.join([simscope, *map(str, args)])} > "{log}" 2>&1 &
pid=$!
for i in $(seq 1 150); do xdotool search --name '^simscope' > /dev/null 2>&1 && break; sleep 0.2; done
sleep 3
{steps}
kill $pid; wait $pid
"""
    subprocess.run(["xvfb-run", "-a", "-s", f"-screen 0 {screen}x24", "sh", "-c", script],
                   capture_output=True, text=True, timeout=timeout, env=env, cwd=d)
    out = open(log).read() if os.path.exists(log) else ""
    shots = [line.split("saved screenshot ", 1)[1].strip() for line in out.splitlines()
             if "saved screenshot " in line]
    return out, [s if os.path.isabs(s) else os.path.join(d, s) for s in shots]


def png_size_and_text(path):
    """(width, height) and the tEXt/zTXt/iTXt chunks of a PNG."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, text, size = 8, {}, (0, 0)
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            size = struct.unpack(">II", body[:8])
        elif kind == b"tEXt":
            k, v = body.split(b"\0", 1)
            text[k.decode("latin-1")] = v.decode("latin-1")
        elif kind == b"zTXt":
            k, rest = body.split(b"\0", 1)
            text[k.decode("latin-1")] = zlib.decompress(rest[1:]).decode("latin-1")
        elif kind == b"iTXt":
            k, rest = body.split(b"\0", 1)
            comp, rest = rest[0], rest[2:]
            _, rest = rest.split(b"\0", 1)
            _, rest = rest.split(b"\0", 1)
            text[k.decode("latin-1")] = (zlib.decompress(rest) if comp else rest).decode("utf-8")
        pos += 12 + length
    return size, text
