"""MPI end to end (issue 13): one headless run of each workload split across 1, 2, 3 and 4 ranks
by `mpirun --oversubscribe -np R simscope --headless ...` gives the outputs of the
single-process run: oscillators and lsq bit for bit, the field bit for bit (split by targets);
run.json's "mpi" section (ranks, hosts, each rank's device, range and time, load imbalance).
(Rank 0's progress lines, printed every 5 s, are checked in e2e_mpi_signals.py, whose field run
lasts that long.) Every run bounded in time. Usage: e2e_mpi.py SIMSCOPE MPIRUN"""
import json
import os
import subprocess
import sys

import numpy as np

from simscope_test_util import Checker, scratch

simscope, mpirun = sys.argv[1], sys.argv[2]
c = Checker()
LIMIT = 240  # seconds per run: a hang fails the test instead of blocking it

WORKLOADS = {
    # 5 x 41 x 41 targets of a box; 900 sources
    "field": ["--set", "plane=box", "--set", "grid.size=41", "--set", "sources.count=900",
              "--set", "precision=fp64"],
    # 37 pixel rows with gaps (every status), method auto
    "lsq": ["--set", "synth.height=37", "--set", "synth.width=11", "--set",
            "synth.observations=14", "--set", "synth.unknowns=6", "--set",
            "synth.nan_fraction=0.4"],
    # 450 members in 8 blocks of 64, some non-finite (dt = 0.3)
    "oscillators": ["--set", "ensemble.size=450", "--set", "network.nodes=6", "--set",
                    "network.k=2", "--set", "integrator.steps=400", "--set",
                    "integrator.transient=100", "--set", "integrator.dt=0.3"],
}


def headless(workload, out, ranks=0):
    cmd = [simscope, "--headless", "--workload", workload, "--backend", "cpu", "--out-dir", out,
           "--no-image", *WORKLOADS[workload]]
    if ranks:
        cmd = [mpirun, "--oversubscribe", "-np", str(ranks), *cmd]
    env = dict(os.environ, OMP_NUM_THREADS="1")
    return subprocess.run(cmd, capture_output=True, text=True, timeout=LIMIT, env=env)


def npy_files(d):
    return sorted(f for f in os.listdir(d) if f.endswith(".npy"))


for workload in WORKLOADS:
    base = scratch(f"mpi_{workload}")
    one = headless(workload, os.path.join(base, "single"))
    c.check(one.returncode == 0, f"{workload}: single-process run ({one.stderr.strip()[-300:]})")
    ref_dir = os.path.join(base, "single")
    ref_files = npy_files(ref_dir) if one.returncode == 0 else []
    ref_json = json.load(open(os.path.join(ref_dir, "run.json"))) if ref_files else {}
    # -np 4 for the field only: lsq and oscillators cut the same way at 2 and 3 (even and odd).
    for ranks in ((1, 2, 3, 4) if workload == "field" else (1, 2, 3)):
        out = os.path.join(base, f"np{ranks}")
        p = headless(workload, out, ranks)
        what = f"{workload} -np {ranks}"
        c.check(p.returncode == 0, f"{what}: exit 0 ({p.stderr.strip()[-400:]})")
        if p.returncode != 0:
            continue
        c.check(npy_files(out) == ref_files, f"{what}: the same files {ref_files}")
        for f in ref_files:
            a = np.load(os.path.join(ref_dir, f))
            b = np.load(os.path.join(out, f))
            same = a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()
            c.check(same, f"{what}: {f} bit-identical to the single-process run "
                          f"({a.dtype}{a.shape} vs {b.dtype}{b.shape})")
        m = json.load(open(os.path.join(out, "run.json")))
        c.check(m["warnings"] == ref_json["warnings"], f"{what}: the same warnings")
        timing = ("per_s", "seconds", "peak_device")
        same_stats = all(m["stats"].get(k) == v for k, v in ref_json["stats"].items()
                         if not any(t in k for t in timing))
        c.check(same_stats, f"{what}: the same stats (timings aside)")
        if ranks == 1:
            # one rank: exactly the run of today, no MPI section
            c.check("mpi" not in m, f"{what}: no mpi section (a plain run)")
            continue
        mp = m.get("mpi", {})
        c.check(mp.get("ranks") == ranks, f"{what}: run.json mpi.ranks = {ranks}")
        per = mp.get("per_rank", [])
        c.check(len(per) == ranks and [r["rank"] for r in per] == list(range(ranks)),
                f"{what}: one per_rank entry per rank")
        ranges = [tuple(r["range"]) for r in per]
        cover = all(ranges[i][1] == ranges[i + 1][0] for i in range(len(ranges) - 1))
        c.check(cover and ranges[0][0] == 0 and ranges[-1][1] == mp.get("axis_length"),
                f"{what}: the ranks' ranges {ranges} cover the {mp.get('axis')} axis")
        c.check(all(r["device"] == "cpu" and r["threads"] == 1 and r["seconds"] >= 0
                    for r in per), f"{what}: each rank on the CPU with 1 thread, timed")
        c.check(len(mp.get("hosts", [])) == 1, f"{what}: one host ({mp.get('hosts')})")
        c.check(mp.get("load_imbalance", 0) >= 1, f"{what}: load imbalance >= 1 "
                                                    f"({mp.get('load_imbalance')})")
        c.check(p.stdout.count("wrote:") == 1, f"{what}: one rank reports the files written")

