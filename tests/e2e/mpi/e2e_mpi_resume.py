"""MPI resume (issue 13): a study interrupted (SIGKILL) resumes from its checkpoint with any rank
count, and the outputs equal the uninterrupted single-process run's bit for bit. One study goes
1 process -> mpirun -np 3 -> -np 2 -> 1 process, each stage killed once a few more blocks are
saved (the single-process checkpoint is version 3, converted by the first MPI job; the jobs keep
it per block, version 4); blocks finished before a stage are read, never recomputed (their files
keep their modification times). A third chain resumes on more ranks than blocks (-np 18 on 15
blocks: blocks cut between ranks at reduction groups, the finished ones read in part by each).
Bounded in time. Usage: e2e_mpi_resume.py SIMSCOPE MPIRUN"""
import glob
import json
import os
import subprocess
import sys
import time

import numpy as np

from simscope_test_util import Checker, children, scratch

simscope, mpirun = sys.argv[1], sys.argv[2]
c = Checker()
LIMIT = 240
# 960 members in 15 blocks of 64, about 0.2 s of work per block on one loaded core (the kill after
# N more blocks still lands: blocks_done is polled every 50 ms).
STUDY = ["--workload", "oscillators", "--set", "ensemble.size=960", "--set", "network.nodes=40",
         "--set", "integrator.steps=8000", "--set", "integrator.transient=10", "--set",
         "network.topology=watts_strogatz", "--set", "network.k=4", "--set", "network.p=0.2"]
ENV = dict(os.environ, OMP_NUM_THREADS="1")


def command(out, ranks, *extra):
    cmd = [simscope, "--headless", "--backend", "cpu", "--no-image", "--out-dir", out, *STUDY,
           "--checkpoint-interval", "0.3", *extra]
    return [mpirun, "--oversubscribe", "-np", str(ranks), *cmd] if ranks else cmd


def rank_of(pid):
    try:
        env = open(f"/proc/{pid}/environ", "rb").read().split(b"\0")
    except OSError:
        return None
    for v in env:
        if v.startswith(b"OMPI_COMM_WORLD_RANK="):
            return int(v.split(b"=", 1)[1])
    return None


def blocks_done(ck):
    """Finished blocks in a checkpoint folder (version 3: blocks_done; 4: prefix + markers)."""
    try:
        h = json.load(open(os.path.join(ck, "checkpoint.json")))
    except (OSError, ValueError):
        return 0
    return int(h.get("blocks_done", 0)) + len(glob.glob(os.path.join(ck, "block_*.json")))


def finished_files(ck):
    """The files of the finished blocks, with their modification times. A block is finished once
    its marker block_NNNNN.json exists (written after its .npy files): a rank killed between the
    two leaves .npy files that the next stage rightly rewrites."""
    files = {}
    for marker in glob.glob(os.path.join(ck, "block_*.json")):
        stem = os.path.basename(marker)[:-len(".json")]
        for f in glob.glob(os.path.join(ck, stem + ".*")):
            if not f.endswith(".tmp"):
                try:
                    files[f] = os.stat(f).st_mtime_ns
                except OSError:
                    pass
    return files


def interrupted(out, ranks, more, extra):
    """Runs a stage and kills it (a rank under mpirun) once `more` blocks were added."""
    ck = os.path.join(out, "checkpoint")
    start = blocks_done(ck)
    job = subprocess.Popen(command(out, ranks, *extra), stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, env=ENV)
    t0 = time.monotonic()
    killed = False
    while time.monotonic() - t0 < LIMIT and job.poll() is None:
        time.sleep(0.05)
        if blocks_done(ck) >= start + more:
            victim = job.pid
            if ranks:
                victim = next((p for p in children(job.pid) if rank_of(p) == ranks - 1), None)
            if victim is not None:
                os.kill(victim, 9)
                killed = True
                break
    try:
        _, err = job.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        job.kill()
        _, err = job.communicate()
    return killed, job.returncode, err, blocks_done(ck) - start


base = scratch("mpi_resume")
ref = os.path.join(base, "ref")
t0 = time.monotonic()
p = subprocess.run(command(ref, 0), capture_output=True, text=True, timeout=LIMIT, env=ENV)
ref_seconds = time.monotonic() - t0
c.check(p.returncode == 0, f"reference single-process study ({p.stderr.strip()[-300:]})")

out = os.path.join(base, "chain")
ck = os.path.join(out, "checkpoint")
stages = [(0, 3, []), (3, 3, ["--resume"]), (2, 3, ["--resume"])]
for ranks, more, extra in stages:
    label = f"{'1 process' if not ranks else f'-np {ranks}'}{' --resume' if extra else ''}"
    before = finished_files(ck)
    killed, rc, err, added = interrupted(out, ranks, more, extra)
    c.check(killed and rc != 0, f"{label}: killed mid-study after {added} more blocks (exit {rc})")
    c.check(not glob.glob(os.path.join(out, "*.npy")), f"{label}: no outputs after the kill")
    after = finished_files(ck)
    kept = all(after.get(f) == m for f, m in before.items())
    c.check(kept, f"{label}: the blocks finished before were read, not rewritten")
    partials = len(glob.glob(os.path.join(ck, "partial_*.json")))
    print(f"  {label}: {blocks_done(ck)} of 15 blocks done, {partials} under way")

