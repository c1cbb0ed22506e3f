"""End to end: the oscillators workload headless. A tiny study whose outputs (shapes, dtypes and
values) are compared with numpy's own float64 RK4 of the same equations (dense G, msd every step,
samples every record.every steps); an initial state written by numpy; state.npy as init.file
(a 200 + 200 step run equals a 400 step one); a weighted edge-list file; a member that goes
non-finite (flagged, excluded, counted; the study goes on); bad inputs (non-zero exit, the line or
parameter named, no outputs). Usage: e2e_oscillators.py SIMSCOPE"""
import json
import os
import shutil
import subprocess
import sys

import numpy as np

from gui_util import xvfb_run
from simscope_test_util import Checker, read_png, run, scratch

simscope = os.path.abspath(sys.argv[1])
c = Checker()
d = scratch("e2e_oscillators")


def rk4_numpy(G, X, Y, w, cc, e, dt, steps, transient, every):
    """The Stuart-Landau equations (docs/oscillators.md) for K members at once
    (X, Y: (K, N)); G: (N, N) or (K, N, N)."""
    deg = G.sum(-1)

    def f(X, Y):
        GX = np.einsum("...ij,kj->ki", G, X) if G.ndim == 2 else np.einsum("kij,kj->ki", G, X)
        lap = GX - deg * X
        r2 = X * X + Y * Y
        return (X - w * Y - (X + cc * Y) * r2 + e / 2 * lap, Y + w * X - (Y - cc * X) * r2)

    K = X.shape[0]
    msd_sum = np.zeros(K)
    msd_t, order_t = [], []
    for g in range(1, steps + 1):
        k1 = f(X, Y)
        k2 = f(X + dt / 2 * k1[0], Y + dt / 2 * k1[1])
        k3 = f(X + dt / 2 * k2[0], Y + dt / 2 * k2[1])
        k4 = f(X + dt * k3[0], Y + dt * k3[1])
        X = X + dt / 6 * (k1[0] + 2 * k2[0] + 2 * k3[0] + k4[0])
        Y = Y + dt / 6 * (k1[1] + 2 * k2[1] + 2 * k3[1] + k4[1])
        msd = ((X - X.mean(1, keepdims=True)) ** 2).mean(1)
        if g > transient:
            msd_sum += msd
        if g % every == 0:
            th = np.arctan2(Y, X)
            R = np.abs(np.exp(1j * th).mean(1))
            ok = np.isfinite(msd) & np.isfinite(R)
            msd_t.append(msd[ok].mean())
            order_t.append(R[ok].mean())
    return X, Y, msd_sum / (steps - transient), np.array(msd_t), np.array(order_t)