# The field split by sources (--mpi-split sources): each rank a share of the 900 sources at
# every target, the fp64 fields reduced to rank 0: the float32 outputs within one rounding of
# the single-process run's (the fp64 sums agree to ~1e-15; test_split_merge checks 1e-12).
base = scratch("mpi_field_sources")
one = headless("field", os.path.join(base, "single"))
ref_dir = os.path.join(base, "single")
for ranks in (2, 3, 4):
    out = os.path.join(base, f"np{ranks}")
    cmd = [mpirun, "--oversubscribe", "-np", str(ranks), simscope, "--headless", "--workload",
           "field", "--backend", "cpu", "--out-dir", out, "--no-image", "--mpi-split", "sources",
           *WORKLOADS["field"]]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=LIMIT,
                       env=dict(os.environ, OMP_NUM_THREADS="1"))
    what = f"field -np {ranks} --mpi-split sources"
    c.check(p.returncode == 0, f"{what}: exit 0 ({p.stderr.strip()[-300:]})")
    if p.returncode != 0 or one.returncode != 0:
        continue
    e_max = float(np.abs(np.load(os.path.join(ref_dir, "magnitude.npy"))).max())
    for f in npy_files(ref_dir):
        a = np.load(os.path.join(ref_dir, f)).astype(np.float64)
        b = np.load(os.path.join(out, f)).astype(np.float64)
        ok = a.shape == b.shape and bool(np.all(np.abs(a - b) <= 2.0 ** -23 * np.abs(a)
                                                + 1e-12 * e_max))
        c.check(ok, f"{what}: {f} within one float32 rounding of the single-process run "
                    f"(largest difference {np.abs(a - b).max() if a.shape == b.shape else 'shape'})")
    m = json.load(open(os.path.join(out, "run.json")))
    mp = m.get("mpi", {})
    c.check(mp.get("axis") == "sources" and mp.get("axis_length") == 900 and
            mp.get("reduced_bytes_per_rank") == 8 * 4 * 6 * 41 * 41,
            f"{what}: run.json mpi: axis sources of 900, {mp.get('reduced_bytes_per_rank')} "
            "B reduced per rank")
    c.check(m["stats"].get("sources") == 900, f"{what}: stats.sources = 900")

# auto: 900 sources on 16 targets (more than 8 per target) split by sources; a box of 41 by
# targets; --mpi-split refused for another workload or value (status 2, one message).
for grid, plane, want in ((4, "xy", "sources"), (41, "box", "targets")):
    out = os.path.join(base, f"auto_{grid}")
    cmd = [mpirun, "--oversubscribe", "-np", "2", simscope, "--headless", "--workload", "field",
           "--backend", "cpu", "--out-dir", out, "--no-image", "--set", f"plane={plane}", "--set",
           f"grid.size={grid}", "--set", "sources.count=900"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=LIMIT,
                       env=dict(os.environ, OMP_NUM_THREADS="1"))
    axis = json.load(open(os.path.join(out, "run.json")))["mpi"]["axis"] if p.returncode == 0 \
        else None
    c.check(axis == want, f"field -np 2 --mpi-split auto, {plane} of {grid}: split by {want} "
                          f"({axis}; {p.stderr.strip()[-200:]})")
