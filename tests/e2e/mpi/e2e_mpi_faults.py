"""MPI faults (issue 13): a bad input file under `mpirun -np R` ends the job quickly with one
clear message from rank 0, a non-zero exit and no outputs; a parameter refused on the command
line likewise (exit 2 as without MPI); an output folder left as it was; a rank killed mid-run
(SIGKILL) ends the whole job within seconds, non-zero, with no outputs. Bounded in time.
Usage: e2e_mpi_faults.py SIMSCOPE MPIRUN"""
import os
import subprocess
import sys
import time

import numpy as np

from simscope_test_util import Checker, children, scratch, wait_cpu_seconds

simscope, mpirun = sys.argv[1], sys.argv[2]
c = Checker()
LIMIT = 120


def mpi(ranks, *args):
    cmd = [mpirun, "--oversubscribe", "-np", str(ranks), simscope, "--headless", "--backend",
           "cpu", "--no-image", *args]
    t0 = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=LIMIT,
                       env=dict(os.environ, OMP_NUM_THREADS="1"))
    return p, time.monotonic() - t0


def errors(p):
    return [l for l in p.stderr.splitlines() if l.startswith("simscope: error:")]


d = scratch("mpi_faults")
bad = os.path.join(d, "sources.npy")
np.save(bad, np.zeros((5, 7)))  # (P, 7): not (P, 3) or (P, 4)
missing = os.path.join(d, "absent.npy")
design = os.path.join(d, "A.npy")
np.save(design, np.ones((4, 2)))
cube = os.path.join(d, "cube.npy")
with open(cube, "wb") as f:
    f.write(b"\x93NUMPY\x01\x00garbage")  # a truncated .npy header

cases = [
    ("field, sources of the wrong shape", ["--workload", "field", "--set",
                                           f"sources.file={bad}"], "sources.npy"),
    ("field, a missing sources file", ["--workload", "field", "--set",
                                       f"sources.file={missing}"], "absent.npy"),
    ("lsq, a corrupt cube", ["--workload", "lsq", "--set", f"data.file={cube}", "--set",
                             f"design.file={design}"], "cube.npy"),
    ("oscillators, a missing network file", ["--workload", "oscillators", "--set",
                                             "network.topology=file", "--set",
                                             f"network.file={missing}"], "absent.npy"),
]
for ranks in (2, 3):
    for what, args, name in cases:
        out = os.path.join(d, f"out_{ranks}_{len(what)}")
        p, secs = mpi(ranks, "--out-dir", out, *args)
        label = f"-np {ranks} {what}"
        c.check(p.returncode == 1, f"{label}: exit status 1 (got {p.returncode})")
        e = errors(p)
        c.check(len(e) == 1 and name in e[0], f"{label}: one error naming {name}: {e}")
        c.check(not os.path.exists(out) or not any(f.endswith(".npy") for f in os.listdir(out)),
                f"{label}: no outputs")
        c.check(secs < 60, f"{label}: ended in {secs:.1f} s")

# A refused command line: exit status 2, as without mpirun, one message.
p, _ = mpi(3, "--workload", "field", "--set", "grid.size=1", "--out-dir", os.path.join(d, "o2"))
c.check(p.returncode == 2, f"-np 3 grid.size=1: refused with status 2 ({p.returncode})")
c.check(len(errors(p)) == 1, f"-np 3 grid.size=1: one error line ({errors(p)})")

# An output folder with a previous run's files keeps them when the job fails.
keep = os.path.join(d, "keep")
os.makedirs(keep)
np.save(os.path.join(keep, "magnitude.npy"), np.arange(3.0))
p, _ = mpi(2, "--workload", "field", "--set", f"sources.file={bad}", "--out-dir", keep)
c.check(p.returncode in (1, 2) and np.array_equal(np.load(os.path.join(keep, "magnitude.npy")),
                                             np.arange(3.0)),
        "-np 2 failed run: the folder's earlier outputs are untouched")


def rank_of(pid):
    try:
        env = open(f"/proc/{pid}/environ", "rb").read().split(b"\0")
    except OSError:
        return None
    for v in env:
        if v.startswith(b"OMPI_COMM_WORLD_RANK="):
            return int(v.split(b"=", 1)[1])
    return None


# A rank killed mid-run: a study long enough to be under way (about 10 s of work per rank).
out = os.path.join(d, "killed")
cmd = [mpirun, "--oversubscribe", "-np", "3", simscope, "--headless", "--backend", "cpu",
       "--no-image", "--workload", "oscillators", "--out-dir", out, "--set", "ensemble.size=960",
       "--set", "network.nodes=40", "--set", "integrator.steps=200000", "--set",
       "integrator.transient=10"]
job = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       env=dict(os.environ, OMP_NUM_THREADS="1"))
victim = None
t0 = time.monotonic()
while victim is None and time.monotonic() - t0 < 30:
    time.sleep(0.2)
    for pid in children(job.pid):
        if rank_of(pid) == 1:
            victim = pid
c.check(victim is not None, "rank 1 of the study found")
if victim is not None:
    # Under way: rank 1 has computed for a second (CPU time, whatever the machine's load).
    c.check(wait_cpu_seconds(victim, 1.0), "rank 1 under way (1 s of CPU time)")
    os.kill(victim, 9)
    killed_at = time.monotonic()
    try:
        _, err = job.communicate(timeout=60)
        ended = time.monotonic() - killed_at
    except subprocess.TimeoutExpired:
        job.kill()
        _, err = job.communicate()
        ended = 999
    c.check(job.returncode != 0, f"killed rank: the job exits non-zero ({job.returncode})")
    c.check(ended < 10, f"killed rank: the job ended {ended:.1f} s after the kill")
    c.check(not os.path.exists(out) or not any(f.endswith(".npy") for f in os.listdir(out)),
            "killed rank: no outputs")
    c.check("rank 1" in err or "signal 9" in err or "Killed" in err,
            f"killed rank: the launcher names the dead rank ({err.strip()[-300:]!r})")
else:
    job.kill()
    job.communicate()
c.done()