def ring_G(N, k):
    G = np.zeros((N, N))
    for i in range(N):
        for j in range(1, k // 2 + 1):
            G[i, (i + j) % N] = G[(i + j) % N, i] = 1
    return G


def rel(a, b):
    return float(np.max(np.abs(a - b)) / max(np.max(np.abs(b)), 1e-300))


def headless(out, *sets, image=True):
    args = ["--workload", "oscillators", "--headless", "--out-dir", out, "--backend", "cpu"]
    if not image:
        args.append("--no-image")
    for s in sets:
        args += ["--set", s]
    return run(simscope, *args)


# ---- a tiny study against numpy --------------------------------------------------------------
N, K, steps, transient, every, dt = 7, 3, 300, 80, 10, 0.01
w, cc, e = 1.3, 0.6, 0.45
rng = np.random.default_rng(7)
init = rng.standard_normal((K, N, 2))
np.save(os.path.join(d, "init.npy"), init)
common = [f"network.nodes={N}", "network.topology=ring", "network.k=2", f"ensemble.size={K}",
          f"model.omega={w}", f"model.c={cc}", f"model.coupling={e}", "init=file",
          f"integrator.dt={dt}", f"integrator.transient={transient}", f"record.every={every}"]
out = os.path.join(d, "study")
p = headless(out, *common, f"init.file={d}/init.npy", f"integrator.steps={steps}")
c.check(p.returncode == 0, f"headless study exits 0 ({p.returncode}: {p.stderr.strip()[-300:]})")
if p.returncode == 0:
    X, Y, msd, msd_t, order_t = rk4_numpy(ring_G(N, 2), init[..., 0], init[..., 1], w, cc, e, dt,
                                          steps, transient, every)
    got = {n: np.load(os.path.join(out, n + ".npy")) for n in
           ["msd", "msd_t", "order_t", "phases", "state"]}
    shapes = {n: a.shape for n, a in got.items()}
    c.check(shapes == {"msd": (K,), "msd_t": (steps // every,), "order_t": (steps // every,),
                       "phases": (K, N), "state": (K, N, 2)}, f"output shapes {shapes}")
    c.check(all(a.dtype == np.float64 for a in got.values()), "outputs are float64")
    st = got["state"]
    c.check(np.max(np.abs(st[..., 0] - X)) <= 1e-12 and np.max(np.abs(st[..., 1] - Y)) <= 1e-12,
            f"state.npy equals numpy's RK4 (max diff {np.max(np.abs(st[..., 0] - X)):.2e})")
    c.check(np.max(np.abs(got["phases"] - np.arctan2(Y, X))) <= 1e-12, "phases.npy = atan2(y, x)")
    c.check(rel(got["msd"], msd) <= 1e-10, f"msd.npy: time average after the transient ({rel(got['msd'], msd):.1e})")
    c.check(rel(got["msd_t"], msd_t) <= 1e-10, f"msd_t.npy: ensemble mean every {every} steps")
    c.check(rel(got["order_t"], order_t) <= 1e-10, "order_t.npy: Kuramoto R, ensemble mean")
    man = json.load(open(os.path.join(out, "run.json")))
    s = man["stats"]
    c.check(man["workload"] == "oscillators" and man["params"]["ensemble.size"] == K,
            "run.json names the workload and parameters")
    c.check(abs(s["msd_mean"] - msd.mean()) <= 1e-10 * msd.mean(), "run.json msd_mean = mean of msd")
    sem = msd.std(ddof=1) / np.sqrt(K)
    c.check(abs(s["msd_sem"] - sem) <= 1e-8 * sem, f"run.json msd_sem = std / sqrt(K) ({s['msd_sem']:.4g})")
    c.check(s["nonfinite_members"] == 0 and s["valid_members"] == K, "no member lost")
    c.check(s["osc_steps"] == K * N * steps and s["osc_steps_per_s"] > 0, "osc_steps and rate")
    img, text = read_png(os.path.join(out, "view.png"))
    c.check(len(np.unique(img.reshape(-1, img.shape[2])[:, :3], axis=0)) > 20,
            "view.png shows the phases map")
    c.check("simscope.params" in text and "oscillators" in text.get("simscope.workload", ""),
            "view.png carries the parameters")

    # ---- state.npy as init.file: 300 + 300 steps = 600 steps --------------------------------
    out2 = os.path.join(d, "continued")
    p2 = headless(out2, *common, f"init.file={out}/state.npy", f"integrator.steps={steps}",
                  image=False)
    out3 = os.path.join(d, "straight")
    p3 = headless(out3, *common, f"init.file={d}/init.npy", f"integrator.steps={2 * steps}",
                  image=False)
    c.check(p2.returncode == 0 and p3.returncode == 0, "continued and straight runs exit 0")
    if p2.returncode == 0 and p3.returncode == 0:
        a = np.load(os.path.join(out2, "state.npy"))
        b = np.load(os.path.join(out3, "state.npy"))
        c.check(np.array_equal(a, b), f"state.npy round trip: continued == straight (max diff {np.max(np.abs(a - b)):.1e})")

# ---- (N, 2) init and a weighted edge-list file ------------------------------------------------
N2, K2 = 5, 2
edges = [(0, 1, 0.5), (1, 2, 2.0), (2, 3, 1.0), (3, 4, 0.25), (0, 4, 1.5), (1, 3, 0.75)]
with open(os.path.join(d, "edges.txt"), "w") as fh:
    fh.write("# i j weight\n")
    for i, j, wt in edges:
        fh.write(f"{i} {j} {wt}\n")
G = np.zeros((N2, N2))
for i, j, wt in edges:
    G[i, j] = G[j, i] = wt
init2 = rng.standard_normal((N2, 2))
np.save(os.path.join(d, "init2.npy"), init2.astype(np.float32))
out = os.path.join(d, "file")
p = headless(out, f"network.nodes={N2}", "network.topology=file", f"network.file={d}/edges.txt",
             f"ensemble.size={K2}", "init=file", f"init.file={d}/init2.npy", "integrator.steps=150",
             "integrator.transient=0", "record.every=1", "model.coupling=0.8", image=False)
c.check(p.returncode == 0, f"edge-list run exits 0 ({p.stderr.strip()[-300:]})")
if p.returncode == 0:
    i32 = init2.astype(np.float32).astype(np.float64)
    X0 = np.tile(i32[:, 0], (K2, 1))
    Y0 = np.tile(i32[:, 1], (K2, 1))
    X, Y, msd, msd_t, order_t = rk4_numpy(G, X0, Y0, 1.0, 1.0, 0.8, 0.01, 150, 0, 1)
    st = np.load(os.path.join(out, "state.npy"))
    c.check(np.max(np.abs(st[..., 0] - X)) <= 1e-12, "weighted edge list: state equals numpy (dense weighted G)")
    c.check(rel(np.load(os.path.join(out, "msd_t.npy")), msd_t) <= 1e-10, "weighted edge list: msd_t")

# ---- a member that goes non-finite ------------------------------------------------------------
init3 = np.zeros((4, 6, 2))
init3[..., 0] = 1.0
init3[1, :, 0] = 50.0
np.save(os.path.join(d, "blowup.npy"), init3)
out = os.path.join(d, "blowup")
p = headless(out, "network.nodes=6", "network.topology=ring", "network.k=2", "ensemble.size=4",
             "init=file", f"init.file={d}/blowup.npy", "integrator.dt=0.1", "integrator.steps=300",
             "integrator.transient=50", "record.every=10", image=False)
c.check(p.returncode == 0, f"a study with a non-finite member still exits 0 ({p.stderr.strip()[-200:]})")
if p.returncode == 0:
    man = json.load(open(os.path.join(out, "run.json")))
    m = np.load(os.path.join(out, "msd.npy"))
    c.check(man["stats"]["nonfinite_members"] == 1 and man["stats"]["valid_members"] == 3,
            "run.json counts the non-finite member")
    c.check(np.isnan(m[1]) and np.all(np.isfinite(m[[0, 2, 3]])), "msd.npy flags it with NaN")
    c.check(any("non-finite" in wmsg for wmsg in man["warnings"]) and "non-finite" in p.stderr,
            "a warning says so")
    c.check(np.all(np.isfinite(np.load(os.path.join(out, "msd_t.npy")))), "msd_t stays finite")

# ---- bad inputs: non-zero exit, named problem, no outputs ---------------------------------------
bad_edges = os.path.join(d, "bad_edges.txt")
with open(bad_edges, "w") as fh:
    fh.write("0 1\n1 2\n2 9\n")
malformed = os.path.join(d, "malformed.txt")
with open(malformed, "w") as fh:
    fh.write("0 1\n1 two\n")
np.save(os.path.join(d, "wrong_shape.npy"), np.zeros((3, 4, 2)))
cases = [
    ("edge naming node >= N", ["network.nodes=5", "network.topology=file",
                               f"network.file={bad_edges}"], ["line 3", "9"]),
    ("malformed edge line", ["network.nodes=5", "network.topology=file",
                             f"network.file={malformed}"], ["line 2"]),
    ("negative dt", ["integrator.dt=-0.01"], ["integrator.dt"]),
    ("NaN dt", ["integrator.dt=nan"], ["integrator.dt"]),
    ("N = 0", ["network.nodes=0"], ["network.nodes"]),
    ("K = 0", ["ensemble.size=0"], ["ensemble.size"]),
    ("odd ring degree", ["network.topology=ring", "network.k=3"], ["network.k"]),
    ("transient >= steps", ["integrator.steps=100", "integrator.transient=100"],
     ["integrator.transient"]),
    ("init file of the wrong shape", ["init=file", f"init.file={d}/wrong_shape.npy"],
     ["wrong_shape.npy", "shape"]),
]
for label, sets, words in cases:
    out = os.path.join(d, "bad_" + label.replace(" ", "_").replace(">", "").replace("=", ""))
    p = headless(out, *sets)
    msg = p.stderr.strip()
    c.check(p.returncode in (1, 2), f"{label}: simscope's own error status 1 or 2 ({p.returncode})")
    c.check(all(wd in msg for wd in words), f"{label}: message names {words}: {msg[-160:]!r}")
    c.check(not os.path.exists(out) or not os.listdir(out), f"{label}: no outputs")

# ---- the live GUI under Xvfb: the phase view in the centre --------------------------------------
if shutil.which("Xvfb") is None:
    c.check(False, "Xvfb not found: install xvfb")
else:
    shot = os.path.join(d, "gui.png")
    env = dict(os.environ, HOME=d, XDG_CONFIG_HOME=d)  # fresh QSettings
    p = subprocess.run([*xvfb_run("1280x800"), simscope, "--workload",
                        "oscillators", "--backend", "cpu", "--frames", "20", "--screenshot", shot],
                       capture_output=True, text=True, timeout=300, env=env, cwd=d)
    c.check(p.returncode == 0, f"GUI exits 0 after 20 frames ({p.returncode}: {p.stderr.strip()[-300:]})")
    c.check("phase view upload path: host upload" in p.stderr, "the phase view's upload path is logged")
    if os.path.exists(shot):
        img, _ = read_png(shot)
        h, wd, _ = img.shape
        centre = img[h // 4: 3 * h // 4, wd // 2 - 150: wd // 2 + 150, :3].reshape(-1, 3)
        c.check(len(np.unique(centre, axis=0)) > 50, "the phase view draws coloured oscillators")
c.done()
