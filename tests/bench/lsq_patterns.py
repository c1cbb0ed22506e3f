"""Pixels sharing a missing-row pattern (issue 42): simscope.lsq(B, A) on 500 x 500 pixels,
M 100 x N 50, float64, gap-free beside the same 20 frames missing in every pixel, 8 cloud-mask
patterns (8 image regions, and 8 patterns drawn per pixel) and 20 % random NaN (every pixel its
own pattern); each the median of 3 after a warm-up, outputs included, in one process; also
the median CPU seconds of a call (user + system, all threads), steadier on a loaded machine.
Run: PYTHONPATH=build/python /usr/bin/python3 THIS_FILE [H W]"""
import os
import resource
import sys
import time

import numpy as np

import simscope

H, W = (int(sys.argv[1]), int(sys.argv[2])) if len(sys.argv) > 2 else (500, 500)
M, N = 100, 50
rng = np.random.default_rng(3)
A = rng.standard_normal((M, N))
clean = A @ rng.standard_normal((N, H * W))


def with_mask(observed):
    """B with observed (M, H*W) bool; False entries NaN."""
    b = clean.copy()
    b[~observed] = np.nan
    return b.reshape(M, H, W)


masks = np.random.default_rng(5).random((8, M)) >= 0.2  # 8 cloud masks, ~20 frames missing each
region = ((np.arange(H)[:, None] * 2 // H) * 4 + np.arange(W)[None, :] * 4 // W).ravel()
frames = np.ones(M, dtype=bool)
frames[rng.choice(M, 20, replace=False)] = False
cases = {
    "gap_free": clean.reshape(M, H, W),
    "same_20_frames": with_mask(np.repeat(frames[:, None], H * W, axis=1)),
    "8_cloud_regions": with_mask(masks[region].T),
    "8_cloud_per_pixel": with_mask(masks[np.random.default_rng(6).integers(0, 8, H * W)].T),
    "nan_20pct": with_mask(np.random.default_rng(7).random((M, H * W)) >= 0.2),
}


def cpu_seconds():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def median3(f):
    """Median wall seconds, median CPU seconds (all threads), the last result."""
    f()  # warm-up
    ts, cs = [], []
    for _ in range(3):
        c0, t0 = cpu_seconds(), time.perf_counter()
        r = f()
        ts.append(time.perf_counter() - t0)
        cs.append(cpu_seconds() - c0)
    return sorted(ts)[1], sorted(cs)[1], r


times, cpus = {}, {}
for name, b in cases.items():
    t, c, r = median3(lambda: simscope.lsq(b, A))
    times[name], cpus[name] = t, c
    print("lsq_patterns %-18s median3 %.4f s  x gap-free %.2f  cpu %.4f s  x gap-free %.2f  "
          "pattern_pixels %d  load %.2f"
          % (name, t, t / times["gap_free"], c, c / cpus["gap_free"],
             r.stats.get("pattern_pixels", -1), os.getloadavg()[0]), flush=True)
