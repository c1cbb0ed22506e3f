"""A result's picture for Jupyter and IPython (Result._repr_png_): the output the window would
show first, colormapped in numpy with the window's colormap tables (resources/colormaps/*.csv,
installed in the package's colormaps/ folder) and written as a PNG with zlib alone. Nothing of
render/ or the window is used.

- field: the plane (or the box's six faces side by side) of result.params["view"] (magnitude by
  default), x to the right and y up; |E| on the window's default log10 scale, signed outputs
  linear. Values at given targets (T,) have no picture.
- lsq: the map of params["view"] (solution: component view.component), linear.
- oscillators: the phases (K, N), one row per member, on the cyclic twilight map over
  (-pi, pi].
Colours run from the least to the greatest finite value (the window's automatic range);
non-finite values and, on the log scale, values <= 0 are black."""

import os
import struct
import zlib

import numpy as np

_FOLDER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "colormaps")
_SMALLEST = 256  # a small map is enlarged by a whole factor to about this many pixels


def colormap(name):
    """(256, 3) float table of the colormap `name` (resources/colormaps/NAME.csv: r, g, b in
    [0, 1] per line)."""
    return np.loadtxt(os.path.join(_FOLDER, name + ".csv"), delimiter=",", ndmin=2)


def png(rgb):
    """PNG file bytes of an (h, w, 3) uint8 image: 8-bit RGB, no filter, zlib."""
    h, w, _ = rgb.shape

    def chunk(kind, data):
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))

    rows = np.concatenate([np.zeros((h, 1), np.uint8),
                           np.ascontiguousarray(rgb, np.uint8).reshape(h, w * 3)], axis=1)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows.tobytes(), 6)) + chunk(b"IEND", b""))


def colours(values, table, log=False, lo=None, hi=None):
    """(h, w, 3) uint8: `values` (h, w) through `table`, from lo to hi (default: the least and
    greatest finite value, after log10 on the log scale); non-finite (and <= 0 on the log
    scale) black."""
    v = np.asarray(values, dtype=np.float64)
    if log:
        with np.errstate(divide="ignore", invalid="ignore"):
            v = np.where(v > 0, np.log10(np.where(v > 0, v, 1.0)), np.nan)
    ok = np.isfinite(v)
    if not ok.any():
        return np.zeros(v.shape + (3,), np.uint8)
    lo = float(v[ok].min()) if lo is None else lo
    hi = float(v[ok].max()) if hi is None else hi
    t = (np.where(ok, v, lo) - lo) / (hi - lo) if hi > lo else np.zeros(v.shape)
    index = np.clip(np.rint(t * (len(table) - 1)), 0, len(table) - 1).astype(np.intp)
    rgb = np.rint(np.asarray(table)[index] * 255.0).astype(np.uint8)
    rgb[~ok] = 0
    return rgb


def _enlarged(rgb):
    k = max(1, _SMALLEST // max(rgb.shape[:2]))
    return np.repeat(np.repeat(rgb, k, axis=0), k, axis=1) if k > 1 else rgb


def picture(result):
    """(h, w, 3) uint8 image of `result` (see the module's doc), or None where it has none."""
    outputs = {k: np.asarray(v.cpu() if hasattr(v, "cpu") else v)
               for k, v in result.outputs.items()}
    params = result.params
    if result.workload == "field":
        name = params.get("view", "magnitude")
        a = outputs.get(name if name in outputs else "magnitude")
        if a is None or a.ndim < 2:
            return None
        faces = a if a.ndim == 3 else a[None]
        log = name == "magnitude" and params.get("view.scale", "log") == "log"
        table = colormap(params.get("view.colormap", "viridis"))
        # One colour range over all faces; [i, j] is (u_i, v_j): u to the right, v up.
        rgb = colours(np.concatenate([f.T[::-1] for f in faces], axis=1), table, log)
        return _enlarged(rgb)
    if result.workload == "lsq":
        name = params.get("view", "solution")
        a = outputs.get(name)
        if a is None:
            return None
        if name == "solution":
            a = a[min(int(params.get("view.component", 0)), len(a) - 1)]
        if a.ndim != 2:
            return None
        return _enlarged(colours(a, colormap(params.get("view.colormap", "viridis"))))
    if result.workload == "oscillators" and "phases" in outputs:
        return _enlarged(colours(outputs["phases"], colormap("twilight"), lo=-np.pi, hi=np.pi))
    return None
