"""The three original questions (DESIGN.md section 1) as their askers wrote them, a Python loop
each (in numpy; Numba is not in this set-up), against one simscope call; prints both times and
the largest difference, and, with PyTorch installed (Debian's python3-torch), the same call on
torch tensors (read through DLPack without a copy, torch tensors back). Sizes are cut down from
the originals so that the loops finish in seconds on a small machine.
Run: PYTHONPATH=build/python python3 THIS_FILE"""

import time

import numpy as np

import simscope

try:
    import torch
except ImportError:  # the numpy calls still run
    torch = None


def timed(f):
    t0 = time.perf_counter()
    out = f()
    return out, time.perf_counter() - t0


# ---- 1. field: P sources, two 200 x 200 planes at z = -1000 and +1000 ---------------------
P, n, k = 5000, 200, 8.99e9
rng = np.random.default_rng(1)
src = np.hstack([rng.uniform(-750, 750, size=(P, 3)), rng.choice([-1e-9, 1e-9], size=(P, 1))])
u = np.linspace(-995, 995, n)
gx, gy = np.meshgrid(u, u, indexing="ij")
targets = np.concatenate([np.stack([gx.ravel(), gy.ravel(), np.full(n * n, z)], 1)
                          for z in (-1000.0, 1000.0)])


def field_loop():  # the original: a loop over chunks of sources, summing into E
    e = np.zeros((len(targets), 3))
    for c in range(0, P, 25):
        d = src[None, c:c + 25, :3] - targets[:, None, :]
        r = np.sqrt((d * d).sum(-1))
        e += k * (src[None, c:c + 25, 3, None] * d / r[..., None] ** 3).sum(1)
    return np.linalg.norm(e, axis=1)


ref, t_loop = timed(field_loop)
res, t_call = timed(lambda: simscope.field(src, targets, k=k, precision="fp64"))
err = np.abs(res.magnitude - ref).max() / np.abs(ref).max()
print("field   %d sources x %d targets: loop %.2f s, simscope.field %.2f s (%s), max rel "
      "diff %.1e" % (P, len(targets), t_loop, t_call, res.backend, err))


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


on_torch(simscope.field, res, "magnitude", src, targets, k=k, precision="fp64")

# ---- 2. lsq: per-pixel least squares, 20 % NaN -----------------------------------------------
H = W = 100
M, N = 100, 50
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
print("lsq     %d x %d pixels, M = %d, N = %d: loop %.2f s, simscope.lsq %.2f s (%s), max abs "
      "diff %.1e" % (H, W, M, N, t_loop, t_call, res.backend, np.abs(res.solution - ref).max()))
on_torch(simscope.lsq, res, "solution", b, A)

# ---- 3. oscillators: Stuart-Landau rings, RK4, time-averaged msd ----------------------------
K, NODES, STEPS, DT, w, c, eps = 8, 100, 5000, 0.01, 1.0, 1.0, 0.2
init = rng.normal(size=(K, NODES, 2))


def osc_loop():  # the original: per topology, a Python loop of RK4 steps over numpy vectors
    def f(x, y):
        r2 = x * x + y * y
        lap = np.roll(x, 1) + np.roll(x, -1) - 2 * x  # (G.X - 2X) on the ring
        return x - w * y - (x + c * y) * r2 + eps / 2 * lap, y + w * x - (y - c * x) * r2
    msd = np.zeros(K)
    for m in range(K):
        x, y = init[m, :, 0].copy(), init[m, :, 1].copy()
        for _ in range(STEPS):
            k1 = f(x, y)
            k2 = f(x + DT / 2 * k1[0], y + DT / 2 * k1[1])
            k3 = f(x + DT / 2 * k2[0], y + DT / 2 * k2[1])
            k4 = f(x + DT * k3[0], y + DT * k3[1])
            x = x + DT / 6 * (k1[0] + 2 * k2[0] + 2 * k3[0] + k4[0])
            y = y + DT / 6 * (k1[1] + 2 * k2[1] + 2 * k3[1] + k4[1])
            msd[m] += ((x - x.mean()) ** 2).mean()
    return msd / STEPS


ref, t_loop = timed(osc_loop)
res, t_call = timed(lambda: simscope.oscillators.study(
    init, network_nodes=NODES, network_topology="ring", network_k=2, ensemble_size=K,
    model_omega=w, model_c=c, model_coupling=eps, integrator_dt=DT, integrator_steps=STEPS,
    integrator_transient=0))
print("osc     %d rings of %d, %d RK4 steps: loop %.2f s, simscope.oscillators.study %.2f s "
      "(%s), max rel diff %.1e" % (K, NODES, STEPS, t_loop, t_call, res.backend,
                                   np.abs(res.msd - ref).max() / np.abs(ref).max()))
on_torch(simscope.oscillators.study, res, "msd", init, network_nodes=NODES,
         network_topology="ring", network_k=2, ensemble_size=K, model_omega=w, model_c=c,
         model_coupling=eps, integrator_dt=DT, integrator_steps=STEPS, integrator_transient=0)
