"""Slurm (issue 45): README's sbatch scripts (examples/slurm/) under a real single-node Slurm
started here (slurm_cluster.py: Debian's slurm-wlm + munge on localhost, a temporary config).
- examples/slurm/study.sbatch, 2 ranks (srun --mpi=pmix), at a small size given through its
  environment variables and arguments: the first job is cancelled (scancel) once its checkpoint
  holds a finished block, so `scontrol show job` says CANCELLED; the same script submitted again
  resumes, is stopped once more by SIGTERM to its ranks (`scancel --signal=TERM`, what the
  script's --signal=TERM@300 sends before the time limit), requeues itself, resumes again and
  ends COMPLETED after 1 restart. Its outputs are byte for byte those of one uninterrupted
  process.
- examples/slurm/field-sweep.sbatch as job arrays, 2 ranks per frame, over a float parameter and
  an integer one: each frame's outputs equal one process' run at the value --sweep would give
  that frame.
- srun --mpi=pmi2 and --mpi=none (PMIs Debian's Open MPI cannot use): exit status 2 and one
  line from simscope saying to use --mpi=pmix.
Without slurm-wlm and munge installed it skips (exit 77), except under CI=true or
SIMSCOPE_REQUIRE_SLURM=1, where that fails. Usage: e2e_slurm.py SIMSCOPE EXAMPLES_DIR"""
import glob
import json
import math
import os
import signal
import subprocess
import sys
import time

from simscope_test_util import Checker, scratch
import slurm_cluster

simscope, examples = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
required = os.environ.get("SIMSCOPE_REQUIRE_SLURM") == "1" or os.environ.get("CI") == "true"
missing = slurm_cluster.missing_programs()
if missing:
    print(f"{'FAIL' if required else 'SKIPPED'}: no {', '.join(missing)} here: install slurm-wlm "
          "and munge (packages.txt; ./simscope.sh installs them)")
    sys.exit(1 if required else 77)

c = Checker()
base = scratch("slurm")
# 1280 members in 20 blocks of 64, N = 40: a few seconds on 2 ranks, blocks of a fraction of a
# second, so each interruption lands with blocks still to do.
SIZE = dict(MEMBERS=1280, NODES=40, STEPS=16000)
STUDY_ARGS = ["--no-image", "--set", "integrator.transient=10", "--set", "network.k=4",
              "--set", "network.p=0.2", "--checkpoint-interval", "0.3"]
RANKS = ["--ntasks=2", "--cpus-per-task=1"]
LIMIT = 60  # seconds any one wait may take
ENDED = ("COMPLETED", "CANCELLED", "FAILED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY")


def blocks_done(ck):
    """Finished blocks in a version-4 checkpoint folder: its prefix and its block markers."""
    try:
        h = json.load(open(os.path.join(ck, "checkpoint.json")))
    except (OSError, ValueError):
        return 0
    return int(h.get("blocks_done", 0)) + len(glob.glob(os.path.join(ck, "block_*.json")))


def same_npy_files(ref, out, what):
    files = sorted(os.path.basename(f) for f in glob.glob(os.path.join(ref, "*.npy")))
    got = sorted(os.path.basename(f) for f in glob.glob(os.path.join(out, "*.npy")))
    c.check(files and files == got, f"{what}: the same output files ({files} / {got})")
    for f in files:
        if f in got:
            a = open(os.path.join(ref, f), "rb").read()
            b = open(os.path.join(out, f), "rb").read()
            c.check(a == b, f"{what}: {f} byte-identical to one process' ({len(a)} bytes)")


def log_of(work, pattern):
    return "".join(open(f, errors="replace").read() for f in sorted(glob.glob(
        os.path.join(work, pattern))))


