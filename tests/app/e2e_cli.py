"""The command line tells the truth: --help lists every option, --list-params every parameter
of the schema with type, default, range, unit and help; presets round-trip.
Usage: e2e_cli.py SIMSCOPE"""
import json
import os
import subprocess
import sys

import numpy as np

from simscope_test_util import Checker, run, scratch

simscope = sys.argv[1]
c = Checker()
p = run(simscope, "--help")
c.check(p.returncode == 0, "--help exits 0")
for opt in ["--workload", "--preset", "--set", "--backend", "--headless", "--out ", "--out-dir",
            "--list-params", "--frames", "--screenshot", "--image-size", "--no-image", "--version"]:
    c.check(opt in p.stdout, f"--help lists {opt.strip()}")
p = run(simscope, "--help-all")
c.check(p.returncode == 0 and "--list-params" in p.stdout, "--help-all prints the help")
p = run(simscope, "--version")
c.check(p.returncode == 0 and "simscope" in p.stdout, "--version")

p = run(simscope, "--list-params", "field")
c.check(p.returncode == 0, "--list-params field exits 0")
for name in ["sources.file", "sources.distribution", "sources.count", "sources.seed",
             "sources.half_width", "k", "eps", "plane", "plane.offset", "grid.size",
             "grid.half_width", "precision", "view", "view.colormap", "view.scale"]:
    c.check(f"\n  {name}  (" in p.stdout, f"--list-params shows {name}")
c.check("default:" in p.stdout and "[2, 4096]" in p.stdout, "--list-params shows defaults and ranges")
p = run(simscope, "--list-params", "nosuch")
c.check(p.returncode != 0 and "nosuch" in p.stderr, "--list-params of an unknown workload fails clearly")
p = run(simscope, "--bogus-flag")
c.check(p.returncode == 2 and "bogus" in p.stderr, "unknown option: exit 2 naming it")

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
c.done()
