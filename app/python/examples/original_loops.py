"""The original questions (docs/python.md, "Your code -> simscope") as their askers wrote them, a
Python loop each (in numpy; Numba is not in this set-up), beside one simscope call; prints both
times and the largest difference, and fails (exit 1) where they disagree beyond what the call
promises. With PyTorch installed (Debian's python3-torch), also the same call on torch tensors (read
through DLPack without a copy, torch tensors back). docs/python.md's loops ("Your code -> simscope")
are cut from this file (python.test_original_loops checks that they appear here as printed).
Sizes are cut down from the originals so that the loops finish in seconds on a small machine;
--small cuts them further (the test runs that).
Run: PYTHONPATH=build/python python3 THIS_FILE [--small]"""

import sys
import time

import numpy as np

import simscope

try:
    import torch
except ImportError:  # the numpy calls still run
    torch = None

SMALL = "--small" in sys.argv[1:]
failures = []


def timed(f):
    t0 = time.perf_counter()
    out = f()
    return out, time.perf_counter() - t0


def agree(name, diff, bound):
    """Records a disagreement larger than `bound`."""
    if not diff <= bound:
        failures.append("%s: difference %.2e above %.0e" % (name, diff, bound))


def on_torch(call, numpy_result, name, *arrays, **kwargs):
    """The same call on torch tensors: its time, and that it gave torch tensors equal to the
    numpy call's."""
    if torch is None:
        return
    tensors = [torch.from_numpy(a) for a in arrays]
    out, t = timed(lambda: call(*tensors, **kwargs))
    assert isinstance(out[name], torch.Tensor)
    assert np.array_equal(out[name].numpy(), numpy_result[name], equal_nan=True)
    print("        the same call on torch tensors: %.2f s, %s results" % (t, out[name].dtype))


rng = np.random.default_rng(1)

# ---- 1. field: P sources, two n x n planes at z = -1000 and +1000 ---------------------------
P, n, factor, chunk = (500, 40, 8.99e9, 25) if SMALL else (5000, 200, 8.99e9, 25)
src = np.hstack([rng.uniform(-750, 750, size=(P, 3)), rng.choice([-1e-9, 1e-9], size=(P, 1))])
q = src[:, 3]
u = np.linspace(-995, 995, n)
gx, gy = np.meshgrid(u, u, indexing="ij")
targets = np.concatenate([np.stack([gx.ravel(), gy.ravel(), np.full(n * n, z)], 1)
                          for z in (-1000.0, 1000.0)])


# The original: a loop over chunks of sources, summing into E.
t0 = time.perf_counter()
E = np.zeros((len(targets), 3))
# E[t] += factor * q[j] * (y[j] - x[t]) / |y[j] - x[t]|^3, over chunks of sources j
for c in range(0, P, chunk):
    d = src[None, c:c + chunk, :3] - targets[:, None, :]
    E += factor * (q[None, c:c + chunk, None] * d / (d * d).sum(-1, keepdims=True) ** 1.5).sum(1)
ref, t_loop = np.linalg.norm(E, axis=1), time.perf_counter() - t0
res, t_call = timed(lambda: simscope.field(src, targets, k=factor, precision="fp64"))
err = np.abs(res.magnitude - ref).max() / np.abs(ref).max()
agree("field", err, 1e-6)  # float32 outputs
print("field   %d sources x %d targets: loop %.2f s, simscope.field %.2f s (%s), max rel "
      "diff %.1e" % (P, len(targets), t_loop, t_call, res.backend, err))
on_torch(simscope.field, res, "magnitude", src, targets, k=factor, precision="fp64")

# ---- 2. lsq: per-pixel least squares, 20 % NaN -----------------------------------------------
H = W = 20 if SMALL else 100
M, N = 100, 50  # 100 observations of 50 unknowns
A = rng.normal(size=(M, N))
b = np.einsum("mn,nhw->mhw", A, rng.normal(size=(N, H, W))) + 0.01 * rng.normal(size=(M, H, W))
b[rng.random(b.shape) < 0.2] = np.nan


def lsq_loop():  # the original: one numpy.linalg.lstsq per pixel on its observed rows
    x = np.empty((N, H, W))
    for i in range(H):
        for j in range(W):
            o = ~np.isnan(b[:, i, j])
            x[:, i, j] = np.linalg.lstsq(A[o], b[o, i, j], rcond=None)[0]
    return x


