"""Helpers for simscope's end-to-end tests (run by ctest with Debian's /usr/bin/python3)."""
import os
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
import zlib

import numpy as np


def run(simscope, *args, timeout=300):
    """Runs simscope with args; returns CompletedProcess (text)."""
    return subprocess.run([simscope, *map(str, args)], capture_output=True, text=True,
                          timeout=timeout)


def scratch(name):
    d = os.path.join(tempfile.gettempdir(), "simscope-tests", name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    return d


def field_reference(src, k, eps, targets):
    """float64 brute force: E = k sum q (y - x) / (|y - x|^2 + eps^2)^1.5, phi = k sum q / r."""
    out_e = np.zeros((len(targets), 3))
    out_phi = np.zeros(len(targets))
    y = src[:, :3].astype(np.float64)
    q = src[:, 3].astype(np.float64)
    for a in range(0, len(targets), 64):
        t = targets[a:a + 64]
        d = y[None, :, :] - t[:, None, :]
        r2 = (d * d).sum(-1) + eps * eps
        with np.errstate(divide="ignore", invalid="ignore"):
            inv = np.where(r2 > 0, 1.0 / np.sqrt(r2), 0.0)
        out_e[a:a + 64] = k * ((q * inv ** 3)[:, :, None] * d).sum(1)
        out_phi[a:a + 64] = k * (q * inv).sum(1)
    return out_e, out_phi


def plane_targets(plane, offset, n, hw):
    u = np.linspace(-hw, hw, n)
    U, V = np.meshgrid(u, u, indexing="ij")
    O = np.full_like(U, offset)
    if plane == "xy":
        pts = (U, V, O)
    elif plane == "xz":
        pts = (U, O, V)
    else:
        pts = (O, U, V)
    return np.stack([p.ravel() for p in pts], axis=1)


def png_chunks(path):
    """The chunks of a PNG file that the tests read: the IHDR fields (width, height, depth, colour
    type, compression, filter, interlace), the concatenated IDAT data and the text chunks (tEXt,
    zTXt, iTXt) as a dict."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, header, idat, text = 8, None, b"", {}
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        elif kind == b"tEXt":
            k, v = body.split(b"\0", 1)
            text[k.decode("latin-1")] = v.decode("latin-1")
        elif kind == b"zTXt":
            k, rest = body.split(b"\0", 1)
            text[k.decode("latin-1")] = zlib.decompress(rest[1:]).decode("latin-1")
        elif kind == b"iTXt":
            k, rest = body.split(b"\0", 1)
            comp = rest[0]
            rest = rest[2:]
            _, rest = rest.split(b"\0", 1)
            _, rest = rest.split(b"\0", 1)
            text[k.decode("latin-1")] = (zlib.decompress(rest) if comp else rest).decode("utf-8")
        pos += 12 + length
    return header, idat, text


def read_png(path):
    """PNG (8-bit RGB/RGBA, non-interlaced) -> (h, w, c) uint8 array, text chunks. Pixels by
    Pillow where it is installed (python3-pil, which python3-matplotlib of packages.txt brings),
    else by the minimal decoder below, which gives the same array about 50 times slower."""
    (w, h, depth, ctype, _, _, interlace), idat, text = png_chunks(path)
    assert depth == 8 and interlace == 0 and ctype in (2, 6), (depth, ctype, interlace)
    c = 3 if ctype == 2 else 4
    try:
        from PIL import Image
    except ImportError:
        Image = None
    if Image is not None:
        with Image.open(path) as im:
            img = np.asarray(im.convert("RGB" if c == 3 else "RGBA"), dtype=np.uint8)
        assert img.shape == (h, w, c), img.shape
        return img, text
    raw = zlib.decompress(idat)
    stride = w * c
    img = np.zeros((h, stride), np.uint8)
    prev = np.zeros(stride, np.int32)
    for row in range(h):
        f = raw[row * (stride + 1)]
        line = np.frombuffer(raw, np.uint8, stride, row * (stride + 1) + 1).astype(np.int32)
        out = np.zeros(stride, np.int32)
        for x in range(stride):
            a = out[x - c] if x >= c else 0
            b = prev[x]
            cc = prev[x - c] if x >= c else 0
            if f == 0:
                p = 0
            elif f == 1:
                p = a
            elif f == 2:
                p = b
            elif f == 3:
                p = (a + b) // 2
            else:
                pa, pb, pc = abs(b - cc), abs(a - cc), abs(a + b - 2 * cc)
                p = a if pa <= pb and pa <= pc else (b if pb <= pc else cc)
            out[x] = (line[x] + p) & 255
        img[row] = out
        prev = out
    return img.reshape(h, w, c), text


class Checker:
    """Collects failures; exit status 1 when any. Prints 'N passed, N failed'."""

    def __init__(self):
        self.passed = 0
        self.failed = 0

    def check(self, cond, what):
        if cond:
            self.passed += 1
            print(f"ok    {what}")
        else:
            self.failed += 1
            print(f"FAIL  {what}")

    def done(self):
        print(f"{self.passed} passed, {self.failed} failed")
        sys.exit(1 if self.failed else 0)


def children(pid):
    """Processes whose parent is pid (from /proc: no extra tool), e.g. mpirun's ranks."""
    out = []
    for e in os.listdir("/proc"):
        if e.isdigit():
            try:
                with open(f"/proc/{e}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                if int(fields[1]) == pid:
                    out.append(int(e))
            except OSError:
                pass
    return out


def wait_signal_caught(pid, sig, timeout=60.0):
    """Waits until process pid has a handler for signal sig (the SigCgt mask of
    /proc/<pid>/status), so that a signal sent next reaches simscope's own handler rather than
    the default action of a process still starting. True when it does, False on timeout or when
    the process is gone."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            with open(f"/proc/{pid}/status") as f:
                for line in f:
                    if line.startswith("SigCgt:") and int(line.split()[1], 16) >> (sig - 1) & 1:
                        return True
        except OSError:
            return False
        time.sleep(0.005)
    return False


def wait_cpu_seconds(pid, seconds, timeout=60.0):
    """Waits until process pid has used `seconds` of CPU time (user + system, /proc/<pid>/stat):
    a computation under way, whatever the machine's load. True when it has, False on timeout or
    when the process is gone."""
    tick = os.sysconf("SC_CLK_TCK")
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            if (int(fields[11]) + int(fields[12])) / tick >= seconds:
                return True
        except OSError:
            return False
        time.sleep(0.02)
    return False
