"""Headless --profile: DIR/profile.csv holds every plane output along a line, bilinearly
interpolated (integer maps, lsq's count and status: the nearest sample); checked against numpy's own bilinear interpolation of the exported .npy files at the
CSV's coordinates, and the coordinates and distances against the line asked for. Bad --profile
values are refused with a message. Usage: e2e_profile.py SIMSCOPE"""
import math
import os
import sys

import numpy as np

from simscope_test_util import Checker, run, scratch

simscope = sys.argv[1]
c = Checker()
d = scratch("e2e_profile")


def bilinear(a, fi, fj):
    """a[fi, fj] by bilinear interpolation (float64), fractional indices inside the array."""
    n0, n1 = a.shape
    i0 = np.minimum(np.floor(fi).astype(int), n0 - 2)
    j0 = np.minimum(np.floor(fj).astype(int), n1 - 2)
    ti, tj = fi - i0, fj - j0
    a = a.astype(np.float64)
    return ((1 - ti) * (1 - tj) * a[i0, j0] + ti * (1 - tj) * a[i0 + 1, j0] +
            (1 - ti) * tj * a[i0, j0 + 1] + ti * tj * a[i0 + 1, j0 + 1])


def read_csv(path):
    lines = open(path).read().splitlines()
    header = lines[0].split(",")
    data = np.array([[float(v) for v in line.split(",")] for line in lines[1:]])
    return header, data


def close(a, b, rtol=2e-6):
    scale = max(np.abs(b).max(), 1e-30)
    return np.abs(a - b).max() <= rtol * scale


# --- field, xy plane at z = 0.3: the default spacing (one point per grid spacing) -------------
n, hw = 33, 1.5
out = os.path.join(d, "xy")
line = (-1.2, -0.5, 1.4, 0.9)
p = run(simscope, "--headless", "--no-image", "--backend", "cpu", "--out-dir", out,
        "--set", f"grid.size={n}", "--set", f"grid.half_width={hw}", "--set", "plane.offset=0.3",
        "--set", "sources.count=50", "--set", "eps=0.05",
        "--profile", "%g,%g:%g,%g" % line)
c.check(p.returncode == 0, f"field --profile runs ({p.stderr.strip()[-300:]})")
csv = os.path.join(out, "profile.csv")
c.check(os.path.exists(csv) and "profile.csv" in p.stdout, "profile.csv written and listed")
if os.path.exists(csv):
    header, t = read_csv(csv)
    names = ["magnitude", "ex", "ey", "ez", "potential"]
    c.check(header == ["distance", "x", "y", "z"] + names, f"header {header}")
    h = dict(zip(header, t.T))
    length = math.hypot(line[2] - line[0], line[3] - line[1])
    spacing = 2 * hw / (n - 1)
    expect_points = math.ceil(length / spacing - 1e-9) + 1
    c.check(len(t) == expect_points, f"{len(t)} points, one per grid spacing ({expect_points})")
    c.check(abs(h["x"][0] - line[0]) < 1e-9 and abs(h["y"][0] - line[1]) < 1e-9 and
            abs(h["x"][-1] - line[2]) < 1e-9 and abs(h["y"][-1] - line[3]) < 1e-9,
            "the line's ends as asked")
    c.check(np.allclose(h["z"], 0.3), "z is the plane's offset")
    s = np.linspace(0, 1, len(t))
    c.check(np.allclose(h["x"], line[0] + s * (line[2] - line[0]), atol=1e-9) and
            np.allclose(h["y"], line[1] + s * (line[3] - line[1]), atol=1e-9),
            "points evenly spaced along the line")
    c.check(np.allclose(h["distance"], np.hypot(h["x"] - line[0], h["y"] - line[1]), atol=1e-9),
            "distance from the start")
    fi = (h["x"] + hw) / (2 * hw) * (n - 1)
    fj = (h["y"] + hw) / (2 * hw) * (n - 1)
    for name in names:
        a = np.load(os.path.join(out, name + ".npy"))
        c.check(close(h[name], bilinear(a, fi, fj)),
                f"{name}: numpy's bilinear interpolation of {name}.npy "
                f"(max diff {np.abs(h[name] - bilinear(a, fi, fj)).max():.3g})")

# --- field, xz plane: x and z are the in-plane axes, y the offset; 7 samples asked for -------
out = os.path.join(d, "xz")
p = run(simscope, "--headless", "--no-image", "--backend", "cpu", "--out-dir", out,
        "--set", "grid.size=20", "--set", "grid.half_width=1.5", "--set", "plane=xz", "--set", "plane.offset=-0.25",
        "--set", "sources.count=20", "--profile", "1,1:-1,-0.5:7")
c.check(p.returncode == 0, f"xz --profile runs ({p.stderr.strip()[-300:]})")
if p.returncode == 0:
    header, t = read_csv(os.path.join(out, "profile.csv"))
    h = dict(zip(header, t.T))
    c.check(len(t) == 7 and header[1:4] == ["x", "y", "z"], f"7 points, x y z ({header})")
    c.check(np.allclose(h["y"], -0.25) and np.allclose(h["x"], np.linspace(1, -1, 7)) and
            np.allclose(h["z"], np.linspace(1, -0.5, 7)), "x, z along the line, y the offset")
    a = np.load(os.path.join(out, "potential.npy"))
    fi, fj = (h["x"] + 1.5) / 3 * 19, (h["z"] + 1.5) / 3 * 19
    c.check(close(h["potential"], bilinear(a, fi, fj)), "xz potential interpolated")

