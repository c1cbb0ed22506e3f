"""End to end, the field's tree method and its error view (issue 12): simscope --headless with
method=tree writes error.npy (|E_tree - E_direct| / |E_direct| on the coarse subgrid, float32
(m, m) or (6, m, m)) and error_xyz.npy (its targets' x, y, z, float64); the values are compared
with numpy's own float64 direct sum at error_xyz's targets, E_tree from ex/ey/ez.npy. Also the
view=error image, the box, and direct (no error.npy). Usage: e2e_field_tree.py SIMSCOPE"""
import json
import os
import sys

import numpy as np

from simscope_test_util import Checker, field_reference, plane_targets, read_png, run, scratch

simscope = sys.argv[1]
c = Checker()
rng = np.random.default_rng(7)
P, n, hw, k, m = 20000, 30, 1.6, 1.5, 6
src = np.empty((P, 4), np.float32)
src[:, :3] = rng.normal(0, 0.5, (P, 3))
src[:, 3] = rng.uniform(0.5, 1.5, P)
src64 = src.astype(np.float64)
d = scratch("e2e_tree")
np.save(os.path.join(d, "src.npy"), src)
common = ["--backend", "cpu", "--set", f"sources.file={d}/src.npy", "--set", f"grid.size={n}",
          "--set", f"grid.half_width={hw}", "--set", f"k={k}", "--set", "method=tree",
          "--set", "tree.tolerance=1e-4", "--set", f"tree.error_grid={m}"]
index = np.rint(np.arange(m) * (n - 1) / (m - 1)).astype(int)


def check_errors(out, faces, label):
    err = np.load(os.path.join(out, "error.npy"))
    xyz = np.load(os.path.join(out, "error_xyz.npy"))
    shape = (m, m) if faces is None else (6, m, m)
    c.check(err.dtype == np.float32 and err.shape == shape, f"{label}: error.npy float32 {err.shape} == {shape}")
    c.check(xyz.dtype == np.float64 and xyz.shape == shape + (3,), f"{label}: error_xyz.npy float64 {xyz.shape}")
    if err.shape != shape or xyz.shape != shape + (3,):
        return
    # The subgrid's coordinates: plane indices round(k (n-1) / (m-1)) on both axes.
    want_xyz = []
    for plane, off in faces or [("xy", 0.25)]:
        t = plane_targets(plane, off, n, hw).reshape(n, n, 3)
        want_xyz.append(t[np.ix_(index, index)])
    want_xyz = np.array(want_xyz).reshape(shape + (3,))
    c.check(np.allclose(xyz, want_xyz, rtol=0, atol=1e-12 * hw), f"{label}: error_xyz holds the subgrid's targets")
    e_ref, _ = field_reference(src64, k, 0.0, xyz.reshape(-1, 3))
    comp = [np.load(os.path.join(out, f + ".npy")).astype(np.float64) for f in ("ex", "ey", "ez")]
    if faces is None:
        e_tree = np.stack([a[np.ix_(index, index)] for a in comp], -1).reshape(-1, 3)
    else:
        e_tree = np.stack([a[:, index][:, :, index] for a in comp], -1).reshape(-1, 3)
    want = np.linalg.norm(e_tree - e_ref, axis=1) / np.linalg.norm(e_ref, axis=1)
    got = err.reshape(-1).astype(np.float64)
    # E_tree here is the fp32-rounded output (6e-8 relative); the errors are 1e-7..1e-3.
    diff = np.abs(got - want)
    c.check(np.all(diff <= 2e-7 + 1e-3 * want), f"{label}: error.npy equals numpy's float64 direct sum (largest difference {diff.max():.2e}, errors {want.min():.1e}..{want.max():.1e})")
    c.check(want.max() > 0 and want.max() < 1e-2, f"{label}: the errors are the tree's (largest {want.max():.2e})")
    return err


out = os.path.join(d, "plane")
p = run(simscope, "--headless", "--out-dir", out, "--set", "plane.offset=0.25", "--set", "view=error", *common)
c.check(p.returncode == 0, f"headless tree run exits 0 ({p.returncode}: {p.stderr.strip()[-300:]})")
if p.returncode == 0:
    err = check_errors(out, None, "plane")
    man = json.load(open(os.path.join(out, "run.json")))
    c.check(man["stats"].get("method_tree") == 1 and man["stats"].get("error_grid") == m, f"run.json: method_tree, error_grid {man['stats'].get('error_grid')}")
    names = [o["name"] for o in man.get("outputs", [])]
    c.check("error" in names and "error_xyz" in names, f"run.json lists the error outputs ({names})")
    view = man.get("render", {}).get("view", {})
    c.check(view.get("output") == "error" and view.get("scale") == "log", f"view.png shows the error view, log scale: {view}")
    img, _ = read_png(os.path.join(out, "view.png"))
    c.check(len(np.unique(img.reshape(-1, img.shape[2])[:, :3], axis=0)) > 20, "view.png shows a coloured image")

out = os.path.join(d, "box")
p = run(simscope, "--headless", "--no-image", "--out-dir", out, "--set", "plane=box", "--set", "plane.offset=1.2", *common)
c.check(p.returncode == 0, f"headless tree box run exits 0 ({p.returncode}: {p.stderr.strip()[-300:]})")
if p.returncode == 0:
    faces = [("yz", -1.2), ("yz", 1.2), ("xz", -1.2), ("xz", 1.2), ("xy", -1.2), ("xy", 1.2)]
    check_errors(out, faces, "box")

