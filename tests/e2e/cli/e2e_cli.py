"""The command line tells the truth: --help lists every option, --list-params every parameter
of the schema with type, default, range, unit and help; presets round-trip.
Usage: e2e_cli.py SIMSCOPE"""
import json
import os
import re
import subprocess
import sys

import numpy as np

from simscope_test_util import Checker, field_reference, plane_targets, read_png, run, scratch

simscope = sys.argv[1]
c = Checker()
p = run(simscope, "--help")
c.check(p.returncode == 0, "--help exits 0")
# The usage line names the program, not the path it was started by (here the build folder's).
c.check(p.stdout.splitlines()[0] == "Usage: simscope [options]",
        f"--help's usage line: {p.stdout.splitlines()[0]!r}")
for opt in ["--workload", "--preset", "--set", "--backend", "--headless", "--out ", "--out-dir",
            "--list-params", "--frames", "--screenshot", "--image-size", "--no-image", "--version"]:
    c.check(opt in p.stdout, f"--help lists {opt.strip()}")
# The outputs the help lists are the exported ones, in export order (from the workload
# descriptors): what a headless run of each workload writes (run.json's outputs, below).
helptext = " ".join(p.stdout.split())
for wl, outs in [("field", "magnitude, ex, ey, ez, potential, error, error_xyz"),
                 ("lsq", "solution, residual, count, status, condition"),
                 ("oscillators", "msd, msd_t, order_t, phases, state")]:
    c.check(f"{wl}: {outs};" in helptext, f"--help lists the {wl} outputs ({outs})")
p = run(simscope, "--help-all")
c.check(p.returncode == 0 and "--list-params" in p.stdout and "Qt" not in p.stdout and
        "help-all" not in p.stdout, "--help-all prints the help, without Qt's options")
p = run(simscope, "--version")
c.check(p.returncode == 0 and "simscope" in p.stdout, "--version")
# The CPU kernels' instruction-set level (compute/core/isa.hpp): --version names it and what
# chose it; SIMSCOPE_ISA forces a built level; a bad one is one line before anything runs.
m = re.search(r"^CPU kernels: (\S+) \((.*); built: (.*)\)$", p.stdout, re.M)
c.check(m is not None, f"--version names the CPU kernels' level ({p.stdout.strip()!r})")
built = m.group(3).split(", ") if m else []
if "x86-64-v2" in built:
    q = subprocess.run([simscope, "--version"], capture_output=True, text=True, timeout=60,
                       env=dict(os.environ, SIMSCOPE_ISA="v2"))
    c.check(q.returncode == 0 and "CPU kernels: x86-64-v2 (SIMSCOPE_ISA=v2;" in q.stdout,
            f"SIMSCOPE_ISA=v2 --version: x86-64-v2 ({q.stdout.strip()!r})")
    out = scratch("isa_v2")
    q = subprocess.run([simscope, "--headless", "--workload", "lsq", "--backend", "cpu",
                        "--out-dir", out, "--no-image", "--set", "synth.height=8", "--set",
                        "synth.width=8"], capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, SIMSCOPE_ISA="v2"))
    be = json.load(open(os.path.join(out, "run.json")))["backend"] if q.returncode == 0 else {}
    c.check(be.get("cpu_kernels") == "x86-64-v2" and
            be.get("cpu_kernels_chosen_by") == "SIMSCOPE_ISA=v2",
            f"run.json's backend names the level that ran ({be}, {q.stderr.strip()[-200:]})")
other = "native" if "x86-64-v2" in built else "v2"
for bad, says in (("v5", "SIMSCOPE_ISA='v5': expected v2, v3 or v4"),
                  (other, f"SIMSCOPE_ISA={other}: this build holds CPU kernels for")):
    bad_dir = scratch("isa_bad")
    q = subprocess.run([simscope, "--headless", "--workload", "lsq", "--out-dir", bad_dir,
                        "--no-image"], capture_output=True, text=True,
                       timeout=60, env=dict(os.environ, SIMSCOPE_ISA=bad))
    lines = q.stderr.strip().splitlines()
    c.check(q.returncode == 2 and len(lines) == 1 and "error: environment: " + says in lines[0] and
            not os.listdir(bad_dir), f"SIMSCOPE_ISA={bad}: one line, nothing run ({lines})")

