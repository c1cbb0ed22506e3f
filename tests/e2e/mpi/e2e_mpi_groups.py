"""MPI end to end, more ranks than blocks (issue 13): oscillators studies of 2 and 3 blocks
(130 and 150 members, blocks of 64, reduction groups of 8) on `mpirun --oversubscribe -np 4, 5,
6`, so that blocks are cut between ranks at group boundaries, write .npy files byte-identical to
the single-process run's (msd, msd_t, order_t, state, phases), members going non-finite
included; run.json's ranges end on group boundaries and every rank gets work (a resume onto
more ranks than blocks: e2e_mpi_resume.py). A 6-member study (one block, a group per member)
on 3 ranks: every rank gets 2 members, outputs byte-identical. Every run bounded in time.
Usage: e2e_mpi_groups.py SIMSCOPE MPIRUN"""
import json
import os
import subprocess
import sys

from simscope_test_util import Checker, scratch

simscope, mpirun = sys.argv[1], sys.argv[2]
c = Checker()
LIMIT = 240  # seconds per run: a hang fails the test instead of blocking it
ENV = dict(os.environ, OMP_NUM_THREADS="1")


def study(members, dt, steps=400):
    return ["--set", f"ensemble.size={members}", "--set", "network.nodes=12", "--set",
            "network.k=4", "--set", f"integrator.steps={steps}", "--set",
            "integrator.transient=100", "--set", f"integrator.dt={dt}", "--set",
            "record.every=4"]


def command(out, ranks, args, resume=False):
    cmd = [simscope, "--headless", "--workload", "oscillators", "--backend", "cpu", "--out-dir",
           out, "--no-image", *args, *(["--resume"] if resume else [])]
    return [mpirun, "--oversubscribe", "-np", str(ranks), *cmd] if ranks else cmd


def run(out, ranks, args, resume=False):
    return subprocess.run(command(out, ranks, args, resume), capture_output=True, text=True,
                          timeout=LIMIT, env=ENV)


def npy_bytes(d):
    return {f: open(os.path.join(d, f), "rb").read() for f in sorted(os.listdir(d))
            if f.endswith(".npy")}


base = scratch("mpi_groups")
for members, dt in ((130, 0.3), (150, 0.05)):  # 2 blocks (64, 66), 3 blocks (64, 64, 22)
    args = study(members, dt)
    ref_dir = os.path.join(base, f"single_{members}")
    one = run(ref_dir, 0, args)
    c.check(one.returncode == 0, f"K={members}: single-process run ({one.stderr.strip()[-300:]})")
    if one.returncode != 0:
        continue
    ref = npy_bytes(ref_dir)
    c.check(sorted(ref) == ["msd.npy", "msd_t.npy", "order_t.npy", "phases.npy", "state.npy"],
            f"K={members}: the study's five files ({sorted(ref)})")
    ref_stats = json.load(open(os.path.join(ref_dir, "run.json")))["stats"]
    if dt > 0.1:
        c.check(0 < ref_stats.get("nonfinite_members", 0) < members,
                f"K={members}: some members go non-finite ({ref_stats.get('nonfinite_members')})")
    for ranks in (4, 6):  # more ranks than blocks, cut evenly and not
        out = os.path.join(base, f"np{ranks}_{members}")
        p = run(out, ranks, args)
        what = f"K={members} -np {ranks}"
        c.check(p.returncode == 0, f"{what}: exit 0 ({p.stderr.strip()[-400:]})")
        if p.returncode != 0:
            continue
        got = npy_bytes(out)
        c.check(sorted(got) == sorted(ref), f"{what}: the same files")
        for f in ref:
            c.check(got.get(f) == ref[f], f"{what}: {f} byte-identical to the single process")
        m = json.load(open(os.path.join(out, "run.json")))
        per = m.get("mpi", {}).get("per_rank", [])
        ranges = [tuple(r["range"]) for r in per]
        c.check(len(ranges) == ranks and all(b > a for a, b in ranges),
                f"{what}: every rank has members ({ranges})")
        cut = [b for _, b in ranges[:-1] if b % 64 != 0]
        on_groups = all(b % 64 % 8 == 0 for _, b in ranges[:-1])
        c.check(cut and on_groups, f"{what}: ranges end on groups of 8, blocks cut ({ranges})")
        stats_same = all(m["stats"].get(k) == v for k, v in ref_stats.items()
                         if not any(t in k for t in ("per_s", "seconds", "peak_device",
                                                      "compute_s")))
        c.check(stats_same, f"{what}: the same stats (timings aside)")

# A study of fewer than 64 members is one block whose reduction groups are its members: 6 members
# on 3 ranks use all 3 (2 members each), byte-identical to one process.
args = study(6, 0.05, steps=200)
ref_dir = os.path.join(base, "single_6")
one = run(ref_dir, 0, args)
c.check(one.returncode == 0, f"K=6: single-process run ({one.stderr.strip()[-300:]})")
if one.returncode == 0:
    ref = npy_bytes(ref_dir)
    out = os.path.join(base, "np3_6")
    p = run(out, 3, args)
    c.check(p.returncode == 0, f"K=6 -np 3: exit 0 ({p.stderr.strip()[-400:]})")
    if p.returncode == 0:
        got = npy_bytes(out)
        c.check(sorted(got) == sorted(ref) and len(ref) == 5, f"K=6 -np 3: the same files")
        for f in ref:
            c.check(got.get(f) == ref[f], f"K=6 -np 3: {f} byte-identical to the single process")
        per = json.load(open(os.path.join(out, "run.json"))).get("mpi", {}).get("per_rank", [])
        ranges = [tuple(r["range"]) for r in per]
        c.check(ranges == [(0, 2), (2, 4), (4, 6)], f"K=6 -np 3: every rank has 2 members ({ranges})")

c.done()
