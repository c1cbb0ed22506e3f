"""The four seeds' programs as their authors port them after reading README (issue 42): one
test per seed, each check one call of what a user types (plus at most three lines), against
numpy or the seed's own loop. Items of issue 42: 1 show (test_show.py), 2 the oscillators'
averaged steps, 5 presets, 6 words, 7 shapes and types, 8 the CLI's mask; the _repr_png_
pictures in test_repr_png.py, the loops in test_original_loops.py."""
import os
import subprocess

import numpy as np
import pytest

import simscope

torch = pytest.importorskip("torch")  # the seeds' own inputs are torch tensors


def test_seed_field():
    """The field seed: torch sources with a (P, 1) `characteristic` column, planes at
    `for z in zl` (0-d tensors), its words."""
    rng = np.random.default_rng(0)
    pos = torch.from_numpy(rng.uniform(-750, 750, (3000, 3)))
    characteristic = torch.from_numpy(rng.choice([-1e-9, 1e-9], (3000, 1)))
    zl = torch.tensor([-1000.0, 1000.0])
    # 7: the (P, 1) column as charges=, the seed's 0-d tensors as plane_offset
    src = simscope.Sources(pos, charges=characteristic, k=8.99e9, method="direct")
    planes = [src.field(plane="xy", plane_offset=z, grid_size=24, grid_half_width=995)
              for z in zl]
    want = [simscope.field(pos.numpy(), charges=characteristic.numpy()[:, 0], k=8.99e9,
                           method="direct", plane="xy", plane_offset=z, grid_size=24,
                           grid_half_width=995).magnitude for z in (-1000.0, 1000.0)]
    for p, w in zip(planes, want):
        assert isinstance(p.magnitude, torch.Tensor) and np.array_equal(p.magnitude.numpy(), w)
    assert planes[1].params["plane.offset"] == 1000.0
    # ... and an exact float64 sum of one plane, independently
    u = np.linspace(-995, 995, 24)
    x, y = np.meshgrid(u, u, indexing="ij")
    t = np.stack([x.ravel(), y.ravel(), np.full(x.size, 1000.0)], 1)
    d = pos.numpy()[None] - t[:, None]
    e = 8.99e9 * (characteristic.numpy().astype(np.float32).astype(np.float64)[None] * d
                  / ((d * d).sum(-1, keepdims=True) ** 1.5)).sum(1)
    assert np.allclose(planes[1].magnitude.numpy().ravel(), np.linalg.norm(e, axis=1),
                       rtol=1e-4)
    # 6: the seed's words
    with pytest.raises(ValueError, match=r"did you mean 'sources_count' or 'grid_size'\?"):
        simscope.field(pos, points=200)
    # 7: a tensor that requires grad: one line naming the argument
    with pytest.raises(ValueError, match=r"^sources: a tensor that requires grad; .*"
                                         r"sources.detach\(\)"):
        simscope.field(pos.clone().requires_grad_(), grid_size=8)
    with pytest.raises(ValueError, match=r"^charges: a tensor that requires grad"):
        simscope.field(pos, charges=characteristic.clone().requires_grad_(), grid_size=8)
    r = simscope.field(pos, grid_size=8, plane_offset=torch.tensor(5.0, requires_grad=True))
    assert r.params["plane.offset"] == 5.0  # a parameter is a number: its value is taken


