"""Bad input: each case exits non-zero (not by a signal) with one line on stderr naming the
problem, and leaves no partial outputs (an existing output directory stays as it was).
Usage: e2e_bad_inputs.py SIMSCOPE"""
import os
import sys

import numpy as np

from simscope_test_util import Checker, killed_by_signal, run, scratch

simscope = sys.argv[1]
c = Checker()
d = scratch("bad_inputs")
rng = np.random.default_rng(1)
good = rng.uniform(-1, 1, (50, 4))


def write(name, data, mode="wb"):
    path = os.path.join(d, name)
    with open(path, mode) as f:
        f.write(data)
    return path


np.save(os.path.join(d, "good.npy"), good)
raw = open(os.path.join(d, "good.npy"), "rb").read()
files = {
    "truncated": write("truncated.npy", raw[: len(raw) // 2]),
    "int8": os.path.join(d, "int8.npy"),
    "object": os.path.join(d, "object.npy"),
    "shape5": os.path.join(d, "shape5.npy"),
    "shape1d": os.path.join(d, "shape1d.npy"),
    "nan": os.path.join(d, "nan.npy"),
    "inf": os.path.join(d, "inf.npy"),
    "empty_npy": write("empty.npy", b""),
    "empty_csv": write("empty.csv", b""),
    "text_csv": write("text.csv", "x,y,z,q\n1,2,3,1\n4,abc,6,1\n", "w"),
    "typo_csv": write("typo.csv", "0,0,0.5,1x\n0,0,-0.5,-1\n", "w"),
}
np.save(files["int8"], np.ones((10, 4), np.int8))
np.save(files["object"], np.array([[1, "a", None, 2]] * 3, dtype=object), allow_pickle=True)
np.save(files["shape5"], np.ones((10, 5)))
np.save(files["shape1d"], np.ones(12))
nan = good.copy(); nan[7, 1] = np.nan; np.save(files["nan"], nan)
inf = good.copy(); inf[3, 2] = np.inf; np.save(files["inf"], inf)
bad_preset = write("bad_preset.json", "{ not json", "w")

# (label, args, words expected in the message (any of))
cases = [
    ("truncated .npy", ["--set", f"sources.file={files['truncated']}"], ["truncated"]),
    ("int8 dtype", ["--set", f"sources.file={files['int8']}"], ["int8"]),
    ("object dtype", ["--set", f"sources.file={files['object']}"], ["object"]),
    ("shape (10,5)", ["--set", f"sources.file={files['shape5']}"], ["shape", "(10, 5)"]),
    ("shape (12,)", ["--set", f"sources.file={files['shape1d']}"], ["shape"]),
    ("NaN coordinate", ["--set", f"sources.file={files['nan']}"], ["nan", "finite"]),
    ("Inf coordinate", ["--set", f"sources.file={files['inf']}"], ["inf", "finite"]),
    ("empty .npy", ["--set", f"sources.file={files['empty_npy']}"], ["empty", "not a .npy"]),
    ("empty CSV", ["--set", f"sources.file={files['empty_csv']}"], ["empty", "no data"]),
    ("CSV text cell", ["--set", f"sources.file={files['text_csv']}"], ["abc"]),
    ("missing file", ["--set", f"sources.file={d}/nope.npy"], ["nope.npy"]),
    ("CSV typo in the first row", ["--set", f"sources.file={files['typo_csv']}"], ["'1x'"]),
    ("directory as sources.file", ["--set", f"sources.file={d}"], ["bad_inputs"]),
    ("--out in a missing directory", ["--out", f"{d}/nodir/img.png"], ["nodir"]),
    ("--out is a directory", ["--out", d], [".png"]),
    ("--out not a .png", ["--out", f"{d}/x.jpg"], [".png"]),
    ("grid.size 0", ["--set", "grid.size=0"], ["grid.size"]),
    ("grid.size 1e6", ["--set", "grid.size=1000000"], ["grid.size"]),
    ("unknown parameter", ["--set", "grid.sise=10"], ["grid.sise"]),
    ("unknown workload", ["--workload", "nbody"], ["nbody"]),
    ("bad preset", ["--preset", bad_preset], ["bad_preset.json"]),
    ("negative eps", ["--set", "eps=-1"], ["eps"]),
    ("set without =", ["--set", "eps"], ["NAME=VALUE"]),
    ("bad backend", ["--backend", "gpu"], ["backend"]),
]
for label, args, words in cases:
    out = os.path.join(d, "out_" + label.replace(" ", "_").replace("/", "_"))
    # An existing output directory with an earlier result must stay as it was.
    os.makedirs(out, exist_ok=True)
    marker = os.path.join(out, "magnitude.npy")
    with open(marker, "wb") as f:
        f.write(b"earlier result")
    p = run(simscope, "--headless", "--backend", "cpu", "--out-dir", out, *args) if "--backend" not in args \
        else run(simscope, "--headless", "--out-dir", out, *args)
    lines = [l for l in p.stderr.strip().splitlines() if l.strip()]
    errors = [l for l in lines if "error" in l.lower() or "simscope:" in l]
    msg = lines[-1] if lines else ""
    c.check(p.returncode != 0 and not killed_by_signal(p), f"{label}: exit {p.returncode}, no signal")
    c.check(any(w.lower() in msg.lower() for w in words), f"{label}: message names the problem: {msg!r}")
    c.check(len(lines) == 1 and len(errors) == 1, f"{label}: one line on stderr: {lines!r}")
    c.check(sorted(os.listdir(out)) == ["magnitude.npy"] and open(marker, "rb").read() == b"earlier result",
            f"{label}: no partial outputs, earlier result intact")
    # A fresh output directory is not even created.
    fresh = out + "_fresh"
    # The default back end (auto): its notice must not come before the error line.
    p2 = run(simscope, "--headless", "--out-dir", fresh, *args)
    lines2 = [l for l in p2.stderr.strip().splitlines() if l.strip()]
    c.check(p2.returncode != 0 and not os.path.exists(fresh), f"{label}: no output directory created")
    c.check(len(lines2) == 1 and lines2[0].startswith("simscope:"), f"{label} (auto back end): one line: {lines2!r}")
c.done()