for args, word in ((["--workload", "lsq", "--mpi-split", "sources"], "only the field"),
                   (["--workload", "field", "--mpi-split", "rows"], "--mpi-split"),
                   # the single-process extras are refused, not ignored
                   (["--workload", "field", "--sweep", "k=1:2:3"], "not supported under mpirun"),
                   (["--workload", "field", "--pin-set", "k=2"], "not supported under mpirun"),
                   (["--workload", "field", "--profile", "-1,0:1,0"], "not supported under mpirun"),
                   (["--workload", "oscillators", "--estimate"], "not supported under mpirun")):
    cmd = [mpirun, "--oversubscribe", "-np", "2", simscope, "--headless", "--backend", "cpu",
           *([] if "--sweep" in args else ["--no-image"]),  # a sweep writes its frames
           "--out-dir", os.path.join(base, "refused"), *args]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=LIMIT,
                       env=dict(os.environ, OMP_NUM_THREADS="1"))
    errs = [l for l in p.stderr.splitlines() if l.startswith("simscope: error:")]
    c.check(p.returncode == 2 and len(errs) == 1 and word in errs[0],
            f"-np 2 {' '.join(args)}: refused with status 2, one message ({errs})")

# The tree's error view split by sources: the shares' direct sums at its subgrid are reduced
# with the field (e2e_mpi_slices checks its values against numpy).
cmd = [mpirun, "--oversubscribe", "-np", "2", simscope, "--headless", "--backend", "cpu",
       "--out-dir", os.path.join(base, "error_view"), "--mpi-split", "sources", "--set",
       "method=tree", "--set", "sources.count=3000", "--set", "grid.size=16", "--set", "view=error"]
p = subprocess.run(cmd, capture_output=True, text=True, timeout=LIMIT,
                   env=dict(os.environ, OMP_NUM_THREADS="1"))
c.check(p.returncode == 0 and os.path.exists(os.path.join(base, "error_view", "error.npy")) and
        os.path.exists(os.path.join(base, "error_view", "view.png")),
        f"-np 2 --mpi-split sources with view=error: the error view written ({p.stderr[-300:]})")


# Mixed CPUs (core/isa.hpp): rank 1 limited to x86-64-v2 (SIMSCOPE_ISA, as on an older node);
# every rank then runs the lowest level: lsq (whose fp64 bits depend on the level) split across
# the two equals one process at v2, bit for bit, and run.json says why.
v = subprocess.run([simscope, "--version"], capture_output=True, text=True, timeout=60).stdout
if "x86-64-v2" in v:
    base = scratch("mpi_isa")
    args = ["--headless", "--workload", "lsq", "--backend", "cpu", "--no-image", *WORKLOADS["lsq"]]
    env = dict(os.environ, OMP_NUM_THREADS="1")
    one = subprocess.run([simscope, *args, "--out-dir", os.path.join(base, "v2")],
                         capture_output=True, text=True, timeout=LIMIT,
                         env=dict(env, SIMSCOPE_ISA="v2"))
    mixed = subprocess.run([mpirun, "--oversubscribe", "-np", "1", simscope, *args, "--out-dir",
                            os.path.join(base, "mixed"), ":", "-np", "1", "env", "SIMSCOPE_ISA=v2",
                            simscope, *args, "--out-dir", os.path.join(base, "mixed")],
                           capture_output=True, text=True, timeout=LIMIT, env=env)
    c.check(one.returncode == 0 and mixed.returncode == 0,
            f"mixed levels: runs exit 0 ({one.stderr.strip()[-200:]} {mixed.stderr.strip()[-300:]})")
    if one.returncode == 0 and mixed.returncode == 0:
        be = json.load(open(os.path.join(base, "mixed", "run.json")))["backend"]
        c.check(be.get("cpu_kernels") == "x86-64-v2" and be.get("cpu_kernels_chosen_by") ==
                "the lowest among the 2 ranks: rank 1's, SIMSCOPE_ISA=v2",
                f"mixed levels: run.json names x86-64-v2 and the rank it came from ({be})")
        same = all(open(os.path.join(base, "v2", f), "rb").read() ==
                   open(os.path.join(base, "mixed", f), "rb").read()
                   for f in npy_files(os.path.join(base, "v2")))
        c.check(same, "mixed levels: -np 2 bit-identical to one process at x86-64-v2")
    # A bad SIMSCOPE_ISA on rank 1 only: one line (rank 0's, naming rank 1), exit 2, no outputs.
    bad = subprocess.run([mpirun, "--oversubscribe", "-np", "1", simscope, *args, "--out-dir",
                          os.path.join(base, "bad"), ":", "-np", "1", "env", "SIMSCOPE_ISA=v9",
                          simscope, *args, "--out-dir", os.path.join(base, "bad")],
                         capture_output=True, text=True, timeout=LIMIT, env=env)
    errs = [l for l in bad.stderr.splitlines() if l.startswith("simscope: error:")]
    c.check(bad.returncode == 2 and errs == ["simscope: error: environment: rank 1: "
                                             "SIMSCOPE_ISA='v9': expected v2, v3 or v4"] and
            not os.path.exists(os.path.join(base, "bad")),
            f"SIMSCOPE_ISA=v9 on rank 1: one line from rank 0, exit 2 ({bad.returncode}, {errs})")