def test_seed_lsq_gaps(cli, tmp_path):
    """Seed 001: A = randn(N, M), 50 observations of 100 unknowns, gaps as a 0/1 mask; the
    preset of its sizes; the CLI's mask before its inf check."""
    p = simscope.preset("seed-lsq")["params"]  # 5: the seed's A is 50 x 100
    r = simscope.run("lsq", params=dict(p, **{"synth.height": 6, "synth.width": 7}))
    assert r.solution.shape == (100, 6, 7) and (p["synth.observations"], p["synth.unknowns"]) \
        == (50, 100)
    rng = np.random.default_rng(1)
    A = rng.standard_normal((50, 100))
    B = rng.standard_normal((50, 4, 5))
    seen = (rng.random(B.shape) > 0.2).astype(np.uint8)  # 1 = observed, as the CLI's file
    B[seen == 0] = np.inf  # missing whatever it holds (docs/python.md)
    x = np.stack([np.linalg.lstsq(A[seen[:, i, j] == 1], B[seen[:, i, j] == 1, i, j],
                                  rcond=None)[0] for i in range(4) for j in range(5)], 1)
    x = x.reshape(100, 4, 5)
    # 7: a uint8 (also int, bool) mask; a nested-list cube with it
    for mask in (seen, seen.astype(np.int64), seen.astype(bool)):
        r = simscope.lsq(B, A, mask=mask)
        assert np.allclose(r.solution, x, atol=1e-10), mask.dtype
    r = simscope.lsq(B.tolist(), A, mask=seen)
    assert np.allclose(r.solution, x, atol=1e-10)
    with pytest.raises(ValueError, match=r"mask: entry \[0, 0, 0\] is 2"):
        simscope.lsq(B, A, mask=np.full(B.shape, 2, np.uint8))
    # 8: the CLI applies the mask first, as Python: the same solution
    np.save(tmp_path / "b.npy", B), np.save(tmp_path / "a.npy", A)
    np.save(tmp_path / "m.npy", seen)
    outs, err = cli.run("lsq", {"data.file": tmp_path / "b.npy", "design.file": tmp_path / "a.npy",
                                "data.mask": tmp_path / "m.npy"})
    assert outs is not None, err
    assert np.allclose(outs["solution"], x, atol=1e-10)
    m, h, w = np.argwhere(seen == 0)[0]
    seen[m, h, w] = 1  # an inf where the mask says observed: refused, naming it
    np.save(tmp_path / "m.npy", seen)
    assert "entry [%d, %d, %d] is inf" % (m, h, w) in cli.error(
        "lsq", {"data.file": tmp_path / "b.npy", "design.file": tmp_path / "a.npy",
                "data.mask": tmp_path / "m.npy"})


def test_seed_lsq_no_gaps():
    """Seed 003: no gaps, A 50 x 100 (torch): every pixel's minimum-norm solution, pinv(A) @ B;
    the preset of its sizes."""
    p = simscope.preset("seed-lsq-rank")["params"]  # 5: 500 x 500 as docs/cli.md says
    assert (p["synth.height"], p["synth.width"], p["synth.observations"],
            p["synth.unknowns"], p["synth.nan_fraction"]) == (500, 500, 50, 100, 0)
    rng = np.random.default_rng(3)
    A = torch.from_numpy(rng.standard_normal((50, 100)))
    B = torch.from_numpy(rng.standard_normal((50, 30, 40)))
    r = simscope.lsq(B, A)
    want = (np.linalg.pinv(A.numpy()) @ B.numpy().reshape(50, -1)).reshape(100, 30, 40)
    assert isinstance(r.solution, torch.Tensor)
    assert np.abs(r.solution.numpy() - want).max() < 1e-10
    with pytest.raises(ValueError, match=r"^design: a tensor that requires grad"):
        simscope.lsq(B, A.clone().requires_grad_())


def readme_oscillators_loop(G, x0, y0, w, c, e, dt, STEPS):
    """docs/python.md's loop (test_original_loops checks that it is the example's), as a
    function."""
    K = len(G)
    msd = np.zeros(K)

    def f(x, y, G):
        r2 = x * x + y * y
        return (x - w * y - (x + c * y) * r2 + e / 2 * (G @ x - 2 * x),
                y + w * x - (y - c * x) * r2)

    for m in range(K):
        x, y = x0[m].copy(), y0[m].copy()
        for _ in range(STEPS):
            k1 = f(x, y, G[m])
            k2 = f(x + dt / 2 * k1[0], y + dt / 2 * k1[1], G[m])
            k3 = f(x + dt / 2 * k2[0], y + dt / 2 * k2[1], G[m])
            k4 = f(x + dt * k3[0], y + dt * k3[1], G[m])
            x = x + dt / 6 * (k1[0] + 2 * k2[0] + 2 * k3[0] + k4[0])
            y = y + dt / 6 * (k1[1] + 2 * k2[1] + 2 * k3[1] + k4[1])
            msd[m] += ((x - x.mean()) ** 2).mean() / STEPS
    return msd


