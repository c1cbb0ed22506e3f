"""End to end: a headless oscillators study survives interruptions (issue 10, section 5).

A study of 300 members on the CPU back end runs uninterrupted once (the reference). Then the same
study is
  - killed with SIGKILL at a random point after its first checkpoint (drawn in checkpoints, then
    a fraction of one interval), resumed, killed again,
    resumed to the end;
  - stopped with SIGINT (exit 130, one line naming --resume, a checkpoint with a block under way,
    no outputs), resumed;
  - stopped with SIGTERM (exit 143), resumed;
and every resumed study's msd.npy, state.npy and phases.npy must equal the reference's bit for
bit, msd_t / order_t and run.json's msd_mean within 1e-12 relative (they are in fact equal), and
the checkpoint folder must be gone. Also: checkpoints appear as the study goes (several
generations), --resume with a changed parameter is refused naming it (exit 2, checkpoint kept),
--resume without a checkpoint and a new study over an interrupted one's checkpoint are refused
(exit 2), and a non-study run (field) stopped by SIGINT exits 130 with no outputs.
The random points come from a seed printed first (default fixed; SIMSCOPE_RESUME_SEED=N reruns
one, =random draws new ones).
Usage: e2e_resume.py SIMSCOPE"""
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time

import numpy as np

from simscope_test_util import Checker, run, scratch, wait_signal_caught

simscope = os.path.abspath(sys.argv[1])
c = Checker()
d = scratch("e2e_resume")
# A fixed default (CI reruns the same points); SIMSCOPE_RESUME_SEED=random draws new ones (soak).
_seed = os.environ.get("SIMSCOPE_RESUME_SEED", "20261202")
seed = random.randrange(1 << 30) if _seed == "random" else int(_seed)
print(f"seed {seed} (SIMSCOPE_RESUME_SEED={seed} reruns these interruption points)")
rng = random.Random(seed)

STUDY = ["--headless", "--no-image", "-w", "oscillators", "--backend", "cpu",
         "--set", "ensemble.size=300", "--set", "network.nodes=64",
         "--set", "integrator.steps=6000", "--set", "integrator.transient=1000",
         "--set", "record.every=10", "--set", "network.topology=watts_strogatz",
         "--checkpoint-interval", "0.1"]
ARRAYS = ["msd", "state", "phases"]
SERIES = ["msd_t", "order_t"]


def out_dir(name):
    return os.path.join(d, name)


def header(name):
    """The checkpoint's progress (format version 4, app/run/oscillators/study_checkpoint.hpp:
    checkpoint.json, block_BBBBB.json for each finished block, partial_BBBBB.json for each block
    under way): None until a block is finished or under way; else {"members_done", "partial":
    {block: step} of the blocks under way, "signature": what changes with every save}."""
    d = os.path.join(out_dir(name), "checkpoint")
    try:
        with open(os.path.join(d, "checkpoint.json")) as f:
            h = json.load(f)
        names = os.listdir(d)
    except (OSError, ValueError):
        return None
    members, block = h["members"], h["block"]
    done = set(range(h["blocks_done"]))
    partial = {}
    for n in names:
        m = re.fullmatch(r"block_(\d+)\.json", n)
        if m:
            done.add(int(m.group(1)))
        m = re.fullmatch(r"partial_(\d+)\.json", n)
        if m:
            try:
                with open(os.path.join(d, n)) as f:
                    partial[int(m.group(1))] = json.load(f)["step"]
            except (OSError, ValueError, KeyError):
                pass  # replaced while read: the next look sees the new one
    if not done and not partial:
        return None
    return {"members_done": sum(min(members, (b + 1) * block) - b * block for b in done),
            "partial": partial, "signature": (tuple(sorted(done)), tuple(sorted(partial.items())))}