else:
    print("skipped: mixed levels (this build holds one level)")

# The user's own networks (network.file as a (K, N, N) stack and as a folder of per-member
# files): split across 3 ranks, each reading only its members' networks, bit for bit.
base = scratch("mpi_own_networks")
rng = np.random.default_rng(3)
upper = np.triu(rng.random((130, 6, 6)) < 0.5, 1) * rng.uniform(0.5, 1.5, (130, 6, 6))
np.save(os.path.join(base, "stack.npy"), upper + upper.transpose(0, 2, 1))
os.makedirs(os.path.join(base, "nets"), exist_ok=True)
for k in range(130):
    np.save(os.path.join(base, "nets", f"g{k}.npy"), upper[k] + upper[k].T)
own = ["--set", "ensemble.size=130", "--set", "network.nodes=6", "--set", "network.topology=file",
       "--set", "integrator.steps=200", "--set", "integrator.transient=50"]
for source in ("stack.npy", "nets"):
    runs = {}
    for ranks in (0, 3):
        out = os.path.join(base, f"{source}_np{ranks}")
        cmd = [simscope, "--headless", "--workload", "oscillators", "--backend", "cpu",
               "--out-dir", out, "--no-image", *own, "--set",
               f"network.file={os.path.join(base, source)}"]
        if ranks:
            cmd = [mpirun, "--oversubscribe", "-np", str(ranks), *cmd]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=LIMIT,
                           env=dict(os.environ, OMP_NUM_THREADS="1"))
        c.check(p.returncode == 0, f"own networks from {source}, -np {ranks}: exit 0 "
                                   f"({p.stderr.strip()[-300:]})")
        runs[ranks] = out if p.returncode == 0 else None
    if runs[0] and runs[3]:
        same = all(np.load(os.path.join(runs[0], f)).tobytes() ==
                   np.load(os.path.join(runs[3], f)).tobytes() for f in npy_files(runs[0]))
        c.check(same and npy_files(runs[0]) == npy_files(runs[3]),
                f"own networks from {source}: -np 3 bit-identical to the single-process run")
if all(os.path.exists(os.path.join(base, f"{s}_np0", "msd.npy")) for s in ("stack.npy", "nets")):
    c.check(np.load(os.path.join(base, "stack.npy_np0", "msd.npy")).tobytes() ==
            np.load(os.path.join(base, "nets_np0", "msd.npy")).tobytes(),
            "own networks: the folder (natural order g0 .. g129) equals the stack")


# Scattered targets (targets.file): split by targets across 2 ranks, bit for bit, outputs.csv too.
base = scratch("mpi_targets_file")
rng = np.random.default_rng(4)
np.save(os.path.join(base, "pts.npy"), rng.uniform(-2, 2, (301, 3)))
runs = {}
for ranks in (0, 2):
    out = os.path.join(base, f"np{ranks}")
    cmd = [simscope, "--headless", "--workload", "field", "--backend", "cpu", "--out-dir", out,
           "--no-image", "--set", "sources.count=700", "--set", "precision=fp64", "--set",
           f"targets.file={os.path.join(base, 'pts.npy')}"]
    if ranks:
        cmd = [mpirun, "--oversubscribe", "-np", str(ranks), *cmd]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=LIMIT,
                       env=dict(os.environ, OMP_NUM_THREADS="1"))
    c.check(p.returncode == 0, f"targets.file -np {ranks}: exit 0 ({p.stderr.strip()[-300:]})")
    runs[ranks] = out if p.returncode == 0 else None
if runs[0] and runs[2]:
    same = all(open(os.path.join(runs[0], f), "rb").read() == open(os.path.join(runs[2], f), "rb").read()
               for f in npy_files(runs[0]) + ["outputs.csv"])
    c.check(same and np.load(os.path.join(runs[2], "magnitude.npy")).shape == (301,),
            "targets.file: -np 2 (split by targets) bit-identical to one process, (301,) outputs")

c.done()
