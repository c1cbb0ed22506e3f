"""The command line tells the truth: --help lists every option, --list-params every parameter
of the schema with type, default, range, unit and help; presets round-trip.
Usage: e2e_cli.py SIMSCOPE"""
import json
import os
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
c.done()
