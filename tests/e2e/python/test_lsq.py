"""simscope.lsq against numpy.linalg.lstsq per pixel, against the CLI's .npy outputs, and on
bad inputs."""

import numpy as np
import pytest

import simscope
from conftest import same_array


def problem(m=24, n=4, h=5, w=6, gaps=0.25, seed=0, dtype=np.float64):
    rng = np.random.default_rng(seed)
    a = rng.normal(size=(m, n))
    x = rng.normal(size=(n, h, w))
    b = np.einsum("mn,nhw->mhw", a, x) + 0.01 * rng.normal(size=(m, h, w))
    b[rng.random(b.shape) < gaps] = np.nan
    b[:, 0, 0] = np.nan            # all missing: status 3
    b[n - 1:, 0, 1] = np.nan       # n - 1 observed rows: underdetermined, status 1
    return b.astype(dtype), a


def lstsq_pixel(a, col, lam=0.0):
    """numpy's float64 least-squares (minimum-norm) solution of one pixel's observed rows."""
    o = ~np.isnan(col)
    ao, bo = a[o], col[o].astype(np.float64)
    if lam > 0:
        n = a.shape[1]
        ao = np.vstack([ao, np.sqrt(lam) * np.eye(n)])
        bo = np.concatenate([bo, np.zeros(n)])
    x = np.linalg.lstsq(ao, bo, rcond=None)[0]
    res = a[o] @ x - col[o]
    return x, np.sqrt(np.mean(res ** 2)), int(o.sum())


@pytest.mark.parametrize("method", ["auto", "normal", "qr", "svd", "downdate"])
@pytest.mark.parametrize("lam", [0.0, 0.3])
def test_against_numpy_lstsq(method, lam):
    b, a = problem()
    r = simscope.lsq(b, a, lam=lam, method=method, backend="cpu")
    n, h, w = r.solution.shape
    assert (n, h, w) == (4, 5, 6) and r.solution.dtype == np.float64
    assert r.count.dtype == np.int32 and r.status.dtype == np.uint8
    assert r.residual.dtype == np.float32 and r.condition.dtype == np.float32
    tol = 1e-6 if method == "normal" else 1e-9
    for i in range(h):
        for j in range(w):
            if i == 0 and j == 0:
                assert r.status[0, 0] == 3 and r.count[0, 0] == 0
                assert np.isnan(r.solution[:, 0, 0]).all()
                continue
            x, rms, cnt = lstsq_pixel(a, b[:, i, j], lam)
            np.testing.assert_allclose(r.solution[:, i, j], x, rtol=0, atol=tol)
            np.testing.assert_allclose(r.residual[i, j], rms, rtol=1e-5, atol=1e-7)
            assert r.count[i, j] == cnt
    assert r.status[0, 1] == 1  # fewer observed rows than unknowns
    assert r.stats["status_all_missing"] == 1 and r.stats["pixels"] == 30


def test_rank_deficient_min_norm():
    b, a = problem(n=3, gaps=0.0)
    a[:, 2] = a[:, 0] + a[:, 1]  # rank 2
    b = np.einsum("mn,nhw->mhw", a, np.ones((3, 5, 6)))
    b[:2, 2, 2] = np.nan
    r = simscope.lsq(b, a, backend="cpu")
    assert (r.status == 2).sum() == 30
    x, _, _ = lstsq_pixel(a, b[:, 2, 2])
    np.testing.assert_allclose(r.solution[:, 2, 2], x, atol=1e-9)


def test_float32_and_layouts():
    b, a = problem(dtype=np.float32)
    base = simscope.lsq(b, a, backend="cpu")
    for bb, aa in [(np.asfortranarray(b), np.asfortranarray(a)),
                   (np.repeat(b, 2, axis=2)[:, :, ::2], a.astype(">f8")),
                   (b.astype(">f4"), np.repeat(a, 2, axis=0)[::2])]:
        r = simscope.lsq(bb, aa, backend="cpu")
        for name in base:
            same_array(r[name], base[name])
    r32 = simscope.lsq(b, a, precision="fp32", backend="cpu")
    assert r32.solution.dtype == np.float32


