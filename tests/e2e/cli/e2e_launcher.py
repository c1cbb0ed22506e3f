"""./simscope.sh, the launcher (README, the table of its commands):
- `./simscope.sh --print-packages` prints the Debian packages of the set-up, one a line: the
  names of packages.txt (read here with Python: comments and blank lines dropped), nothing built;
- `./simscope.sh [SIMSCOPE ARGS...]` without a display renders the demo headless into out/demo/
  under the checkout, prints the files it wrote there, and passes its arguments to simscope.
simscope.sh and packages.txt are copied into a scratch checkout (the demo writes there, not into
the source tree); the build is this one (SIMSCOPE_BUILD_DIR), with a cmake on PATH that only logs
its arguments, so nothing is configured or rebuilt; SIMSCOPE_SKIP_APT=1 installs nothing.
Usage: e2e_launcher.py SIMSCOPE"""
import os
import shutil
import subprocess
import sys
import zlib

import numpy as np

from simscope_test_util import Checker, field_reference, plane_targets, png_chunks, scratch

simscope = os.path.abspath(sys.argv[1])
root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..")
c = Checker()
d = scratch("e2e_launcher")
checkout = os.path.join(d, "checkout")
os.makedirs(checkout)
for f in ("simscope.sh", "packages.txt"):
    shutil.copy2(os.path.join(root, f), checkout)
fake = os.path.join(d, "bin")
os.makedirs(fake)
cmake_log = os.path.join(d, "cmake.log")
with open(os.path.join(fake, "cmake"), "w") as f:
    f.write(f'#!/bin/sh\necho "cmake $*" >> "{cmake_log}"\n')
os.chmod(os.path.join(fake, "cmake"), 0o755)
env = {k: v for k, v in os.environ.items()
       if k not in ("DISPLAY", "WAYLAND_DISPLAY", "SIMSCOPE_DEMO_DIR", "SIMSCOPE_CMAKE_ARGS")}
env.update(PATH=fake + os.pathsep + os.environ.get("PATH", ""), SIMSCOPE_SKIP_APT="1",
           SIMSCOPE_BUILD_DIR=os.path.dirname(os.path.dirname(simscope)))


def launcher(*args):
    return subprocess.run([os.path.join(checkout, "simscope.sh"), *args], env=env,
                          cwd=d, capture_output=True, text=True, timeout=300)


# README: "./simscope.sh --print-packages | the Debian packages of the set-up, one a line".
want = []
for line in open(os.path.join(root, "packages.txt")):
    words = line.split("#", 1)[0].split()
    if words:
        want.append(words[0])
p = launcher("--print-packages")
c.check(p.returncode == 0 and p.stdout.splitlines() == want and len(want) > 10,
        f"--print-packages: the {len(want)} packages of packages.txt, one a line "
        f"({p.returncode}, {p.stdout.split()[:5]}..., {p.stderr.strip()[-200:]!r})")
c.check(not os.path.exists(cmake_log), "--print-packages builds nothing")

# README: "./simscope.sh [SIMSCOPE ARGS...] | ... (no display: render the demo headless into
# out/demo/); arguments go to simscope". Arguments: a sources file and a small plane, so the
# demo's field is checked against numpy's (fp64 sums: within one float32 rounding).
rng = np.random.default_rng(3)
src = np.column_stack([rng.uniform(-1, 1, (40, 3)), rng.uniform(0.5, 1.5, 40)])
np.save(os.path.join(d, "src.npy"), src)
n = 16
p = launcher("--backend", "cpu", "--set", f"sources.file={os.path.join(d, 'src.npy')}",
             "--set", f"grid.size={n}", "--set", "grid.half_width=1.5", "--set", "plane=xy",
             "--set", "plane.offset=0", "--set", "precision=fp64")
demo = os.path.join(checkout, "out", "demo")
written = [l.strip() for l in p.stdout.splitlines() if l.startswith("  ")]
c.check(p.returncode == 0 and "no display found" in p.stdout,
        f"no display: the demo runs headless ({p.returncode}: {p.stdout.strip()[:200]!r} "
        f"{p.stderr.strip()[-300:]!r})")
c.check(sorted(os.path.basename(w) for w in written) ==
        sorted(["magnitude.npy", "ex.npy", "ey.npy", "ez.npy", "potential.npy", "view.png",
                "run.json"]) and all(os.path.dirname(os.path.abspath(os.path.join(checkout, w)))
                                     == demo for w in written),
        f"it prints the files it wrote under out/demo/ ({written})")
if os.path.exists(os.path.join(demo, "magnitude.npy")):
    got = np.load(os.path.join(demo, "magnitude.npy")).astype(np.float64)
    e, _ = field_reference(src.astype(np.float32).astype(np.float64), 1.0, 0.0,
                           plane_targets("xy", 0.0, n, 1.5))
    ref = np.sqrt((e * e).sum(1)).reshape(n, n)
    err = float(np.max(np.abs(got - ref) / ref))
    c.check(got.shape == (n, n) and err <= 2.0 ** -23,
            f"out/demo/magnitude.npy: the arguments' field ({got.shape}, max rel error {err:.2g})")
else:
    c.check(False, f"out/demo/magnitude.npy written ({os.listdir(checkout)})")
view = os.path.join(demo, "view.png")
if os.path.exists(view):
    (w, h, *_), idat, text = png_chunks(view)
    c.check((w, h) == (1024, 832) and len(zlib.decompress(idat)) == h * (w * 4 + 1) and
            f"grid.size={n}" in text.get("simscope.params", ""),
            f"out/demo/view.png: a 1024 x 832 PNG of this run ({w} x {h})")
else:
    c.check(False, "out/demo/view.png written")
calls = open(cmake_log).read().splitlines() if os.path.exists(cmake_log) else []
c.check(len(calls) == 1 and calls[0].startswith(f"cmake --build {env['SIMSCOPE_BUILD_DIR']} "),
        f"the build is brought up to date first, not configured again ({calls})")
c.done()
