#!/usr/bin/python3
"""Generate simscope's colormap tables from matplotlib (run once; the CSVs are committed).

Each table is <name>.csv next to this script: exactly 256 lines "r,g,b" with floats in [0, 1]
(no header). Line k is the colour at t = k / 255; render/colormap.cpp interpolates linearly
between lines. Source: matplotlib's colormaps of the same name (`coolwarm`, `gray`, `turbo`
included). matplotlib's 256-entry tables are copied exactly; `twilight` has 510 entries in
matplotlib and is resampled to 256 by linear interpolation at t = k / 255 (it stays cyclic:
first and last rows are equal up to matplotlib's own table).

Usage: /usr/bin/python3 resources/colormaps/generate.py   (needs python3-matplotlib)
"""
import os

import matplotlib
import numpy as np

NAMES = ["viridis", "inferno", "magma", "plasma", "turbo", "coolwarm", "gray", "twilight"]
ROWS = 256


def table(name: str) -> np.ndarray:
    cmap = matplotlib.colormaps[name]
    full = cmap(np.arange(cmap.N))[:, :3]  # integer lookup: the colormap's own entries
    if cmap.N == ROWS:
        return full
    src = np.linspace(0.0, 1.0, cmap.N)
    dst = np.linspace(0.0, 1.0, ROWS)
    return np.stack([np.interp(dst, src, full[:, c]) for c in range(3)], axis=1)


def main() -> None:
    here = os.path.dirname(os.path.abspath(__file__))
    for name in NAMES:
        rgb = table(name)
        with open(os.path.join(here, name + ".csv"), "w", encoding="ascii") as f:
            for r, g, b in rgb:
                f.write(f"{r:.8f},{g:.8f},{b:.8f}\n")
    print(f"wrote {len(NAMES)} tables with matplotlib {matplotlib.__version__}")


if __name__ == "__main__":
    main()
