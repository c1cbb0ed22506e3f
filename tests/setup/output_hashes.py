#!/usr/bin/env python3
"""Hashes of simscope's outputs over a fixed list of runs: headless (each workload, method and
precision), MPI (split by targets, sources, rows, members) and Python. A refactoring that must not
change numbers or outputs (the redesign's steps) prints the same hashes before and after, on the
same machine and build flags (bit-identity across CPUs and builds is not promised: README, "What
is bit-identical to what").

  /usr/bin/python3 tests/setup/output_hashes.py BUILD_DIR > hashes.txt
  diff before.txt after.txt

Each line: run name, output name, sha256 (16 hex digits) of the .npy file's bytes (header and
data) or of run.json's stats and warnings without the ones that measure time or memory. Runs
with a view (one per workload) and a --sweep add their PNGs' text chunks (parameters, view,
workload) and pixels (the decompressed image data) and, for the sweep, its run.json without
the values that measure time (sweep.mp4 is left out: the encoder's bytes are not promised).
Runs that cannot start here (no mpirun, no Python module) print one line saying so."""

import hashlib
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

build = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build")
simscope = os.path.join(build, "app", "simscope")
work = tempfile.mkdtemp(prefix="simscope-hashes-")
env = dict(os.environ, OMP_NUM_THREADS="2", OMPI_ALLOW_RUN_AS_ROOT="1",
           OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")

# Stats that measure time or memory (or depend on them): left out.
VOLATILE = ("seconds", "per_s", "rss", "bytes", "threads", "date", "time")


def digest(data):
    return hashlib.sha256(data).hexdigest()[:16]


def stable_stats(stats):
    return {k: v for k, v in sorted(stats.items()) if not any(w in k for w in VOLATILE)}


def without_volatile(v):
    """A JSON value without the keys that measure time or memory, at any depth."""
    if isinstance(v, dict):
        return {k: without_volatile(x) for k, x in sorted(v.items())
                if not any(w in k for w in VOLATILE)}
    if isinstance(v, list):
        return [without_volatile(x) for x in v]
    return v


def report_png(name, path):
    """The PNG's text chunks and its decompressed image data, hashed apart."""
    data = open(path, "rb").read()
    texts, pixels, i = [], b"", 8
    while i + 8 <= len(data):
        (n,) = struct.unpack(">I", data[i:i + 4])
        kind, body = data[i + 4:i + 8], data[i + 8:i + 8 + n]
        if kind in (b"tEXt", b"iTXt", b"zTXt"):
            texts.append(kind + body)
        elif kind == b"IDAT":
            pixels += body
        i += 12 + n
    label = os.path.relpath(path, os.path.join(work, name))
    print(name, label, "text", digest(b"\0".join(texts)))
    print(name, label, "pixels", digest(data[16:24] + zlib.decompress(pixels)))


def report_dir(name, out):
    for f in sorted(os.listdir(out)):
        p = os.path.join(out, f)
        if f.endswith(".npy"):
            print(name, f, digest(open(p, "rb").read()))
    man = json.load(open(os.path.join(out, "run.json")))
    keep = {"stats": stable_stats(man.get("stats", {})), "warnings": man.get("warnings", [])}
    print(name, "run.json", digest(json.dumps(keep, sort_keys=True).encode()))


def headless(name, workload, *sets, launcher=(), extra=(), image=False):
    out = os.path.join(work, name)
    look = ["--image-size", "160x120"] if image else ["--no-image"]
    cmd = [*launcher, simscope, "--headless", *look, "--quiet", "--backend", "cpu",
           "--workload", workload, "--out-dir", out, *extra]
    for s in sets:
        cmd += ["--set", s]
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
    if r.returncode != 0:
        print(name, "FAILED", r.returncode, r.stderr.strip().splitlines()[-1:] or "")
        return
    report_dir(name, out)
    if image:
        report_png(name, os.path.join(out, "view.png"))


def sweep(name, workload, spec, *sets):
    """A --sweep's frames and run.json (no .npy outputs: a sweep writes none)."""
    out = os.path.join(work, name)
    cmd = [simscope, "--headless", "--quiet", "--backend", "cpu", "--workload", workload,
           "--out-dir", out, "--image-size", "160x120", "--sweep", spec]
    for s in sets:
        cmd += ["--set", s]
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
    if r.returncode != 0:
        print(name, "FAILED", r.returncode, r.stderr.strip().splitlines()[-1:] or "")
        return
    for f in sorted(os.listdir(os.path.join(out, "frames"))):
        report_png(name, os.path.join(out, "frames", f))
    man = without_volatile(json.load(open(os.path.join(out, "run.json"))))
    print(name, "run.json", digest(json.dumps(man, sort_keys=True).encode()))


FIELD = ("sources.count=3000", "grid.size=37", "sources.seed=4")
for plane in ("xy", "box"):
    for method in ("direct", "tree"):
        for prec in ("fp32", "fp64"):
            headless(f"field-{plane}-{method}-{prec}", "field", *FIELD, f"plane={plane}",
                     f"method={method}", f"precision={prec}", "tree.tolerance=1e-6")
headless("field-dipoles-tree", "field", "sources.distribution=dipoles", "sources.count=20000",
         "method=tree", "grid.size=24", "plane.offset=0.3")
LSQ = ("synth.height=19", "synth.width=23", "synth.observations=30", "synth.unknowns=7",
       "synth.nan_fraction=0.35")
for method in ("auto", "normal", "qr", "svd", "downdate"):
    for prec in ("fp32", "fp64"):
        headless(f"lsq-{method}-{prec}", "lsq", *LSQ, f"method={method}", f"precision={prec}")
headless("lsq-lambda", "lsq", *LSQ, "lambda=0.5", "synth.design=polynomial")
OSC = ("ensemble.size=150", "network.nodes=12", "network.k=4", "network.topology=watts_strogatz",
       "integrator.steps=300", "integrator.transient=50", "record.every=5")
for prec in ("fp64", "fp32"):
    headless(f"osc-study-{prec}", "oscillators", *OSC, f"precision={prec}")
# The view of each workload (view.png), a box's mosaic with its face labels, and a sweep.
headless("field-xy-view", "field", *FIELD, "plane=xy", image=True)
headless("field-box-view", "field", *FIELD, "plane=box", image=True)
headless("lsq-view", "lsq", *LSQ, image=True)
headless("osc-view", "oscillators", *OSC, image=True)
sweep("field-sweep", "field", "plane.offset=-0.5:0.5:3", *FIELD)

mpirun = shutil.which("mpirun")
if mpirun:
    mpi = (mpirun, "--oversubscribe", "-np", "3")
    headless("mpi-field-targets", "field", *FIELD, launcher=mpi)
    headless("mpi-field-sources", "field", *FIELD, "method=tree", launcher=mpi,
             extra=("--mpi-split", "sources"))
    headless("mpi-lsq-rows", "lsq", *LSQ, launcher=mpi)
    headless("mpi-osc-members", "oscillators", *OSC, launcher=mpi)
else:
    print("mpi", "SKIPPED", "no mpirun")

py = f"""
import hashlib, json, sys
import numpy as np
sys.path.insert(0, {os.path.join(build, 'python')!r})
import simscope
VOLATILE = {VOLATILE!r}
def show(name, r):
    for k in sorted(r.keys()):
        a = np.ascontiguousarray(r[k])
        print(name, k, hashlib.sha256(str(a.dtype).encode() + str(a.shape).encode() + a.tobytes()).hexdigest()[:16])
    st = {{k: v for k, v in sorted(r.stats.items()) if not any(w in k for w in VOLATILE)}}
    print(name, "stats", hashlib.sha256(json.dumps({{"stats": st, "warnings": list(r.warnings)}}, sort_keys=True).encode()).hexdigest()[:16])
rng = np.random.default_rng(0)
src = np.c_[rng.uniform(-1, 1, (2000, 3)), rng.uniform(-1, 1, 2000)]
tg = rng.uniform(-2, 2, (500, 3))
for prec in ("fp32", "fp64"):
    show("py-field-" + prec, simscope.field(src, tg, precision=prec, backend="cpu"))
show("py-field-plane", simscope.field(src, plane="xz", grid_size=40, backend="cpu"))
A = rng.standard_normal((30, 6))
cube = np.einsum("mn,nhw->mhw", A, rng.standard_normal((6, 17, 13)))
cube[rng.random(cube.shape) < 0.3] = np.nan
for m in ("auto", "normal", "downdate"):
    show("py-lsq-" + m, simscope.lsq(cube, A, method=m, backend="cpu"))
show("py-osc-study", simscope.oscillators.study(network_nodes=10, ensemble_size=40,
     integrator_steps=200, integrator_transient=50, backend="cpu"))
show("py-run-lsq", simscope.run("lsq", synth_height=9, synth_width=11, backend="cpu"))
"""
r = subprocess.run(["/usr/bin/python3", "-c", py], capture_output=True, text=True, env=env,
                   timeout=600)
if r.returncode == 0:
    sys.stdout.write(r.stdout)
else:
    print("python", "FAILED", r.stderr.strip().splitlines()[-1:] or "")
shutil.rmtree(work, ignore_errors=True)