p = run(simscope, "--list-params", "field")
c.check(p.returncode == 0, "--list-params field exits 0")
for name in ["sources.file", "sources.distribution", "sources.count", "sources.seed",
             "sources.half_width", "k", "eps", "plane", "plane.offset", "grid.size",
             "grid.half_width", "precision", "view", "view.colormap", "view.scale"]:
    c.check(f"\n  {name}  (" in p.stdout, f"--list-params shows {name}")
c.check("default:" in p.stdout and "[2, 4096]" in p.stdout, "--list-params shows defaults and ranges")
p = run(simscope, "--list-params", "nosuch")
c.check(p.returncode == 2 and "nosuch" in p.stderr, "--list-params of an unknown workload fails clearly (exit 2)")
p = run(simscope, "--bogus-flag")
c.check(p.returncode == 2 and "unknown option '--bogus-flag'" in p.stderr,
        "unknown option: exit 2 naming it as typed")
p = run(simscope, "-q", "-Z")
c.check(p.returncode == 2 and "unknown option '-Z'" in p.stderr, "unknown short option named as typed")
c.check("did you mean" not in p.stderr, "no suggestion for an option near none")
# A near miss is answered with the nearest names (app/run/params/closest_names.hpp).
for args, want in [(["--frame", "3"], "unknown option '--frame' (did you mean '--frames'?)"),
                   (["--headles"], "unknown option '--headles' (did you mean '--headless'?)"),
                   (["--headless", "--workload", "oscilators"],
                    "unknown workload 'oscilators' (did you mean 'oscillators'?)"),
                   (["--headless", "--set", "grid.sise=8"],
                    "unknown parameter 'grid.sise' for workload 'field' (did you mean 'grid.size'?)"),
                   (["--headless", "--set", "factor=2"],
                    "unknown parameter 'factor' for workload 'field' (did you mean 'k'?)"),
                   (["--headless", "--workload", "oscillators", "--set", "w=2"],
                    "(did you mean 'model.omega'?)"),
                   (["--headless", "--set", "view.colourmap=gray"], "(did you mean 'view.colormap'?)")]:
    p = run(simscope, *args)
    c.check(p.returncode == 2 and want in p.stderr and len(p.stderr.strip().splitlines()) == 1,
            f"{' '.join(args)}: exit 2, one line with {want!r} ({p.returncode}: {p.stderr.strip()[-300:]!r})")
p = run(simscope, "--list-params", "oscillators")
c.check("also called: w\n" in p.stdout, "--list-params shows the other words for a parameter")

# Shipped presets by name (resources/presets): the original questions, --set on top.
d = scratch("cli_shipped_preset")
p = run(simscope, "--headless", "-q", "--no-image", "--preset", "seed-lsq-rank", "--set",
        "synth.height=4", "--set", "synth.width=6", "--out-dir", os.path.join(d, "rank"))
ok = p.returncode == 0 and os.path.exists(os.path.join(d, "rank", "run.json"))
params = json.load(open(os.path.join(d, "rank", "run.json")))["params"] if ok else {}
c.check(ok and params.get("synth.observations") == 50 and params.get("synth.unknowns") == 100
        and params.get("synth.height") == 4,
        f"--preset seed-lsq-rank: 50 observations for 100 unknowns, --set on top ({p.returncode}: "
        f"{p.stderr.strip()[-200:]!r}, {params.get('synth.observations')})")
p = run(simscope, "--headless", "--preset", "seed-lsqq")
c.check(p.returncode == 1 and "(did you mean 'seed-lsq'?)" in p.stderr and "shipped: seed-field" in p.stderr,
        f"a misspelt preset name: exit 1 (a bad preset), the nearest and the shipped names "
        f"({p.stderr.strip()!r})")