# --- lsq: pixel column w and row h; the solution's every component -----------------------------
out = os.path.join(d, "lsq")
p = run(simscope, "--headless", "--no-image", "--backend", "cpu", "--out-dir", out,
        "--workload", "lsq", "--set", "synth.height=12", "--set", "synth.width=9",
        "--set", "synth.unknowns=3", "--set", "synth.observations=20",
        "--profile", "0.5,10.5:8,0")
c.check(p.returncode == 0, f"lsq --profile runs ({p.stderr.strip()[-300:]})")
if p.returncode == 0:
    header, t = read_csv(os.path.join(out, "profile.csv"))
    h = dict(zip(header, t.T))
    comps = ["solution[0]", "solution[1]", "solution[2]"]
    c.check(header[:3] == ["distance", "w", "h"] and all(x in header for x in
            comps + ["residual", "count", "status", "condition"]), f"lsq header {header}")
    x = np.load(os.path.join(out, "solution.npy"))
    for k, name in enumerate(comps):
        c.check(close(h[name], bilinear(x[k], h["h"], h["w"])), f"lsq {name} interpolated")
    r = np.load(os.path.join(out, "residual.npy"))
    c.check(close(h["residual"], bilinear(r, h["h"], h["w"])), "lsq residual interpolated")
    # The integer maps (count int32, status uint8) take the nearest sample, never a blend: each
    # value is the map's at the rounded position (either neighbour at a tie, within print
    # round-off), so it is an integer that occurs in the map.
    for name in ("count", "status"):
        a = np.load(os.path.join(out, name + ".npy"))
        c.check(a.dtype.kind in "iu", f"lsq {name}.npy has an integer dtype ({a.dtype})")
        ok = True
        for fi, fj, v in zip(h["h"], h["w"], h[name]):
            ii = {int(math.floor(fi + 0.5 + s)) for s in (-1e-6, 1e-6)}
            jj = {int(math.floor(fj + 0.5 + s)) for s in (-1e-6, 1e-6)}
            ok = ok and v == round(v) and any(v == a[i, j] for i in ii for j in jj)
        c.check(ok, f"lsq {name}: the nearest sample's values ({h[name]})")
    c.check(np.unique(h["count"]).size > 1, f"lsq count varies along the line ({h['count']})")
    length = math.hypot(8 - 0.5, 0 - 10.5)
    c.check(len(t) == math.ceil(length) + 1, f"lsq: one point per pixel spacing ({len(t)})")

# --- the plane's centre lines: coordinates exactly 0 (they printed y=-2.66453526e-15) ----------
out = os.path.join(d, "centre")
for line, axis in [("-1,0:1,0:11", "y"), ("0,-1:0,1:11", "x")]:
    p = run(simscope, "--headless", "--no-image", "--backend", "cpu", "--out-dir", out,
            "--set", "grid.size=64", "--set", "grid.half_width=1.5", "--set", "sources.count=20",
            "--profile", line)
    c.check(p.returncode == 0, f"--profile {line} runs ({p.stderr.strip()[-300:]})")
    if p.returncode == 0:
        header, t = read_csv(os.path.join(out, "profile.csv"))
        h = dict(zip(header, t.T))
        other = "x" if axis == "y" else "y"
        c.check(np.all(h[axis] == 0), f"--profile {line}: {axis} is 0 along the line ({h[axis]})")
        # the point in the middle of the line is the plane's centre: both coordinates 0
        c.check(h[other][5] == 0 and h["z"][5] == 0,
                f"--profile {line}: the middle point is (0, 0, 0) ({t[5][1:4]})")
        c.check(np.allclose(h[other], np.linspace(-1, 1, 11), rtol=0, atol=1e-12),
                f"--profile {line}: {other} steps from -1 to 1")

# --- bad values ---------------------------------------------------------------------------------
for bad, code, words in [("1,2", 2, "--profile expects x0,y0:x1,y1"),
                         ("a,0:1,1", 2, "--profile expects"),
                         ("0,0:1,1:1", 2, "samples an integer >= 2"),
                         ("0,0:5,0", 1, "outside the plane")]:
    p = run(simscope, "--headless", "--no-image", "--backend", "cpu", "--out-dir",
            os.path.join(d, "bad"), "--set", "grid.size=16", "--set", "sources.count=5",
            "--profile", bad)
    c.check(p.returncode == code and words in p.stderr and len(p.stderr.strip().splitlines()) == 1,
            f"--profile {bad}: exit {p.returncode}, {p.stderr.strip()!r}")
c.check(not os.path.exists(os.path.join(d, "bad", "profile.csv")), "no profile.csv after an error")
p = run(simscope, "--profile", "0,0:1,1")
c.check(p.returncode == 2 and "needs --headless" in p.stderr, f"GUI: {p.stderr.strip()!r}")
c.done()