p = subprocess.run(command(out, 0, "--resume"), capture_output=True, text=True, timeout=LIMIT,
                   env=ENV)
c.check(p.returncode == 0, f"1 process --resume to the end ({p.stderr.strip()[-300:]})")
c.check(not os.path.exists(ck), "the checkpoint is removed once the outputs are written")
if p.returncode == 0 and os.path.exists(os.path.join(ref, "run.json")):
    files = sorted(f for f in os.listdir(ref) if f.endswith(".npy"))
    c.check(files == sorted(f for f in os.listdir(out) if f.endswith(".npy")),
            f"the same output files {files}")
    for f in files:
        a, b = np.load(os.path.join(ref, f)), np.load(os.path.join(out, f))
        c.check(a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes(),
                f"{f}: bit-identical to the uninterrupted single-process run")
    m0 = json.load(open(os.path.join(ref, "run.json")))
    m1 = json.load(open(os.path.join(out, "run.json")))
    timing = ("per_s", "seconds", "peak_device")
    c.check(all(m1["stats"].get(k) == v for k, v in m0["stats"].items()
                if not any(t in k for t in timing)), "the same stats (timings aside)")
    c.check(m1["warnings"] == m0["warnings"], "the same warnings")
print(f"  reference study: {ref_seconds:.1f} s")

# Resumed straight to the end under MPI too (3 -> 2 -> -np 3 to the end), and a resume refused
# with parameters that differ (exit 2, one message).
out2 = os.path.join(base, "chain2")
for ranks, more, extra in [(3, 4, []), (2, 3, ["--resume"])]:
    # A loaded machine may let a stage overshoot its kill (the rank's pid is looked up while
    # blocks finish): the next stage's kill must still land before the study's 15th block.
    more = max(1, min(more, 15 - blocks_done(os.path.join(out2, "checkpoint")) - 2))
    killed, rc, err, added = interrupted(out2, ranks, more, extra)
    c.check(killed and rc != 0, f"chain 2 -np {ranks}: killed after {added} more blocks")
anew = subprocess.run(command(out2, 3), capture_output=True, text=True, timeout=LIMIT, env=ENV)
errs = [l for l in anew.stderr.splitlines() if l.startswith("simscope: error:")]
c.check(anew.returncode == 2 and len(errs) == 1 and "--resume" in errs[0] and
        "members done" in errs[0],
        f"-np 3 without --resume over the checkpoint: refused, status 2 ({errs})")
bad = subprocess.run(command(out2, 2, "--resume", "--set", "integrator.steps=30000"),
                     capture_output=True, text=True, timeout=LIMIT, env=ENV)
errs = [l for l in bad.stderr.splitlines() if l.startswith("simscope: error:")]
c.check(bad.returncode == 2 and len(errs) == 1 and "integrator.steps" in errs[0],
        f"-np 2 --resume with another integrator.steps: refused, status 2 ({errs})")
p = subprocess.run(command(out2, 3, "--resume"), capture_output=True, text=True, timeout=LIMIT,
                   env=ENV)
c.check(p.returncode == 0, f"chain 2: -np 3 --resume to the end ({p.stderr.strip()[-300:]})")
if p.returncode == 0 and os.path.exists(os.path.join(ref, "run.json")):
    for f in sorted(f for f in os.listdir(ref) if f.endswith(".npy")):
        a, b = np.load(os.path.join(ref, f)), np.load(os.path.join(out2, f))
        c.check(a.tobytes() == b.tobytes() and a.shape == b.shape,
                f"chain 2: {f} bit-identical to the single-process run")

# Resumed onto more ranks than blocks: -np 2 killed after 3 blocks, then -np 18 on the 15 blocks
# to the end (the finished blocks read by the ranks holding parts of them, the others cut at
# groups of 8 and integrated without checkpoints).
out3 = os.path.join(base, "chain3")
killed, rc, err, added = interrupted(out3, 2, 3, [])
c.check(killed and rc != 0, f"chain 3 -np 2: killed after {added} more blocks")
before = finished_files(os.path.join(out3, "checkpoint"))
p = subprocess.run(command(out3, 18, "--resume"), capture_output=True, text=True, timeout=LIMIT,
                   env=ENV)
c.check(p.returncode == 0, f"chain 3: -np 18 --resume to the end ({p.stderr.strip()[-300:]})")
if p.returncode == 0:
    ranges = [tuple(r["range"]) for r in
              json.load(open(os.path.join(out3, "run.json")))["mpi"]["per_rank"]]
    c.check(len(ranges) == 18 and all(b > a for a, b in ranges) and
            any(b % 64 for _, b in ranges[:-1]),
            f"chain 3: 18 ranks with members, blocks cut ({ranges}; {len(before)} files before)")
if p.returncode == 0 and os.path.exists(os.path.join(ref, "run.json")):
    for f in sorted(f for f in os.listdir(ref) if f.endswith(".npy")):
        a, b = np.load(os.path.join(ref, f)), np.load(os.path.join(out3, f))
        c.check(a.tobytes() == b.tobytes() and a.shape == b.shape,
                f"chain 3: {f} bit-identical to the single-process run")
c.done()