# Preset: written by hand (as JSON), applied, then --set wins over the preset.
d = scratch("cli_preset")
preset = os.path.join(d, "p.json")
json.dump({"simscope_preset": 1, "workload": "field",
           "params": {"grid.size": 20, "plane": "xz", "sources.count": 300},
           "view": {"view.colormap": "magma"}}, open(preset, "w"))
out = os.path.join(d, "out")
p = run(simscope, "--headless", "--backend", "cpu", "--preset", preset, "--set", "grid.size=18",
        "--out-dir", out)
c.check(p.returncode == 0, f"run with a preset ({p.stderr.strip()[-200:]})")
if p.returncode == 0:
    man = json.load(open(os.path.join(out, "run.json")))
    c.check(man["params"]["plane"] == "xz" and man["params"]["sources.count"] == 300, "preset values applied")
    c.check(man["params"]["grid.size"] == 18 and np.load(os.path.join(out, "magnitude.npy")).shape == (18, 18),
            "--set overrides the preset")

# A relative sources.file in a preset is relative to the preset's folder, not the cwd.
sub = os.path.join(d, "presets")
os.makedirs(sub, exist_ok=True)
src = np.array([[0.2, 0.1, 0.3, 1.0], [-0.4, 0.2, -0.1, -2.0]])
np.save(os.path.join(sub, "two.npy"), src)
json.dump({"simscope_preset": 1, "workload": "field",
           "params": {"sources.file": "two.npy", "grid.size": 8}}, open(os.path.join(sub, "rel.json"), "w"))
out = os.path.join(d, "out_rel")
p = subprocess.run([simscope, "--headless", "--backend", "cpu", "--preset", os.path.join(sub, "rel.json"),
                    "--out-dir", out, "--no-image"], capture_output=True, text=True, cwd="/")
c.check(p.returncode == 0 and json.load(open(os.path.join(out, "run.json")))["stats"]["sources"] == 2,
        f"relative sources.file resolves against the preset's folder ({p.stderr.strip()[-200:]})")
json.dump({"simscope_preset": 7, "workload": "field", "params": {}}, open(os.path.join(sub, "v7.json"), "w"))
p = run(simscope, "--headless", "--preset", os.path.join(sub, "v7.json"), "--out-dir", os.path.join(d, "v7"))
c.check(p.returncode == 1 and "v7.json" in p.stderr and "format" in p.stderr, "an unknown preset format is refused")

# One headless run without --out-dir, with --out, from a float64 sources file (docs/cli.md).
docs = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "docs")
cli_doc = open(os.path.join(docs, "cli.md"), encoding="utf-8").read()
lsq_doc = open(os.path.join(docs, "lsq.md"), encoding="utf-8").read()
d32 = scratch("cli_defaults")
n, hw, z0 = 8, 1.0, 0.3
tg = plane_targets("xy", z0, n, hw)
rng = np.random.default_rng(5)
near = rng.normal(size=(12, 3))
near /= np.linalg.norm(near, axis=1)[:, None]
src64 = np.empty((12, 4))  # 12 positive sources 2e-5 .. 5e-5 from 12 of the targets
src64[:, :3] = tg[rng.choice(len(tg), 12, replace=False)] + near * rng.uniform(2e-5, 5e-5, (12, 1))
src64[:, 3] = rng.uniform(0.5, 1.5, 12)
np.save(os.path.join(d32, "src.npy"), src64)
p = subprocess.run([simscope, "--headless", "--backend", "cpu", "--set", "sources.file=src.npy",
                    "--set", f"grid.size={n}", "--set", f"grid.half_width={hw}", "--set",
                    f"plane.offset={z0}", "--set", "precision=fp64", "--out", "img.png",
                    "--image-size", "160x120"], capture_output=True, text=True, cwd=d32, timeout=120)