cluster = slurm_cluster.Cluster(cpus=max(8, os.cpu_count() or 1))
signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # ctest's timeout: stop() still runs
t_start = time.monotonic()
try:
    cluster.start()
    print(f"  the test Slurm is up in {time.monotonic() - t_start:.1f} s ({cluster.root})")
    # The uninterrupted single process, meanwhile.
    ref = os.path.join(base, "ref")
    ref_cmd = [simscope, "--headless", "--workload", "oscillators", "--backend", "cpu",
               "--out-dir", ref, "--set", f"ensemble.size={SIZE['MEMBERS']}", "--set",
               f"network.nodes={SIZE['NODES']}", "--set", f"integrator.steps={SIZE['STEPS']}",
               *STUDY_ARGS]
    reference = subprocess.Popen(ref_cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                 text=True, env=cluster.env())

    # srun with a PMI Open MPI cannot use: one line saying to use --mpi=pmix.
    for plugin in ("pmi2", "none"):
        bad = os.path.join(base, f"bad_{plugin}")
        p = cluster.run("srun", "-n", "2", f"--mpi={plugin}", simscope, "--headless",
                        "--workload", "oscillators", "--no-image", "--out-dir", bad, "--set",
                        "ensemble.size=8", timeout=LIMIT)
        lines = [l for l in p.stderr.splitlines() if l.startswith("simscope")]
        c.check(p.returncode == 2 and len(lines) == 1 and "use srun --mpi=pmix" in lines[0] and
                f"--mpi={plugin}" in lines[0] and "MPI_Init" not in p.stderr,
                f"srun --mpi={plugin}: exit 2 and one line naming --mpi=pmix "
                f"(exit {p.returncode}: {p.stderr.strip()[-400:]!r})")
        c.check(not glob.glob(os.path.join(bad, "*")), f"srun --mpi={plugin}: no outputs")

    # The study: submitted, cancelled once its checkpoint exists.
    work = os.path.join(base, "work")
    os.makedirs(work)
    out = os.path.join(base, "study")
    ck = os.path.join(out, "checkpoint")
    study = os.path.join(examples, "study.sbatch")
    env = cluster.env(SIMSCOPE=simscope, OUT=out, **SIZE)
    job1 = cluster.submit(*RANKS, f"--chdir={work}", study, *STUDY_ARGS, env=env)
    t0 = time.monotonic()
    while blocks_done(ck) < 1 and time.monotonic() - t0 < LIMIT and \
            cluster.job(job1).get("JobState") in ("PENDING", "CONFIGURING", "RUNNING"):
        time.sleep(0.05)
    at_cancel = blocks_done(ck)
    cluster.run("scancel", job1)
    rec = cluster.wait_state(job1, ENDED, LIMIT)[0]
    c.check(at_cancel >= 1 and rec.get("JobState") == "CANCELLED",
            f"job {job1}: scancel once the checkpoint held {at_cancel} blocks -> "
            f"JobState={rec.get('JobState')} (scontrol show job)")
    c.check(not glob.glob(os.path.join(out, "*.npy")) and blocks_done(ck) >= 1,
            f"job {job1}: no outputs, the checkpoint kept ({blocks_done(ck)} of 20 blocks)")

    print(f"  job {job1} cancelled, t = {time.monotonic() - t_start:.1f} s")
    # Submitted again: it resumes; SIGTERM to its ranks (the time limit's --signal) makes it
    # requeue itself; it resumes once more and completes.
    job2 = cluster.submit(*RANKS, f"--chdir={work}", study, *STUDY_ARGS, env=env)
    start2 = blocks_done(ck)
    t0 = time.monotonic()
    while blocks_done(ck) < start2 + 1 and time.monotonic() - t0 < LIMIT and \
            cluster.job(job2).get("JobState") in ("PENDING", "CONFIGURING", "RUNNING"):
        time.sleep(0.05)
    at_signal = blocks_done(ck)
    cluster.run("scancel", "--signal=TERM", job2)
    t0 = time.monotonic()
    rec = cluster.job(job2)
    while not (rec.get("JobState") == "PENDING" and rec.get("Restarts") == "1") and \
            time.monotonic() - t0 < LIMIT and rec.get("JobState") not in ENDED:
        time.sleep(0.2)
        rec = cluster.job(job2)
    c.check(rec.get("JobState") == "PENDING" and rec.get("Restarts") == "1",
            f"job {job2}: SIGTERM to the ranks at {at_signal} blocks -> requeued "
            f"(JobState={rec.get('JobState')}, Restarts={rec.get('Restarts')})")
    # Slurm holds a requeued job about two minutes (its BeginTime); the test does not wait.
    cluster.run("scontrol", "update", f"JobId={job2}", "StartTime=now")
    rec = cluster.wait_state(job2, ENDED, 2 * LIMIT)[0]
    c.check(rec.get("JobState") == "COMPLETED" and rec.get("Restarts") == "1" and
            rec.get("ExitCode") == "0:0",
            f"job {job2}: then JobState={rec.get('JobState')}, Restarts={rec.get('Restarts')}, "
            f"ExitCode={rec.get('ExitCode')} (scontrol show job)")
    log = log_of(work, "simscope-study-*.log")
    c.check(log.count("--resume in ") == 2 and "requeueing job" in log,
            "the script's log: resumed twice, requeued once")
    c.check(not os.path.exists(ck), "the checkpoint is removed once the outputs are written")
    try:
        _, err = reference.communicate(timeout=4 * LIMIT)
    except subprocess.TimeoutExpired:
        reference.kill()
        _, err = reference.communicate()
    c.check(reference.returncode == 0, "the single-process study" +
            ("" if reference.returncode == 0 else f" ({err.strip()[-300:]})"))
    print(f"  the study's jobs done, t = {time.monotonic() - t_start:.1f} s")
    same_npy_files(ref, out, "study (cancelled, resubmitted, requeued)")
    if os.path.exists(os.path.join(out, "run.json")):
        m = json.load(open(os.path.join(out, "run.json")))
        ranks = m.get("mpi", {}).get("ranks")
        c.check(ranks == 2, f"study: split across 2 ranks ({ranks})")

    # Field sweeps: job arrays of 2 ranks per frame, against one process per frame; a float
    # parameter (values printed to round-trip) and an integer one (rounded as --sweep rounds).
    field_args = ["--no-image", "--set", "grid.size=40", "--set", "sources.count=2000",
                  "--set", "method=direct"]
    sweeps = [("plane.offset", -0.5, 0.7, 4, float), ("sources.count", 2000, 3001, 3, int)]
    arrays = []
    for name, start, stop, frames, kind in sweeps:
        out_s = os.path.join(base, f"sweep_{name}")
        arr = cluster.submit(*RANKS, f"--array=0-{frames - 1}", f"--chdir={work}",
                             os.path.join(examples, "field-sweep.sbatch"), *field_args,
                             env=cluster.env(SIMSCOPE=simscope, OUT=out_s,
                                             SWEEP=f"{name}={start}:{stop}:{frames}"))
        arrays.append((arr, name, frames, out_s))
        refs = []
        for f in range(frames):
            value = start + (stop - start) * f / (frames - 1)  # --sweep's frame f (doubles)
            if kind is int:  # the nearest integer, halves away from zero (std::llround)
                value = int(math.copysign(math.floor(abs(value) + 0.5), value))
            d = os.path.join(base, f"sweep_ref_{name}_{f}")
            p = subprocess.run([simscope, "--headless", "--workload", "field", "--out-dir", d,
                                *field_args, "--set", f"{name}={value!r}"], capture_output=True,
                               text=True, timeout=LIMIT, env=cluster.env())
            c.check(p.returncode == 0, f"{name} frame {f}: one process" +
                    ("" if p.returncode == 0 else f" ({p.stderr.strip()[-200:]})"))
            refs.append((d, value))
        arrays[-1] += (refs,)
    for arr, name, frames, out_s, refs in arrays:
        recs = cluster.wait_state(arr, ENDED, 2 * LIMIT)
        c.check(len(recs) == frames and all(r.get("JobState") == "COMPLETED" for r in recs),
                f"{name} sweep, array {arr}: {[r.get('JobState') for r in recs]}")
        for f, (d, value) in enumerate(refs):
            got = os.path.join(out_s, f"{f:04d}")
            try:
                params = json.load(open(os.path.join(got, "run.json")))["params"]
            except (OSError, ValueError, KeyError):
                params = {}
            c.check(params.get(name) == value and type(params.get(name)) is type(value),
                    f"{name} frame {f}: {value!r} ({params.get(name)!r})")
            same_npy_files(d, got, f"{name} frame {f}")
    print(f"  Slurm test: {time.monotonic() - t_start:.1f} s")
except Exception as e:  # the daemons' logs say why
    c.check(False, f"{type(e).__name__}: {e}")
finally:
    if c.failed:
        print(cluster.logs())
        work = os.path.join(base, "work")
        for f in sorted(glob.glob(os.path.join(work, "*.log"))):
            print(f"--- {os.path.basename(f)}\n" + open(f, errors="replace").read()[-3000:])
    cluster.stop()
c.done()