def test_seed_oscillators(exe):
    """The oscillators seed: its own (K, N, N) torch networks, X and Y apart, docs/python.md's pair
    agreeing, the preset's parameters beside its networks, its words."""
    rng = np.random.default_rng(2)
    K, N, STEPS = 3, 12, 300
    G = np.zeros((K, N, N))
    i = np.arange(N)
    G[:, i, (i + 1) % N] = G[:, (i + 1) % N, i] = 1
    G[1, 0, 5] = G[1, 5, 0] = 1  # not all rings
    x0, y0 = rng.standard_normal((2, K, N))
    kw = dict(model_omega=1.0, model_c=1.0, model_coupling=0.2, model_coupling_form="literal",
              model_coupling_degree=2, integrator_dt=0.01, integrator_steps=STEPS)
    # 2: docs/python.md's pair averages the same steps, and the result says which
    r = simscope.oscillators.study((x0, y0), networks=G, integrator_transient=0, **kw)
    loop = readme_oscillators_loop(G, x0, y0, 1.0, 1.0, 0.2, 0.01, STEPS)
    assert np.abs(r.msd - loop).max() / np.abs(loop).max() < 1e-12
    assert (r.stats["transient"], r.stats["averaged_steps"]) == (0, STEPS)
    assert repr(r).endswith("; msd averaged over steps 1 to 300>"), repr(r)
    d = simscope.oscillators.study((x0, y0), networks=G, **dict(kw, integrator_steps=8000))
    assert repr(d).endswith("; msd averaged over steps 5001 to 8000>"), repr(d)  # the default
    # 7: torch networks and a torch (x, y) pair give torch results, equal to numpy's
    t = simscope.oscillators.study(networks=torch.from_numpy(G), initial=(
        torch.from_numpy(x0), torch.from_numpy(y0)), integrator_transient=0, **kw)
    assert isinstance(t.msd, torch.Tensor) and np.array_equal(t.msd.numpy(), r.msd)
    s = simscope.oscillators.study(np.stack([x0, y0], -1), networks=G, integrator_transient=0,
                                   **dict(kw, model_coupling=torch.tensor(0.2, dtype=torch.float64)))  # 0-d
    assert np.array_equal(s.msd, r.msd)
    # 5: the preset's parameters beside the user's networks: theirs win, with a note
    pp = dict(simscope.preset("seed-oscillators")["params"], **{"integrator.steps": STEPS})
    p = simscope.oscillators.study((x0, y0), networks=G, params=pp)
    want = readme_oscillators_loop(G, x0, y0, pp["model.omega"], pp["model.c"],
                                   pp["model.coupling"], pp["integrator.dt"], STEPS)
    assert np.abs(p.msd - want).max() / np.abs(want).max() < 1e-12, p.warnings
    assert any("network.nodes = 12" in w and "params' network.nodes = 100" in w
               for w in p.warnings), p.warnings
    # 6: docs/python.md's "K networks" and the seed's "topologies" are ensemble_size
    for word in ("K", "topologies"):
        with pytest.raises(ValueError, match=r"\(did you mean 'ensemble_size'\?\)"):
            simscope.oscillators.study(**{word: 16})
    cmd = [exe, "--headless", "--workload", "oscillators", "--set", "K=16"]
    err = subprocess.run(cmd, capture_output=True, text=True, timeout=60).stderr.strip()
    assert err == ("simscope: error: unknown parameter 'K' for workload 'oscillators' (did you "
                   "mean 'ensemble.size'?); --list-params oscillators lists them all"), err