def start(name, *extra):
    return subprocess.Popen([simscope, *STUDY, "--out-dir", out_dir(name), *extra],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_for_checkpoint(p, name, timeout=120):
    """Waits until the run's first checkpoint with progress exists (True), or the run ended
    (False)."""
    t0 = time.time()
    while time.time() - t0 < timeout:
        if header(name) is not None:
            return True
        if p.poll() is not None:
            return False
        time.sleep(0.005)
    return False


def interrupt(name, sig, extra=(), quiet=True):
    """Starts (or resumes, extra=['--resume']) the study, sends `sig` at a random point after its
    first checkpoint; returns (returncode, stdout, stderr, seconds from the signal to the exit,
    header after the exit)."""
    p = start(name, *extra, *(["--quiet"] if quiet else []))
    if not wait_for_checkpoint(p, name):
        out, err = p.communicate()
        return p.returncode, out, err, 0.0, header(name)
    # The point is drawn in the study's progress, not in wall time (a machine that is busier
    # during the reference than now would see the study end first): after `saves` more
    # checkpoints, up to half of the reference's, then a fraction of one checkpoint interval.
    saves = rng.randint(0, max(0, len(generations) // 2 - 1))
    delay = rng.uniform(0.0, ref_seconds / max(1, len(generations)))
    t_first = time.time()
    seen = {header(name)["signature"]} if header(name) else set()
    while len(seen) <= saves and p.poll() is None:
        h = header(name)
        if h is not None:
            seen.add(h["signature"])
        time.sleep(0.002)
    time.sleep(delay)
    t_sig = time.time()
    p.send_signal(sig)
    out, err = p.communicate(timeout=120)
    print(f"  {signal.Signals(sig).name} after {saves} more checkpoints + {delay:.2f} s "
          f"({t_sig - t_first:.2f} s after the first); exit {p.returncode} after "
          f"{time.time() - t_sig:.2f} s")
    return p.returncode, out, err, time.time() - t_sig, header(name)


def outputs_present(name):
    return [f for f in os.listdir(out_dir(name)) if f.endswith(".npy") or f == "run.json"]


def same_as_reference(name, what):
    ok = True
    for a in ARRAYS:
        x = np.load(os.path.join(out_dir("ref"), a + ".npy"))
        y = np.load(os.path.join(out_dir(name), a + ".npy"))
        same = x.dtype == y.dtype and x.shape == y.shape and x.tobytes() == y.tobytes()
        c.check(same, f"{what}: {a}.npy bit-identical to the uninterrupted run's {x.shape}")
        ok &= same
    for a in SERIES:
        x = np.load(os.path.join(out_dir("ref"), a + ".npy"))
        y = np.load(os.path.join(out_dir(name), a + ".npy"))
        rel = np.max(np.abs(x - y) / np.maximum(np.abs(x), 1e-300)) if x.size else 0.0
        c.check(x.shape == y.shape and rel <= 1e-12,
                f"{what}: {a}.npy within 1e-12 relative (max {rel:.1e})")
    rs = json.load(open(os.path.join(out_dir("ref"), "run.json")))["stats"]
    ys = json.load(open(os.path.join(out_dir(name), "run.json")))["stats"]
    rel = abs(rs["msd_mean"] - ys["msd_mean"]) / abs(rs["msd_mean"])
    c.check(rel <= 1e-12, f"{what}: msd_mean within 1e-12 relative (diff {rel:.1e})")
    c.check(ys["msd_sem"] == rs["msd_sem"], f"{what}: msd_sem equal")
    c.check(not os.path.exists(os.path.join(out_dir(name), "checkpoint")),
            f"{what}: the checkpoint folder is removed once the outputs are written")
    return ok


def resume(name, what):
    r = run(simscope, *STUDY, "--out-dir", out_dir(name), "--resume", "--quiet")
    c.check(r.returncode == 0, f"{what}: --resume exits 0 (got {r.returncode}: {r.stderr.strip()})")
    if r.returncode == 0:
        same_as_reference(name, what)


# ---- the uninterrupted reference, watched: checkpoints appear as it goes --------------------
t0 = time.time()
p = start("ref")
generations = set()
while p.poll() is None:
    h = header("ref")
    if h is not None:
        generations.add(h["signature"])
    time.sleep(0.005)
out, err = p.communicate()
ref_seconds = time.time() - t0
c.check(p.returncode == 0, f"reference study exits 0 in {ref_seconds:.1f} s ({err.strip()})")
# Progress lines (printed every 5 s when stderr is no terminal): the ETA comes from the rate
# since the first progress report, so no line before the end says "ETA 0.0 s" (it once did on
# every first line, the rate then being measured from that very line).
progress = [l for l in err.splitlines() if "% " in l and "elapsed" in l]
early_zero = [l for l in progress
              if "ETA 0.0 s" in l and float(l.split(":")[1].split("%")[0]) < 95]
c.check(not early_zero, f"progress lines give a real ETA ({len(progress)} lines: {progress})")
c.check(len(generations) >= 3,
        f"checkpoints are written as the study goes ({len(generations)} generations seen)")
c.check(not os.path.exists(os.path.join(out_dir("ref"), "checkpoint")),
        "reference: no checkpoint folder once the outputs are written")
ref_msd = np.load(os.path.join(out_dir("ref"), "msd.npy"))
c.check(ref_msd.shape == (300,) and np.isfinite(ref_msd).all(), "reference: 300 finite msd")

# ---- SIGKILL at random points, twice, then resumed to the end ------------------------------
for attempt in range(3):  # a kill that comes after the end is retried with a new point
    rc, _, _, _, h = interrupt("kill", signal.SIGKILL)
    if rc == -signal.SIGKILL:
        break
c.check(rc == -signal.SIGKILL, "SIGKILL: the study was killed while running")
c.check(h is not None, "SIGKILL: a checkpoint is there after the kill")
c.check(outputs_present("kill") == [], "SIGKILL: no final outputs were written")
if h is not None:
    done1 = h["members_done"]
    rc, _, _, _, h2 = interrupt("kill", signal.SIGKILL, extra=["--resume"])
    c.check(rc in (-signal.SIGKILL, 0), f"SIGKILL during the resumed run (exit {rc})")
    if rc == -signal.SIGKILL and h2 is None and sorted(outputs_present("kill")) == sorted(outputs_present("ref")):
        # The resumed study (already part-way) finished, wrote its outputs and removed its
        # checkpoint just before the kill landed: the outputs are complete.
        same_as_reference("kill", "SIGKILL after the resumed run's end")
    elif rc == -signal.SIGKILL:
        c.check(h2 is not None and h2["members_done"] >= done1,
                "SIGKILL twice: the second checkpoint is at least as far as the first "
                f"({done1} -> {h2['members_done'] if h2 else None} members)")
        resume("kill", "SIGKILL twice, resumed")
    else:
        same_as_reference("kill", "SIGKILL, resumed")

# ---- SIGINT and SIGTERM: a clean stop, a checkpoint, one line, 130 / 143 --------------------
for sig, code in ((signal.SIGINT, 130), (signal.SIGTERM, 143)):
    name = signal.Signals(sig).name.lower()
    for attempt in range(4):
        # A signal that lands in a block's last steps or its end-of-block save gives a checkpoint
        # at a block boundary; the snapshot of a block under way is what this case checks, so a
        # few new random points are tried (the boundary checkpoint is resumable all the same).
        rc, out, err, latency, h = interrupt(name, sig)
        if rc != code or h is None or h["partial"] or attempt == 3:
            break
        print(f"  {name}: checkpoint at a block boundary; another point")
        shutil.rmtree(os.path.join(out_dir(name), "checkpoint"), ignore_errors=True)
    lines = err.strip().splitlines()
    c.check(rc == code, f"{name}: exit status {code} (got {rc})")
    c.check(len(lines) == 1 and "--resume" in lines[0] and signal.Signals(sig).name in lines[0]
            and lines[0].startswith("simscope: "),
            f"{name}: one line saying how to resume: {lines}")
    c.check(latency < 10, f"{name}: stopped {latency:.2f} s after the signal")
    c.check(h is not None, f"{name}: the checkpoint is written")
    c.check(outputs_present(name) == [], f"{name}: no final outputs")
    if h is not None:
        c.check(bool(h["partial"]),
                f"{name}: the checkpoint holds the block under way (CPU snapshot): "
                f"{h['members_done']} members done, blocks under way at steps {h['partial']}")
    if sig == signal.SIGINT:
        # Refusals, with this checkpoint in place.
        r = run(simscope, *STUDY, "--out-dir", out_dir(name), "--resume", "--set",
                "integrator.steps=7000")
        c.check(r.returncode == 2 and r.stderr.startswith("simscope: error: --resume: ")
                and "integrator.steps is 7000 here but 6000" in r.stderr,
                f"--resume with a changed integrator.steps is refused naming it: {r.stderr.strip()}")
        r = run(simscope, *STUDY, "--out-dir", out_dir(name), "--resume", "--set",
                "model.coupling=0.3")
        c.check(r.returncode == 2 and "model.coupling is 0.3 here but 0.2" in r.stderr,
                f"--resume with a changed model.coupling is refused naming it: {r.stderr.strip()}")
        r = run(simscope, *STUDY, "--out-dir", out_dir(name))
        c.check(r.returncode == 2 and "--resume" in r.stderr and "checkpoint" in r.stderr,
                f"a new study over the checkpoint is refused: {r.stderr.strip()}")
        c.check(header(name) == h, "the refusals leave the checkpoint as it was")
    resume(name, f"{name}, resumed")

# ---- --resume without a checkpoint, and a signal that comes during a resumed run -----------
r = run(simscope, *STUDY, "--out-dir", out_dir("none"), "--resume")
c.check(r.returncode == 2 and r.stderr.startswith("simscope: error: --resume: no checkpoint in")
        and len(r.stderr.strip().splitlines()) == 1,
        f"--resume without a checkpoint: a clear error: {r.stderr.strip()}")
c.check(not os.path.exists(out_dir("none")) or outputs_present("none") == [],
        "--resume without a checkpoint writes nothing")
r = run(simscope, "--headless", "--no-image", "-w", "field", "--out-dir", out_dir("field"),
        "--resume")
c.check(r.returncode == 2 and "oscillators" in r.stderr,
        f"--resume on a workload without studies is refused: {r.stderr.strip()}")
r = run(simscope, "-w", "oscillators", "--resume")
c.check(r.returncode == 2 and "--headless" in r.stderr, f"--resume needs --headless: {r.stderr}")
r = run(simscope, *STUDY, "--out-dir", out_dir("bad"), "--checkpoint-interval", "0")
c.check(r.returncode == 2 and "--checkpoint-interval" in r.stderr,
        f"--checkpoint-interval 0 is refused: {r.stderr.strip()}")

r = run(simscope, *STUDY, "--out-dir", out_dir("badfile"), "--set", "network.topology=file",
        "--set", "network.file=" + os.path.join(d, "missing.txt"))
c.check(r.returncode == 1 and not os.path.exists(os.path.join(out_dir("badfile"), "checkpoint")),
        f"a study that fails on its input leaves no checkpoint: {r.stderr.strip()}")

# ---- a non-study headless run stopped by SIGINT ---------------------------------------------
p = subprocess.Popen([simscope, "--headless", "--no-image", "-w", "field", "--backend", "cpu",
                      "--set", "sources.count=4000000", "--set", "grid.size=400", "--quiet",
                      "--out-dir", out_dir("field")],
                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
# Once simscope's handler is installed (not a fixed sleep: a loaded machine may be slower), so
# that the signal meets the run rather than the default action of a process still starting.
c.check(wait_signal_caught(p.pid, signal.SIGINT), "field run: SIGINT handler installed")
p.send_signal(signal.SIGINT)
out, err = p.communicate(timeout=120)
c.check(p.returncode == 130, f"field stopped by SIGINT: exit 130 (got {p.returncode})")
c.check("no outputs written" in err, f"field stopped by SIGINT: says so: {err.strip()}")
c.check(not os.path.exists(out_dir("field")) or outputs_present("field") == [],
        "field stopped by SIGINT: no outputs")

c.done()
