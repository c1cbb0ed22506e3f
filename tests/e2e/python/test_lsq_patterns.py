"""Pixels sharing a missing-row pattern share one operator (compute/lsq/cpu/pattern.hpp): each
pixel still equals numpy's per-pixel lstsq on its observed rows, with the per-pixel SVD's
status, count, residual and exact condition; stats["pattern_pixels"] counts them by the rule
(at least 16 pixels of a band of 256 cube pixels share the rows)."""

import numpy as np
import pytest

import simscope

M, N, H, W = 30, 6, 16, 32  # two bands of 256 pixels
BAND = 256


def design(seed=1, collinear=0):
    rng = np.random.default_rng(seed)
    a = rng.normal(size=(M, N))
    if collinear:  # rows 0..collinear-1 all multiples of one row: rank 1 among them
        a[:collinear] = np.outer(np.arange(1, collinear + 1), a[0])
    return a


def cube_of(a, masks, which, seed=2, extra_gaps=0.0):
    """b (M, H, W) = A x + noise, pixel p observing the rows masks[which[p]] (True: observed)."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(N, H * W))
    b = a @ x + 0.01 * rng.normal(size=(M, H * W))
    obs = np.asarray(masks)[which].T.copy()  # (M, P)
    if extra_gaps:
        mixed = rng.random(H * W) < 0.3  # these pixels get random gaps on top: their own pattern
        obs[:, mixed] &= rng.random((M, int(mixed.sum()))) >= extra_gaps
    b[~obs] = np.nan
    return b.reshape(M, H, W)


def pattern_pixels(b):
    """The rule, recomputed: pixels with gaps whose exact observed rows at least 16 pixels of
    their band of 256 share. A boolean (H, W) map."""
    obs = ~np.isnan(b.reshape(M, -1))
    out = np.zeros(obs.shape[1], dtype=bool)
    for b0 in range(0, obs.shape[1], BAND):
        cols = obs[:, b0:b0 + BAND]
        keys = [c.tobytes() for c in cols.T]
        for q, k in enumerate(keys):
            out[b0 + q] = keys.count(k) >= 16 and 0 < cols[:, q].sum() < M
    return out.reshape(H, W)


def reference(a, col, lam):
    """numpy per pixel: lstsq (minimum norm), RMS residual, count, status and exact condition."""
    o = ~np.isnan(col)
    ao, bo = a[o], col[o].astype(np.float64)
    m = int(o.sum())
    s = np.linalg.svd(ao, compute_uv=False)
    s = np.concatenate([s, np.zeros(N - len(s))]) if len(s) < N else s
    aug = np.sqrt(s ** 2 + lam)
    rows = m + (N if lam > 0 else 0)
    kept = aug[aug > max(rows, N) * np.finfo(float).eps * aug[0]]
    if lam > 0:
        ao = np.vstack([ao, np.sqrt(lam) * np.eye(N)])
        bo = np.concatenate([bo, np.zeros(N)])
    x = np.linalg.lstsq(ao, bo, rcond=None)[0]
    rms = np.sqrt(np.mean((a[o] @ x - col[o]) ** 2))
    status = 1 if m < N else (2 if len(kept) < N else 0)
    return x, rms, m, status, kept[0] / kept[-1]


def check(r, b, a, lam, rtol):
    """Every pixel against numpy; the condition where it is exact: pattern and SVD pixels."""
    shared = pattern_pixels(b)
    assert r.stats["pattern_pixels"] == shared.sum()
    for i in range(H):
        for j in range(W):
            if np.isnan(b[:, i, j]).all():
                assert r.status[i, j] == 3 and r.count[i, j] == 0
                assert np.isnan(r.solution[:, i, j]).all()
                continue
            x, rms, m, status, cond = reference(a, b[:, i, j], lam)
            scale = max(np.abs(x).max(), 1e-300)
            np.testing.assert_allclose(r.solution[:, i, j], x, rtol=0, atol=rtol * scale,
                                       err_msg=f"pixel ({i}, {j})")
            assert r.count[i, j] == m
            assert r.status[i, j] == status, (i, j)
            np.testing.assert_allclose(r.residual[i, j], rms, rtol=max(rtol, 2e-6), atol=1e-12)
            if shared[i, j] or status == 2:
                np.testing.assert_allclose(r.condition[i, j], cond, rtol=1e-5)


def frames_missing(frames):
    m = np.ones(M, dtype=bool)
    m[list(frames)] = False
    return m


def cloud_masks(k, seed=5, missing=0.3):
    rng = np.random.default_rng(seed)
    return [rng.random(M) >= missing for _ in range(k)]


@pytest.mark.parametrize("lam", [0.0, 0.3])
@pytest.mark.parametrize("method", ["auto", "normal"])
def test_same_frames_missing_everywhere(lam, method):
    a = design()
    b = cube_of(a, [frames_missing(range(3, 23, 2))], np.zeros(H * W, dtype=int))
    r = simscope.lsq(b, a, lam=lam, method=method, backend="cpu")
    assert r.stats["pattern_pixels"] == H * W
    check(r, b, a, lam, 1e-10)


@pytest.mark.parametrize("lam", [0.0, 0.3])
def test_eight_cloud_masks(lam):
    a = design()
    which = np.random.default_rng(7).integers(0, 8, H * W)
    b = cube_of(a, cloud_masks(8), which)
    r = simscope.lsq(b, a, lam=lam, backend="cpu")
    assert r.stats["pattern_pixels"] == pattern_pixels(b).sum() > 0.9 * H * W
    check(r, b, a, lam, 1e-10)


def test_rank_deficient_and_underdetermined_patterns():
    # Pattern 0: 4 rows < N (underdetermined, minimum norm); pattern 1: 10 observed rows, all
    # collinear (rank 1, rank-deficient); pattern 2: well posed.
    a = design(collinear=10)
    under = np.zeros(M, dtype=bool)
    under[[12, 15, 20, 27]] = True
    coll = np.zeros(M, dtype=bool)
    coll[:10] = True
    masks = [under, coll, frames_missing([0, 11, 12])]
    which = np.repeat([0, 1, 2], [H * W // 3, H * W // 3, H * W - 2 * (H * W // 3)])
    b = cube_of(a, masks, which)
    r = simscope.lsq(b, a, backend="cpu")
    assert r.stats["pattern_pixels"] == pattern_pixels(b).sum() == H * W
    assert r.stats["status_underdetermined"] == H * W // 3
    assert r.stats["status_rank_deficient"] == H * W // 3
    check(r, b, a, 0.0, 1e-10)


def test_mix_of_patterns_and_random_gaps_equals_the_per_pixel_svd():
    a = design()
    which = np.random.default_rng(9).integers(0, 8, H * W)
    b = cube_of(a, cloud_masks(8), which, extra_gaps=0.2)
    b[:, 3, 4] = np.nan  # all missing
    r = simscope.lsq(b, a, backend="cpu")
    n_pat = pattern_pixels(b).sum()
    assert r.stats["pattern_pixels"] == n_pat and 0 < n_pat < H * W
    check(r, b, a, 0.0, 1e-10)
    # The per-pixel float64 SVD (method svd solves every pixel with gaps alone): the same maps.
    s = simscope.lsq(b, a, method="svd", backend="cpu")
    assert s.stats["pattern_pixels"] == 0
    np.testing.assert_array_equal(r.status, s.status)
    np.testing.assert_array_equal(r.count, s.count)
    np.testing.assert_allclose(r.residual, s.residual, rtol=2e-6)
    shared = pattern_pixels(b)  # their condition is the per-pixel SVD's too
    np.testing.assert_allclose(r.condition[shared], s.condition[shared], rtol=1e-6)
    np.testing.assert_allclose(r.solution, s.solution, rtol=0,
                               atol=1e-10 * np.nanmax(np.abs(s.solution)))


def test_fp32_patterns():
    a = design()
    which = np.random.default_rng(11).integers(0, 8, H * W)
    b = cube_of(a, cloud_masks(8), which).astype(np.float32)
    r = simscope.lsq(b, a, precision="fp32", backend="cpu")
    assert r.solution.dtype == np.float32
    assert r.stats["pattern_pixels"] == pattern_pixels(b).sum() > 0
    check(r, b, a, 0.0, 2e-6)