c.check(p.returncode == 0, f"headless run without --out-dir, with --out ({p.stderr.strip()[-200:]})")
# docs/cli.md: "--out-dir DIR (default simscope-out)": the outputs and run.json land in the folder
# it names, under the working directory (and view.png goes to --out instead).
m = re.search(r"`--out-dir DIR` \(default `([^`]+)`\)", cli_doc)
default_dir = os.path.join(d32, m.group(1) if m else "?")
c.check(m is not None and sorted(os.listdir(default_dir) if os.path.isdir(default_dir) else []) ==
        sorted(["magnitude.npy", "ex.npy", "ey.npy", "ez.npy", "potential.npy", "run.json"]),
        f"default --out-dir is docs/cli.md's {m.group(1) if m else None!r}: the outputs are there "
        f"({os.listdir(d32)})")
# docs/cli.md: "DIR/view.png (or --out IMAGE.png; size --image-size WxH; the parameters are in its PNG
# text)": a PNG that decodes at 160 x 120 with this run's parameters and run.json's view.
if os.path.exists(os.path.join(d32, "img.png")):
    img, text = read_png(os.path.join(d32, "img.png"))
    view = json.load(open(os.path.join(default_dir, "run.json")))["render"]["view"] \
        if os.path.exists(os.path.join(default_dir, "run.json")) else None
    c.check(img.shape[:2] == (120, 160) and "sources.file=src.npy" in text.get("simscope.params", "")
            and f"grid.size={n}" in text.get("simscope.params", "") and
            json.loads(text.get("simscope.view", "null")) == view and
            len(np.unique(img.reshape(-1, img.shape[2])[:, :3], axis=0)) > 20,
            f"--out img.png: a 160 x 120 PNG of the view, with the parameters ({img.shape}, "
            f"{sorted(text)})")
else:
    c.check(False, f"--out img.png written ({os.listdir(d32)})")
# README: "Sources are stored as float32 (whatever the file's dtype)": with fp64 sums the outputs
# are the float64 field of the float32-rounded sources, to one float32 rounding per target, and
# not that of the file's float64 values (2e-5 from a target, the rounding moves |E| by ~1e-3).
if p.returncode == 0:
    got = np.load(os.path.join(default_dir, "magnitude.npy")).astype(np.float64).ravel()
    errs = {}
    for label, s_ in (("rounded", src64.astype(np.float32).astype(np.float64)), ("file", src64)):
        e, _ = field_reference(s_, 1.0, 0.0, tg)
        ref = np.sqrt((e * e).sum(1))
        errs[label] = float(np.max(np.abs(got - ref) / ref))
    c.check(errs["rounded"] <= 2.0 ** -23 and errs["file"] > 100 * 2.0 ** -23,
            f"float32 sources: |E| within {errs['rounded']:.2g} of the rounded sources' field, "
            f"{errs['file']:.2g} from the float64 file's")

# Overflow to inf is reported, not silent.
out = os.path.join(d, "out_inf")
p = run(simscope, "--headless", "--backend", "cpu", "--set", "k=1e300", "--set", "grid.size=8",
        "--set", "sources.count=50", "--out-dir", out, "--no-image")
c.check(p.returncode == 0 and "overflow" in p.stderr, "k=1e300: overflow reported on stderr")
if p.returncode == 0:
    c.check(any("overflow" in w for w in json.load(open(os.path.join(out, "run.json")))["warnings"]),
            "k=1e300: overflow listed in run.json's warnings")

# plane=box with offset 0: the cube at +-grid.half_width, six different faces.
out = os.path.join(d, "out_box")
p = run(simscope, "--headless", "--backend", "cpu", "--set", "plane=box", "--set", "grid.size=8",
        "--set", "sources.count=200", "--out-dir", out, "--no-image")
if p.returncode == 0:
    m = np.load(os.path.join(out, "magnitude.npy"))
    c.check(m.shape == (6, 8, 8) and all(not np.allclose(m[0], m[f]) for f in range(1, 6)),
            "box with offset 0: six distinct faces")
else:
    c.check(False, f"box run failed: {p.stderr}")

