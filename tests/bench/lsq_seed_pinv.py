"""Seed 003's gap-free case beside numpy (issue 42): simscope.lsq(B, A) in fp64 and fp32 against
numpy's pinv(A) @ B on the same float64 arrays, 500 x 500 pixels, A 50 x 100 (M 50 observations,
N 100 unknowns, rank 50: the minimum-norm solution), in one process, outputs included.
First the first (cold) call of each; then, after a warm-up call of each, ROUNDS rounds (default 8,
even) of numpy's call and then fp64's and fp32's, in that order in even rounds and the other in
odd ones: a drift in the machine's load or memory state reaches both alike, and each follows
numpy's call (whose OpenBLAS threads spin on for a while after it) equally often.
Each figure is the median over the rounds: wall seconds, and CPU seconds of a call (user +
system, all threads: what a loaded machine's wall times hide; the system part is mostly the
kernel zeroing fresh pages). Printed: simscope fp64 / numpy and fp32 / fp64, with the fp32 / fp64
ratio of each round (min..max).
Each call's output is freed before the next call (as `x = f()` in a loop), so a call reuses the
memory an earlier one freed where it can, instead of fresh pages, whose first touch costs 0.02 s
to 2 s per 200 MB on the VMs we run on (tests/bench/NOTES.md); numpy and simscope alike.
--keep: every output is kept to the end instead (each call then writes fresh pages).
--drop is accepted and ignored (freed is the default).
Then the issue's own measure (blocks): each call 5 times in a row after a warm-up call of its own,
the three one after another, forwards and then backwards (numpy, fp64, fp32, fp32, fp64, numpy),
so no call follows another's still-spinning threads except in its warm-up; each block's median,
and a call's figure the mean of its two blocks' medians. Printed as the last line.
Run: PYTHONPATH=build/python /usr/bin/python3 THIS_FILE [--keep] [--rounds R] [H W]"""
import os
import resource
import sys
import time

import numpy as np

import simscope

KEEP = "--keep" in sys.argv
ARGS = [a for a in sys.argv[1:] if a not in ("--keep", "--drop")]
ROUNDS = 8
if "--rounds" in ARGS:
    i = ARGS.index("--rounds")
    ROUNDS = int(ARGS[i + 1])
    del ARGS[i:i + 2]
H, W = (int(ARGS[0]), int(ARGS[1])) if len(ARGS) > 1 else (500, 500)
M, N = 50, 100
rng = np.random.default_rng(3)
A = rng.standard_normal((M, N))
B = rng.standard_normal((M, H, W))
kept = []


def cpu_seconds():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def timed(f):
    c0, t0 = cpu_seconds(), time.perf_counter()
    out = f()
    wall, cpu = time.perf_counter() - t0, cpu_seconds() - c0
    if KEEP:
        kept.append(out)
    del out
    return wall, cpu


def median(v):
    v = sorted(v)
    return v[len(v) // 2] if len(v) % 2 else 0.5 * (v[len(v) // 2 - 1] + v[len(v) // 2])


calls = {
    "numpy_pinv": lambda: np.linalg.pinv(A) @ B.reshape(M, -1),
    "simscope_fp64": lambda: simscope.lsq(B, A, precision="fp64"),
    "simscope_fp32": lambda: simscope.lsq(B, A, precision="fp32"),
}
names = list(calls)
cold = {k: timed(f)[0] for k, f in calls.items()}
for f in calls.values():  # warm-up
    timed(f)
wall = {k: [] for k in names}
cpu = {k: [] for k in names}
for r in range(ROUNDS):
    for k in ["numpy_pinv"] + (["simscope_fp64", "simscope_fp32"] if r % 2 == 0
                               else ["simscope_fp32", "simscope_fp64"]):
        w, c = timed(calls[k])
        wall[k].append(w)
        cpu[k].append(c)
x = calls["simscope_fp64"]().solution.reshape(N, -1)
x32 = calls["simscope_fp32"]().solution.reshape(N, -1)
ref = calls["numpy_pinv"]()
err = np.abs(x - ref).max() / np.abs(ref).max()
err32 = np.abs(x32 - ref).max() / np.abs(ref).max()
del x, x32, ref
kept.clear()
load = os.getloadavg()[0]
med = {k: median(wall[k]) for k in names}
mcpu = {k: median(cpu[k]) for k in names}
for k in names:
    print("lsq_seed_pinv %-15s median%d %.4f s  first %.4f s  cpu %.4f s  (min %.4f max %.4f)" % (
        k, ROUNDS, med[k], cold[k], mcpu[k], min(wall[k]), max(wall[k])))
per_round = [a / b for a, b in zip(wall["simscope_fp32"], wall["simscope_fp64"])]
print("lsq_seed_pinv ratio simscope_fp64 / numpy_pinv %.2f (cpu %.2f), fp32 / fp64 %.2f (cpu %.2f; "
      "rounds %.2f..%.2f), max rel diff fp64 %.1e fp32 %.1e, %d x %d pixels, interleaved, "
      "outputs %s, load %.2f" % (
          med["simscope_fp64"] / med["numpy_pinv"], mcpu["simscope_fp64"] / mcpu["numpy_pinv"],
          med["simscope_fp32"] / med["simscope_fp64"],
          mcpu["simscope_fp32"] / mcpu["simscope_fp64"], min(per_round), max(per_round), err,
          err32, H, W, "kept" if KEEP else "freed", load))

blocks = {k: [] for k in names}
for k in names + names[::-1]:
    timed(calls[k])  # its own warm-up, after the previous call's threads
    blocks[k].append(median([timed(calls[k])[0] for _ in range(5)]))
blk = {k: sum(v) / len(v) for k, v in blocks.items()}
print("lsq_seed_pinv blocks (5 in a row after a warm-up, forwards then backwards): numpy_pinv %.4f s, "
      "fp64 %.4f s, fp32 %.4f s; simscope_fp64 / numpy_pinv %.2f, fp32 / fp64 %.2f, load %.2f" % (
          blk["numpy_pinv"], blk["simscope_fp64"], blk["simscope_fp32"],
          blk["simscope_fp64"] / blk["numpy_pinv"], blk["simscope_fp32"] / blk["simscope_fp64"],
          os.getloadavg()[0]))
