"""Headless comparison (--pin-set): A is the run with some parameters changed, B the run itself;
DIR/pinned/ holds A's outputs and run.json, DIR/difference/ B - A. Checked: the field is linear in
k (A with k = 2 is twice B), the differences equal numpy's B - A of the exported arrays, the stdout
line's max and RMS, fp32 against fp64, lsq's integer outputs, and bad values. Usage:
e2e_compare.py SIMSCOPE"""
import json
import os
import re
import sys

import numpy as np

from simscope_test_util import Checker, run, scratch

simscope = sys.argv[1]
c = Checker()
d = scratch("e2e_compare")
names = ["magnitude", "ex", "ey", "ez", "potential"]
common = ["--headless", "--no-image", "--backend", "cpu", "--set", "grid.size=24",
          "--set", "sources.count=40", "--set", "eps=0.05"]

out = os.path.join(d, "k")
p = run(simscope, *common, "--out-dir", out, "--pin-set", "k=2")
c.check(p.returncode == 0, f"--pin-set k=2 runs ({p.stderr.strip()[-300:]})")
if p.returncode == 0:
    b = {n: np.load(os.path.join(out, n + ".npy")) for n in names}
    a = {n: np.load(os.path.join(out, "pinned", n + ".npy")) for n in names}
    diff = {n: np.load(os.path.join(out, "difference", n + ".npy")) for n in names}
    for n in names:
        c.check(np.allclose(a[n], 2 * b[n], rtol=1e-5, atol=1e-6 * np.abs(b[n]).max()),
                f"A ({n}) is twice B: the field is linear in k")
        ref = (b[n].astype(np.float64) - a[n].astype(np.float64)).astype(np.float32)
        c.check(diff[n].dtype == np.float32 and diff[n].shape == b[n].shape and
                np.array_equal(diff[n], ref), f"difference/{n}.npy = B - A")
    ja = json.load(open(os.path.join(out, "pinned", "run.json")))
    jb = json.load(open(os.path.join(out, "run.json")))
    c.check(ja["params"]["k"] == 2 and jb["params"]["k"] == 1, "A's run.json has k = 2, B's 1")
    m = re.search(r"B - A of magnitude: max \|B - A\| (\S+), RMS (\S+) over (\d+) values", p.stdout)
    c.check(m is not None, f"the difference's summary line ({p.stdout!r})")
    if m:
        dm = b["magnitude"].astype(np.float64) - a["magnitude"].astype(np.float64)
        c.check(abs(float(m.group(1)) - np.abs(dm).max()) <= 1e-5 * np.abs(dm).max() and
                abs(float(m.group(2)) - np.sqrt((dm ** 2).mean())) <= 1e-5 * np.abs(dm).max() and
                int(m.group(3)) == dm.size, f"max and RMS as numpy's {np.abs(dm).max():.6g}")

out = os.path.join(d, "precision")
p = run(simscope, *common, "--out-dir", out, "--pin-set", "precision=fp64")
c.check(p.returncode == 0, f"--pin-set precision=fp64 runs ({p.stderr.strip()[-300:]})")
if p.returncode == 0:
    b = np.load(os.path.join(out, "magnitude.npy")).astype(np.float64)
    a = np.load(os.path.join(out, "pinned", "magnitude.npy")).astype(np.float64)
    dd = np.load(os.path.join(out, "difference", "magnitude.npy"))
    rel = np.abs(dd) / np.abs(a)
    c.check(rel.max() < 1e-4 and np.allclose(dd, b - a, atol=1e-7 * np.abs(a).max()),
            f"fp32 - fp64: small ({rel.max():.2g} relative) and B - A")

out = os.path.join(d, "lsq")
p = run(simscope, "--headless", "--no-image", "--backend", "cpu", "--workload", "lsq",
        "--set", "synth.height=6", "--set", "synth.width=5", "--set", "synth.unknowns=2",
        "--set", "synth.observations=12", "--out-dir", out, "--pin-set", "lambda=0.5")