ref, t_loop = timed(lsq_loop)
res, t_call = timed(lambda: simscope.lsq(b, A))
err = np.abs(res.solution - ref).max()
agree("lsq", err, 1e-10)
print("lsq     %d x %d pixels, M = %d, N = %d: loop %.2f s, simscope.lsq %.2f s (%s), max abs "
      "diff %.1e" % (H, W, M, N, t_loop, t_call, res.backend, err))
on_torch(simscope.lsq, res, "solution", b, A)

# The seeds' own A = randn(N, M): 50 observations of 100 unknowns, no gaps (seed 003): every
# pixel's minimum-norm solution, pinv(A) @ B.
A2 = rng.normal(size=(50, 100))
B2 = rng.normal(size=(50, H, W))
ref, t_loop = timed(lambda: (np.linalg.pinv(A2) @ B2.reshape(50, -1)).reshape(100, H, W))
res, t_call = timed(lambda: simscope.lsq(B2, A2))
err = np.abs(res.solution - ref).max()
agree("lsq no gaps", err, 1e-10)
print("lsq     %d x %d pixels, M = 50, N = 100, no gaps: pinv(A) @ B %.2f s, simscope.lsq %.2f s "
      "(%s), max abs diff %.1e" % (H, W, t_loop, t_call, res.backend, err))

# ---- 3. oscillators: Stuart-Landau rings, RK4, time-averaged msd ----------------------------
K, N, STEPS = (4, 20, 500) if SMALL else (8, 100, 5000)
w, c, e, dt = 1.0, 1.0, 0.2, 0.01
G = np.zeros((K, N, N))
i = np.arange(N)
G[:, i, (i + 1) % N] = G[:, (i + 1) % N, i] = 1    # rings
x0, y0 = rng.normal(size=(2, K, N))


def osc_loop():  # the original: per topology, a Python loop of RK4 steps over numpy vectors
    msd = np.zeros(K)

    def f(x, y, G):                                     # (G @ x - 2 x) e/2: your coupling
        r2 = x * x + y * y
        return (x - w * y - (x + c * y) * r2 + e / 2 * (G @ x - 2 * x),
                y + w * x - (y - c * x) * r2)

    for m in range(K):                                  # each topology G[m], N nodes
        x, y = x0[m].copy(), y0[m].copy()
        for _ in range(STEPS):
            k1 = f(x, y, G[m])
            k2 = f(x + dt / 2 * k1[0], y + dt / 2 * k1[1], G[m])
            k3 = f(x + dt / 2 * k2[0], y + dt / 2 * k2[1], G[m])
            k4 = f(x + dt * k3[0], y + dt * k3[1], G[m])
            x = x + dt / 6 * (k1[0] + 2 * k2[0] + 2 * k3[0] + k4[0])
            y = y + dt / 6 * (k1[1] + 2 * k2[1] + 2 * k3[1] + k4[1])
            msd[m] += ((x - x.mean()) ** 2).mean() / STEPS  # every step: no transient
    return msd


def osc_call(*initial):
    return simscope.oscillators.study(
        initial, networks=G, model_omega=w, model_c=c, model_coupling=e,
        model_coupling_form="literal", model_coupling_degree=2, integrator_dt=dt,
        integrator_steps=STEPS, integrator_transient=0)


ref, t_loop = timed(osc_loop)
res, t_call = timed(lambda: osc_call(x0, y0))
err = np.abs(res.msd - ref).max() / np.abs(ref).max()
agree("oscillators", err, 1e-12)
agree("oscillators averaged steps", abs(res.stats["averaged_steps"] - STEPS), 0)
print("osc     %d rings of %d, %d RK4 steps: loop %.2f s, simscope.oscillators.study %.2f s "
      "(%s), max rel diff %.1e" % (K, N, STEPS, t_loop, t_call, res.backend, err))
if torch is not None:
    out, t = timed(lambda: osc_call(torch.from_numpy(x0), torch.from_numpy(y0)))
    assert isinstance(out.msd, torch.Tensor) and np.array_equal(out.msd.numpy(), res.msd)
    print("        the same call on torch tensors: %.2f s, %s results" % (t, out.msd.dtype))

for f in failures:
    print("DISAGREE:", f)
sys.exit(1 if failures else 0)
