"""Result._repr_png_ (issue 42): a result's picture for Jupyter and IPython, decoded here by the
tests' own PNG reader (tests/e2e/simscope_test_util.py); its size, and that each pixel has the
colour of its value in the window's colormap table (resources/colormaps/*.csv), computed here
from the outputs: |E| on the log scale with x to the right and y up, lsq's maps linear, the
oscillators' phases on twilight over (-pi, pi]."""
import os
import sys

import numpy as np

import simscope

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..")
sys.path.insert(0, os.path.join(ROOT, "tests", "e2e"))
from simscope_test_util import read_png  # noqa: E402


def table(name):
    """The colormap as the source tree holds it (not the package's copy)."""
    return np.loadtxt(os.path.join(ROOT, "resources", "colormaps", name + ".csv"), delimiter=",")


def decoded(result, tmp_path):
    path = tmp_path / "picture.png"
    path.write_bytes(result._repr_png_())
    img, _ = read_png(path)
    return img


def expected(values, cmap, lo, hi):
    """(h, w, 3) uint8 colours of `values` (rows top to bottom) from lo to hi in `cmap`."""
    t = np.clip((values - lo) / (hi - lo), 0, 1)
    return np.rint(cmap[np.rint(t * 255).astype(int)] * 255).astype(np.uint8)


def test_field_plane(tmp_path):
    rng = np.random.default_rng(0)
    src = np.c_[rng.uniform(-1, 1, (50, 3)), rng.uniform(0.5, 1.5, 50)]
    r = simscope.field(src, grid_size=32, grid_half_width=1.5)
    img = decoded(r, tmp_path)
    assert img.shape == (256, 256, 3)  # 32 x 32 enlarged 8 times
    logm = np.log10(r.magnitude.astype(np.float64))
    # Pixel (row, col): x_i = col // 8 to the right, y_j = 31 - row // 8 up.
    want = expected(logm.T[::-1], table("viridis"), logm.min(), logm.max())
    assert np.abs(img[::8, ::8].astype(int) - want).max() <= 1
    i, j = np.unravel_index(np.argmax(r.magnitude), r.magnitude.shape)
    assert np.array_equal(img[(31 - j) * 8, i * 8], np.rint(table("viridis")[-1] * 255))
    r = simscope.field(src, rng.uniform(-2, 2, (10, 3)))
    assert r._repr_png_() is None  # values at targets: no picture


def test_lsq_and_oscillators(tmp_path):
    rng = np.random.default_rng(1)
    a = rng.standard_normal((20, 3))
    cube = np.einsum("mn,nhw->mhw", a, rng.standard_normal((3, 16, 24)))
    r = simscope.lsq(cube, a, view="residual")
    img = decoded(r, tmp_path)
    assert img.shape == (160, 240, 3)  # 16 x 24 enlarged 10 times
    res = r.residual.astype(np.float64)
    want = expected(res, table("viridis"), res.min(), res.max())
    assert np.abs(img[::10, ::10].astype(int) - want).max() <= 1
    s = simscope.oscillators.study(network_nodes=20, ensemble_size=4, integrator_steps=100,
                                   integrator_transient=0)
    img = decoded(s, tmp_path)
    assert img.shape == (48, 240, 3)  # (K, N) = (4, 20) enlarged 12 times
    want = expected(s.phases, table("twilight"), -np.pi, np.pi)
    assert np.abs(img[::12, ::12].astype(int) - want).max() <= 1