c.check(p.returncode == 0, f"lsq --pin-set lambda=0.5 runs ({p.stderr.strip()[-300:]})")
if p.returncode == 0:
    for n in ["solution", "residual", "count"]:
        b0 = np.load(os.path.join(out, n + ".npy"))
        b, a = b0.astype(np.float64), np.load(os.path.join(out, "pinned", n + ".npy"))
        dd = np.load(os.path.join(out, "difference", n + ".npy"))
        want = np.float64 if b0.dtype == np.float64 else np.float32  # int32 count: float32
        c.check(dd.dtype == want and np.allclose(dd, b - a, rtol=1e-6, atol=1e-6),
                f"lsq difference/{n}.npy = B - A ({b0.dtype} -> {dd.dtype})")
    c.check(not np.allclose(np.load(os.path.join(out, "difference", "solution.npy")), 0),
            "lambda changes the solution")

for args, code, words in [(["--pin-set", "nosuch=1"], 2, "--pin-set nosuch=1: unknown parameter"),
                          (["--pin-set", "k"], 2, "--pin-set expects NAME=VALUE"),
                          (["--pin-set", "grid.size=1"], 2, "--pin-set grid.size=1:")]:
    p = run(simscope, *common, "--out-dir", os.path.join(d, "bad"), *args)
    c.check(p.returncode == code and words in p.stderr and len(p.stderr.strip().splitlines()) == 1,
            f"{args}: exit {p.returncode}, {p.stderr.strip()!r}")
c.check(not os.path.exists(os.path.join(d, "bad", "pinned")), "nothing written after an error")
p = run(simscope, "--pin-set", "k=2")
c.check(p.returncode == 2 and "needs --headless" in p.stderr, f"GUI: {p.stderr.strip()!r}")

# Oscillators: phases are angles, so difference/phases.npy holds the phase differences wrapped
# into (-pi, pi], numpy's angle(z_B conj(z_A)) of the two state.npy files (the raw difference of
# two phases in (-pi, pi] spans (-2 pi, 2 pi)); msd, a plain number, is B - A as it is.
out = os.path.join(d, "phases")
p = run(simscope, "--headless", "--no-image", "--backend", "cpu", "--workload", "oscillators",
        "--set", "ensemble.size=8", "--set", "integrator.steps=20000", "--out-dir", out,
        "--pin-set", "model.omega=1.5")
c.check(p.returncode == 0, f"oscillators --pin-set runs ({p.stderr.strip()[-300:]})")
if p.returncode == 0:
    sb = np.load(os.path.join(out, "state.npy"))
    sa = np.load(os.path.join(out, "pinned", "state.npy"))
    want = np.angle((sb[..., 0] + 1j * sb[..., 1]) * np.conj(sa[..., 0] + 1j * sa[..., 1]))
    got = np.load(os.path.join(out, "difference", "phases.npy"))
    raw = np.load(os.path.join(out, "phases.npy")) - np.load(os.path.join(out, "pinned", "phases.npy"))
    c.check(np.abs(raw).max() > np.pi, f"the case has phase differences beyond pi ({np.abs(raw).max():.3f})")
    c.check(got.shape == want.shape and np.abs(got - want).max() < 1e-12,
            f"difference/phases.npy = numpy's angle of z_B conj(z_A) "
            f"(max dev {np.abs(got - want).max() if got.shape == want.shape else got.shape})")
    c.check(got.min() > -np.pi and got.max() <= np.pi, f"in (-pi, pi] ({got.min()}, {got.max()})")
    msd = np.load(os.path.join(out, "msd.npy")) - np.load(os.path.join(out, "pinned", "msd.npy"))
    c.check(np.array_equal(np.load(os.path.join(out, "difference", "msd.npy")), msd),
            "difference/msd.npy is B - A unwrapped")
c.done()