out = os.path.join(d, "direct")
p = run(simscope, "--headless", "--no-image", "--out-dir", out, *common, "--set", "method=direct")
c.check(p.returncode == 0 and os.path.exists(os.path.join(out, "magnitude.npy"))
        and not os.path.exists(os.path.join(out, "error.npy")), "method=direct writes no error.npy")
if p.returncode == 0:  # tree.* set with method=direct: the usual "not used" warning
    man = json.load(open(os.path.join(out, "run.json")))
    want = "method=direct, so tree.tolerance, tree.error_grid are not used (direct sums are exact)"
    c.check(want in man["warnings"] and f"simscope: warning: {want}" in p.stderr,
            f"method=direct: the tree's settings are not used ({man['warnings']})")
# method=auto that chose direct sums (20000 sources x 30^2 targets < 1e9 pairs): the same.
out = os.path.join(d, "auto_direct")
p = run(simscope, "--headless", "--no-image", "--out-dir", out, *common, "--set", "method=auto")
if p.returncode == 0:
    man = json.load(open(os.path.join(out, "run.json")))
    want = (f"method=auto chose direct sums ({P * n * n:.3g} source-target pairs), so "
            "tree.tolerance, tree.error_grid are not used (direct sums are exact)")
    c.check(man["stats"].get("method_tree") == 0 and want in man["warnings"]
            and want in p.stderr, f"method=auto, direct: the tree's settings are not used "
            f"({man['warnings']}, {p.stderr.strip()[-300:]!r})")
else:
    c.check(False, f"method=auto exits 0 ({p.stderr.strip()[-300:]})")
# tree.error_grid above grid.size: clamped to it, and said so with both values.
out = os.path.join(d, "clamped")
p = run(simscope, "--headless", "--no-image", "--out-dir", out, *common, "--set", "grid.size=12",
        "--set", "tree.error_grid=40")
if p.returncode == 0:
    man = json.load(open(os.path.join(out, "run.json")))
    shape = np.load(os.path.join(out, "error.npy")).shape
    want = ("tree.error_grid = 40 is more than grid.size = 12: the error view uses 12 x 12 "
            "samples (it cannot be finer than the grid)")
    c.check(shape == (12, 12) and man["stats"].get("error_grid") == 12,
            f"tree.error_grid=40 on a 12 x 12 grid: error.npy {shape}")
    c.check(want in man["warnings"] and f"simscope: warning: {want}" in p.stderr,
            f"the clamp is said, naming both values ({man['warnings']})")
    p2 = run(simscope, "--headless", "--no-image", "--out-dir", out + "_12", *common,
             "--set", "grid.size=12", "--set", "tree.error_grid=12")
    c.check(p2.returncode == 0 and "tree.error_grid" not in p2.stderr,
            f"tree.error_grid = grid.size: no warning ({p2.stderr.strip()[-200:]!r})")
else:
    c.check(False, f"tree.error_grid=40 on a 12 x 12 grid exits 0 ({p.stderr.strip()[-300:]})")
p = run(simscope, "--headless", "--no-image", "--out-dir", out, *common, "--set", "tree.error_grid=65")
c.check(p.returncode == 2 and "tree.error_grid" in p.stderr, f"tree.error_grid=65 is refused by name ({p.stderr.strip()[-200:]})")

# Cancelling charges at tolerance 1e-6: fp64 keeps it (the near field in float64; the measured
# error over the whole 32 x 32 grid, 1024 sampled targets); fp32 cannot, returns its best, and says so in
# the stat tolerance_met, run.json's warnings and on stderr, each once.
dip = ["--backend", "cpu", "--set", "sources.distribution=dipoles", "--set", "sources.count=20000",
       "--set", "method=tree", "--set", "tree.tolerance=1e-6", "--set", "plane.offset=3",
       "--set", "grid.half_width=3", "--set", "grid.size=32"]
for prec in ("fp64", "fp32"):
    o = out + "_dipoles_" + prec
    p = run(simscope, "--headless", "--no-image", "--out-dir", o, *dip, "--set", f"precision={prec}")
    c.check(p.returncode == 0, f"dipoles {prec}: exit 0 ({p.stderr.strip()[-200:]})")
    if p.returncode != 0:
        continue
    m_ = json.load(open(os.path.join(o, "run.json")))
    st, warns = m_["stats"], [w for w in m_["warnings"] if "tree.tolerance" in w]
    lines = [l for l in p.stderr.splitlines() if "exceed tree.tolerance" in l]
    if prec == "fp64":
        c.check(st["tolerance_met"] == 1 and st["rms_rel_error"] <= 1e-6 and not warns and not lines,
                f"dipoles fp64: tolerance 1e-6 met ({st['rms_rel_error']:.3g}), no warning")
    else:
        c.check(st["tolerance_met"] == 0 and st["rms_rel_error"] > 1e-6 and len(warns) == 1 and
                len(lines) == 1 and "precision=fp64" in warns[0],
                f"dipoles fp32: the miss is said once in run.json and on stderr "
                f"({st['tolerance_met']}, {st['rms_rel_error']:.3g}, {warns}, {lines})")
sys.exit(c.done())