# plane=box with a negative offset (QA): the faces are at +-|offset|, face 0 (-x) at x = -1. One
# positive source at the origin, compared with numpy on the planes x = -1, x = +1, y = -1, ...
d1 = os.path.join(d, "one.npy")
np.save(d1, np.array([[0.0, 0.0, 0.0, 1.0]]))
out = os.path.join(d, "out_box_negative")
n, hw = 9, 1.5
p = run(simscope, "--headless", "--backend", "cpu", "--set", "plane=box", "--set", "plane.offset=-1",
        "--set", f"sources.file={d1}", "--set", f"grid.size={n}", "--set", "precision=fp64",
        "--out-dir", out, "--no-image")
c.check(p.returncode == 0, f"box with plane.offset=-1 runs ({p.stderr.strip()[-200:]})")
if p.returncode == 0:
    comps = {c_: np.load(os.path.join(out, c_ + ".npy")) for c_ in ("ex", "ey", "ez")}
    for f, (plane, off) in enumerate([("yz", -1), ("yz", 1), ("xz", -1), ("xz", 1), ("xy", -1), ("xy", 1)]):
        e_ref, _ = field_reference(np.array([[0.0, 0.0, 0.0, 1.0]]), 1.0, 0.0, plane_targets(plane, off, n, hw))
        got = np.stack([comps[k][f].ravel() for k in ("ex", "ey", "ez")], 1)
        c.check(np.allclose(got, e_ref, rtol=1e-5, atol=1e-6),
                f"box face {f} lies on the plane {plane} at {off:+d} (|offset|)")
    c.check(comps["ex"][0, n // 2, n // 2] > 0 and comps["ex"][1, n // 2, n // 2] < 0,
            "face -x (index 0) is at negative x: E points towards the source at +x there")

# Numbers (QA): blanks around a value are ignored at both ends alike; hex is refused (exit 2).
for text in (" 8", "8 "):
    out = os.path.join(d, "out_blank")
    p = run(simscope, "--headless", "--backend", "cpu", "--set", f"grid.size={text}", "--set",
            "sources.count=20", "--out-dir", out, "--no-image")
    c.check(p.returncode == 0 and np.load(os.path.join(out, "magnitude.npy")).shape == (8, 8),
            f"grid.size={text!r} reads as 8 ({p.stderr.strip()[-200:]})")
p = run(simscope, "--headless", "--set", "grid.size=0x40", "--out-dir", os.path.join(d, "hex"))
c.check(p.returncode == 2 and "0x40" in p.stderr, "grid.size=0x40 is refused with exit 2")

# Settings the run does not use draw a warning (stderr and run.json), not silence (QA).
edges = os.path.join(d, "edges.txt")
open(edges, "w").write("0 1\n1 2\n2 3\n")
init = os.path.join(d, "init.npy")
np.save(init, np.ones((6, 2)))
cube = os.path.join(d, "cube.npy")
np.save(cube, np.random.default_rng(2).standard_normal((6, 3, 4)))
design = os.path.join(d, "A.npy")
np.save(design, np.random.default_rng(3).standard_normal((6, 2)))
osc = ["--workload", "oscillators", "--set", "network.nodes=6", "--set", "ensemble.size=2",
       "--set", "integrator.steps=50", "--set", "integrator.transient=10"]
unused = [
    ("network.file without network.topology=file", osc + ["--set", f"network.file={edges}"],
     ["network.file is not used", "network.topology=file"]),
    ("init.file without init=file", osc + ["--set", f"init.file={init}"],
     ["init.file is not used", "init=file"]),
    ("network.k with network.topology=file",
     osc + ["--set", "network.topology=file", "--set", f"network.file={edges}", "--set", "network.k=2"],
     ["network.k is not used"]),
    ("init.seed with init=file", osc + ["--set", "init=file", "--set", f"init.file={init}", "--set", "init.seed=5"],
     ["init.seed is not used"]),
    ("sources.count with sources.file", ["--set", f"sources.file={d1}", "--set", "sources.count=50",
                                         "--set", "grid.size=8"], ["sources.count is not used"]),
    ("synth.* with data.file", ["--workload", "lsq", "--set", f"data.file={cube}", "--set",
                                f"design.file={design}", "--set", "synth.seed=3", "--set", "synth.noise=0.5"],
     ["synth.noise, synth.seed are not used"]),
    ("synth.unknowns with design.file alone",
     ["--workload", "lsq", "--set", f"design.file={design}", "--set", "synth.unknowns=7",
      "--set", "synth.height=4", "--set", "synth.width=4"], ["synth.unknowns is not used"]),
]
for label, args, words in unused:
    out = os.path.join(d, "out_unused")
    p = run(simscope, "--headless", "--backend", "cpu", "--no-image", "--out-dir", out, *args)
    ok = p.returncode == 0
    warns = json.load(open(os.path.join(out, "run.json")))["warnings"] if ok else []
    for w in words:
        c.check(ok and w in p.stderr and any(w in x for x in warns),
                f"{label}: warning {w!r} on stderr and in run.json ({p.stderr.strip()[-300:]})")
# ... and a run that uses everything it was given stays quiet.
p = run(simscope, "--headless", "--backend", "cpu", "--no-image", "--out-dir", os.path.join(d, "out_used"),
        *osc, "--set", "network.topology=file", "--set", f"network.file={edges}", "--set", "init=file",
        "--set", f"init.file={init}")
c.check(p.returncode == 0 and "not used" not in p.stderr, f"files in use: no warning ({p.stderr.strip()[-300:]})")

# Help texts (QA): lsq precision as docs/lsq.md says it; live.topology is the member shown live.
p = run(simscope, "--list-params", "lsq")
c.check("fp64 ~1e-12" in p.stdout and "fp32 ~1e-7" in p.stdout and "after refinement" not in p.stdout,
        "lsq precision help: fp64 ~1e-12, fp32 ~1e-7")
c.check("~1e-12 relative error" in lsq_doc and "~1e-7 on well-conditioned" in lsq_doc,
        "docs/lsq.md: fp64 ~1e-12, fp32 ~1e-7")
p = run(simscope, "--list-params", "oscillators")
c.check("Member shown live" in p.stdout, "live.topology help says it is the member shown live")

# A comma-decimal locale (de_DE, compiled into the scratch directory with localedef) changes
# nothing: numbers in --set, CSV files, --list-params and run.json stay C-locale text.
import shutil
loc = scratch("e2e_cli_locale")
built = shutil.which("localedef") and os.path.exists("/usr/share/i18n/locales/de_DE") and \
    subprocess.run(["localedef", "-i", "de_DE", "-f", "UTF-8", os.path.join(loc, "de_DE.UTF-8")],
                   capture_output=True).returncode in (0, 1)
if not (built and os.path.isdir(os.path.join(loc, "de_DE.UTF-8"))):
    print("skipped: cannot build the de_DE.UTF-8 locale (localedef, package locales)")
else:
    env = dict(os.environ, LOCPATH=loc, LC_ALL="de_DE.UTF-8")
    csv = os.path.join(loc, "src.csv")
    with open(csv, "w") as f:
        f.write("x,y,z,q\n0.25,0.5,0.125,1.5\n-0.25,0.5,0.75,0.5\n")
    out = os.path.join(loc, "out")
    p = subprocess.run([simscope, "--headless", "--backend", "cpu", "--out-dir", out,
                        "--set", "grid.size=8", "--set", "eps=0.5", "--set", f"sources.file={csv}"],
                       capture_output=True, text=True, env=env, timeout=120)
    params = json.load(open(os.path.join(out, "run.json")))["params"] if p.returncode == 0 else {}
    c.check(p.returncode == 0 and params.get("eps") == 0.5,
            f"de_DE locale: --set eps=0.5 and a CSV with decimal points work ({p.stderr.strip()[-200:]})")
    lp = subprocess.run([simscope, "--list-params", "field"], capture_output=True, text=True,
                        env=env, timeout=60).stdout
    c.check("1e-09" in lp and not re.search(r"\d,\d", lp), "de_DE locale: --list-params prints C numbers")
c.done()