def test_equals_cli(cli, tmp_path):
    b, a = problem(h=7, w=9, seed=4)
    np.save(tmp_path / "cube.npy", b)
    np.save(tmp_path / "design.npy", a)
    for sets in [{"method": "auto"}, {"method": "qr", "lambda": 0.1, "precision": "fp32"}]:
        outs, err = cli.run("lsq", dict(sets, **{"data.file": tmp_path / "cube.npy",
                                                 "design.file": tmp_path / "design.npy"}))
        assert outs is not None, err
        r = simscope.lsq(b, a, params=sets, backend="cpu")
        assert sorted(r) == sorted(outs)
        for name in outs:
            same_array(r[name], outs[name])


def test_synthetic_run_equals_cli(cli):
    sets = {"synth.height": 12, "synth.width": 10, "synth.observations": 30,
            "synth.unknowns": 5, "synth.nan_fraction": 0.3}
    outs, err = cli.run("lsq", sets)
    assert outs is not None, err
    r = simscope.lsq(params=sets, backend="cpu")
    for name in outs:
        same_array(r[name], outs[name])


def test_bad_inputs_have_the_loaders_messages(cli, tmp_path):
    b, a = problem()
    inf = b.copy()
    inf[3, 2, 1] = np.inf
    for i, bad in enumerate([b[:, 1, 2], b.astype(np.complex64), inf, np.zeros((0, 2, 2))]):
        path = str(tmp_path / ("c%d.npy" % i))
        np.save(path, bad)
        np.save(tmp_path / "a.npy", a)
        expected = cli.error("lsq", {"data.file": path, "design.file": tmp_path / "a.npy"})
        with pytest.raises(ValueError) as e:
            simscope.lsq(bad, a)
        if bad.dtype == np.complex64:  # the .npy reader refuses it before the cube's check
            assert str(e.value) == "cube: dtype complex64 is not supported; expected float32 " \
                                   "or float64"
            assert "complex64" in expected
        else:
            assert str(e.value) == expected.replace("data.file: " + path, "cube"), \
                (str(e.value), expected)
    nan_a = a.copy()
    nan_a[2, 1] = np.nan
    np.save(tmp_path / "cube.npy", b)
    np.save(tmp_path / "nan_a.npy", nan_a)
    expected = cli.error("lsq", {"data.file": tmp_path / "cube.npy",
                                 "design.file": tmp_path / "nan_a.npy"})
    with pytest.raises(ValueError) as e:
        simscope.lsq(b, nan_a)
    assert str(e.value) == expected.replace("design.file: " + str(tmp_path / "nan_a.npy"), "design")
    with pytest.raises(ValueError, match="^lsq: the data cube has M = 24"):
        simscope.lsq(b, a[:20])
    with pytest.raises(ValueError, match="give both cube and design"):
        simscope.lsq(b)


@pytest.mark.parametrize("kwargs,sets", [
    ({"lam": -1.0}, {"lambda": "-1.0"}),
    ({"method": "lu"}, {"method": "lu"}),
    ({"synth_height": 0}, {"synth.height": 0}),
])
def test_bad_values_have_the_cli_message(cli, kwargs, sets):
    # The CLI's message with the keyword typed (lam for lambda, synth_height for synth.height).
    expected = cli.error("lsq", sets)
    (keyword, name), = zip(kwargs, sets)
    assert name in expected
    b, a = problem()
    with pytest.raises(ValueError) as e:
        simscope.lsq(b, a, **kwargs)
    assert str(e.value) == expected.replace(name, keyword)


def test_flat_batch_of_pixels():
    """A (M, P) cube is P pixels: maps (P,), solution (N, P), each pixel numpy's lstsq, and the
    same numbers as the (M, 1, P) cube."""
    b, a = problem(h=1, w=30, seed=3)
    flat = np.ascontiguousarray(b[:, 0, :])
    r = simscope.lsq(flat, a, backend="cpu")
    assert r.solution.shape == (a.shape[1], 30)
    assert r.residual.shape == r.count.shape == r.status.shape == r.condition.shape == (30,)
    cube = simscope.lsq(b, a, backend="cpu")
    for name in cube:
        same_array(r[name], cube[name][..., 0, :])
    for p in range(30):
        if r.status[p] == 0:
            x, res, count = lstsq_pixel(a, flat[:, p])
            np.testing.assert_allclose(r.solution[:, p], x, rtol=0, atol=1e-9)
            assert r.count[p] == count


