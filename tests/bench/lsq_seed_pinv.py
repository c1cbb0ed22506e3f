"""Seed 003's gap-free case beside numpy (issue 42): simscope.lsq(B, A) against numpy's
pinv(A) @ B on the same float64 arrays, 500 x 500 pixels, A 50 x 100 (M 50 observations,
N 100 unknowns, rank 50: the minimum-norm solution), in one process; each the median of 5
after a warm-up, outputs included; fp32 beside fp64. Also the first (cold) call of each, and
the median CPU seconds of a call (user + system, all threads: what a loaded machine's wall
times hide; the system part is mostly the kernel zeroing fresh pages).
--drop: each warm call's output is freed before the next (as `x = f()` in a loop), so a call
reuses the memory the one before freed instead of fresh pages, whose first touch costs 0.02 s
to 2 s per 200 MB on the VMs we run on (tests/bench/NOTES.md); numpy and simscope alike.
Run: PYTHONPATH=build/python /usr/bin/python3 THIS_FILE [--drop] [H W]"""
import os
import resource
import sys
import time

import numpy as np

import simscope

DROP = "--drop" in sys.argv
ARGS = [a for a in sys.argv[1:] if a != "--drop"]
H, W = (int(ARGS[0]), int(ARGS[1])) if len(ARGS) > 1 else (500, 500)
M, N = 50, 100
rng = np.random.default_rng(3)
A = rng.standard_normal((M, N))
B = rng.standard_normal((M, H, W))


def cpu_seconds():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def timed(f):
    c0, t0 = cpu_seconds(), time.perf_counter()
    out = f()
    return time.perf_counter() - t0, None if DROP else out, cpu_seconds() - c0


def median5(f):
    runs = [timed(f) for _ in range(5)]
    return sorted(r[0] for r in runs)[2], sorted(r[2] for r in runs)[2]


pinv = lambda: np.linalg.pinv(A) @ B.reshape(M, -1)
ours = {p: (lambda p=p: simscope.lsq(B, A, precision=p)) for p in ("fp64", "fp32")}
cold = {"numpy_pinv": timed(pinv)[0]}
for p, f in ours.items():
    cold["simscope_" + p] = timed(f)[0]
warm, cpu = {}, {}
warm["numpy_pinv"], cpu["numpy_pinv"] = median5(pinv)
for p, f in ours.items():
    warm["simscope_" + p], cpu["simscope_" + p] = median5(f)
x = ours["fp64"]().solution.reshape(N, -1)
ref = pinv()
err = np.abs(x - ref).max() / np.abs(ref).max()
load = os.getloadavg()[0]
for k in warm:
    print("lsq_seed_pinv %-15s median5 %.4f s  first %.4f s  cpu %.4f s" % (k, warm[k], cold[k],
                                                                          cpu[k]))
print("lsq_seed_pinv ratio simscope_fp64 / numpy_pinv %.2f (cpu %.2f), fp32 / fp64 %.2f, max rel "
      "diff %.1e, %d x %d pixels, outputs %s, load %.2f" % (
          warm["simscope_fp64"] / warm["numpy_pinv"], cpu["simscope_fp64"] / cpu["numpy_pinv"],
          warm["simscope_fp32"] / warm["simscope_fp64"], err, H, W,
          "dropped" if DROP else "kept", load))