def test_one_dimensional_design_is_one_column(cli, tmp_path):
    """A 1-D design of M numbers is one column (help(simscope.lsq), docs/lsq.md): N = 1, each
    pixel numpy's lstsq on A[:, None], the same numbers as the (M, 1) design's and as the CLI's
    with a 1-D design.file; a 1-D design of another length is refused naming (M, N)."""
    b, a = problem(n=1, seed=6)
    col = a[:, 0].copy()
    r = simscope.lsq(b, col, backend="cpu")
    assert r.solution.shape == (1, 5, 6)
    two_d = simscope.lsq(b, col[:, None], backend="cpu")
    for name in two_d:
        same_array(r[name], two_d[name])
    for i in range(5):
        for j in range(6):
            if r.status[i, j] == 0:
                x, _, count = lstsq_pixel(col[:, None], b[:, i, j])
                np.testing.assert_allclose(r.solution[:, i, j], x, rtol=0, atol=1e-12)
                assert r.count[i, j] == count
    np.save(tmp_path / "cube.npy", b)
    np.save(tmp_path / "design.npy", col)
    outs, err = cli.run("lsq", {"data.file": tmp_path / "cube.npy",
                                "design.file": tmp_path / "design.npy"})
    assert outs is not None, err
    for name in outs:
        same_array(r[name], outs[name])
    with pytest.raises(ValueError, match=r"^lsq: the data cube has M = 24 .*shape \(M, N\)"):
        simscope.lsq(b, col[:20])


def test_mask_marks_missing_observations():
    """mask=False is missing, as NaN is: the result equals the NaN cube's bit for bit; the
    caller's cube is not changed; a NaN under mask=True stays missing."""
    b, a = problem(gaps=0.0, seed=5)
    rng = np.random.default_rng(7)
    mask = rng.random(b.shape) > 0.3
    before = b.copy()
    r = simscope.lsq(b, a, mask=mask, backend="cpu")
    same_array(b, before)
    gapped = np.where(mask, b, np.nan)
    want = simscope.lsq(gapped, a, backend="cpu")
    for name in want:
        same_array(r[name], want[name])
    np.testing.assert_array_equal(r.count, (mask & ~np.isnan(before)).sum(axis=0))
    # A flat batch with its mask.
    flat, fmask = b.reshape(b.shape[0], -1), mask.reshape(b.shape[0], -1)
    rf = simscope.lsq(flat, a, mask=fmask, backend="cpu")
    same_array(rf.solution, want.solution.reshape(want.solution.shape[0], -1))


def test_mask_of_another_shape_or_dtype_is_refused():
    b, a = problem()
    with pytest.raises(ValueError, match=r"^lsq: mask: expected a boolean array of the cube's "
                                         r"shape \(24, 5, 6\) \(True = observed; or 0/1 "
                                         r"integers\), got bool \(5, 6\)"):
        simscope.lsq(b, a, mask=np.ones((5, 6), bool))
    with pytest.raises(ValueError, match=r"got float64 \(24, 5, 6\)"):
        simscope.lsq(b, a, mask=np.ones(b.shape, np.float64))
    with pytest.raises(ValueError, match=r"^lsq: mask: entry \[0, 0, 1\] is -1; expected "
                                         r"True/1 where observed, False/0 where missing"):
        simscope.lsq(b, a, mask=-np.eye(24, 30, 1, dtype=np.int64).reshape(b.shape))
    with pytest.raises(ValueError, match=r"mask is given without a cube"):
        simscope.lsq(mask=np.ones(b.shape, bool))


def test_mask_on_torch_tensors():
    torch = pytest.importorskip("torch")
    b, a = problem(gaps=0.0, seed=9)
    mask = np.random.default_rng(1).random(b.shape) > 0.25
    r = simscope.lsq(torch.from_numpy(b), torch.from_numpy(a), mask=torch.from_numpy(mask),
                     backend="cpu")
    assert isinstance(r.solution, torch.Tensor)
    want = simscope.lsq(np.where(mask, b, np.nan), a, backend="cpu")
    same_array(r.solution.numpy(), want.solution)
    flat = simscope.lsq(torch.from_numpy(b.reshape(b.shape[0], -1)), torch.from_numpy(a),
                        backend="cpu")
    assert tuple(flat.residual.shape) == (b.shape[1] * b.shape[2],)


def test_mask_on_another_array_library():
    """An array of another library (CuPy, JAX: here numpy.array_api, which has the same
    __array_namespace__ hook and no numpy subclassing) is masked by that library: the result
    equals the NaN cube's bit for bit; a mask of another shape is refused."""
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "numpy.array_api submodule is still experimental"
        xp = pytest.importorskip("numpy.array_api")
    b, a = problem(gaps=0.0, seed=11)
    mask = np.random.default_rng(3).random(b.shape) > 0.3
    cube = xp.asarray(b)
    r = simscope.lsq(cube, a, mask=xp.asarray(mask), backend="cpu")
    want = simscope.lsq(np.where(mask, b, np.nan), a, backend="cpu")
    for name in want:
        same_array(np.asarray(r[name]), want[name])
    with pytest.raises(ValueError, match=r"^lsq: mask: expected a boolean array of the cube's"):
        simscope.lsq(cube, a, mask=xp.asarray(mask[:, :2]), backend="cpu")


def test_fp32_gap_free_within_its_accuracy():
    """fp32's gap-free pixels (seed 003's shape: A 50 x 100, minimum norm; and overdetermined,
    A 100 x 50) are summed from float32 products: within docs/lsq.md's fp32 bound (1e-6) of
    numpy's float64 pinv per pixel, across bands of 256 pixels, also where the data are beyond
    float32's range but the solutions are not (each pixel is scaled by a power of two first)."""
    rng = np.random.default_rng(42)
    for m, n in [(50, 100), (100, 50)]:
        a = 100 * rng.standard_normal((m, n))
        b = rng.standard_normal((m, 17, 31))
        pinv = np.linalg.pinv(a)
        b[:, 3, :] *= 1e38 / np.abs(np.tensordot(pinv, b[:, 3, :], axes=1)).max()
        assert np.abs(b[:, 3, :]).max() > 3.5e38  # the data overflow float32, x does not
        b[:, 5, :] *= 1e300      # x beyond float32 too: inf, counted in a warning
        ref = np.tensordot(pinv, b, axes=1)
        r = simscope.lsq(b, a, precision="fp32", backend="cpu")
        assert r.solution.dtype == np.float32
        x = r.solution.astype(np.float64)
        rows = [h for h in range(17) if h != 5]
        err = (np.linalg.norm(x[:, rows] - ref[:, rows], axis=0)
               / np.linalg.norm(ref[:, rows], axis=0))
        assert err.max() <= 1e-6, (m, n, err.max())
        assert np.isinf(x[:, 5]).all()
        assert any("inf" in w for w in r.warnings), r.warnings


def test_run_takes_lam_as_lsq_does():
    """docs/python.md: `lam` stands for lsq's `lambda` (a Python keyword), in simscope.run as in
    simscope.lsq: the same outputs as params={"lambda": ...}, and a bad value named as typed."""
    kw = dict(synth_height=6, synth_width=5, backend="cpu")
    by_alias = simscope.run("lsq", lam=3.0, **kw)
    by_name = simscope.run("lsq", params={"lambda": 3.0}, **kw)
    plain = simscope.run("lsq", **kw)
    same_array(by_alias.outputs["solution"], by_name.outputs["solution"])
    assert not np.array_equal(by_alias.outputs["solution"], plain.outputs["solution"])
    with pytest.raises(ValueError, match=r"^parameter lam: expected a finite number"):
        simscope.run("lsq", lam=-1, **kw)
