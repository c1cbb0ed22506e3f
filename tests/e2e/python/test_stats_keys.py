"""run.json's stats and the Python module's result.stats carry the same keys for each workload
(one result path per workload: the adapters' to_outputs and stats serve both). The Python calls
add only the keys that say how their arrays came in (INPUT_KEYS, README's Python section)."""

import json
import os
import subprocess

import numpy as np
import pytest

import simscope

# How a Python call's input arrays came in: copies made, bytes staged from the device; and
# whether a simscope.Sources object's kept tree served (tree_kept: 0 for simscope.field).
INPUT_KEYS = {"sources_conversions", "targets_conversions", "cube_copied_bytes",
              "host_staging_bytes", "tree_kept"}


def cli_stats(exe, tmp_path, workload, sets):
    out = tmp_path / workload
    args = [exe, "--headless", "--no-image", "--quiet", "--backend", "cpu", "--workload",
            workload, "--out-dir", str(out)]
    for k, v in sets.items():
        args += ["--set", "%s=%s" % (k, v)]
    p = subprocess.run(args, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    return json.load(open(out / "run.json"))["stats"]


def same_keys(cli, py, workload):
    extra = set(py) - set(cli) - INPUT_KEYS
    missing = set(cli) - set(py)
    assert not extra and not missing, (
        "%s: Python's stats only: %s; run.json's only: %s" % (workload, sorted(extra),
                                                              sorted(missing)))


@pytest.mark.parametrize("method", ["auto", "downdate", "qr"])
def test_lsq(exe, tmp_path, method):
    rng = np.random.default_rng(3)
    cube = rng.standard_normal((12, 6, 5))
    cube[rng.random(cube.shape) < 0.2] = np.nan
    design = rng.standard_normal((12, 3))
    np.save(tmp_path / "cube.npy", cube)
    np.save(tmp_path / "design.npy", design)
    cli = cli_stats(exe, tmp_path, "lsq", {"data.file": tmp_path / "cube.npy",
                                           "design.file": tmp_path / "design.npy",
                                           "method": method})
    py = simscope.lsq(cube, design, backend="cpu", params={"method": method}).stats
    same_keys(cli, py, "lsq")
    for k in cli:  # the same solve: the same counts
        if not k.endswith("_per_s"):
            assert py[k] == cli[k], (k, py[k], cli[k])


@pytest.mark.parametrize("method", ["direct", "tree", "auto"])
def test_field(exe, tmp_path, method):
    rng = np.random.default_rng(4)
    sources = np.c_[rng.uniform(-1, 1, (300, 3)), rng.uniform(-1, 1, 300)]
    np.save(tmp_path / "sources.npy", sources)
    sets = {"sources.file": tmp_path / "sources.npy", "grid.size": 16, "method": method}
    cli = cli_stats(exe, tmp_path, "field", sets)
    py = simscope.field(sources, backend="cpu", params={"grid.size": 16, "method": method}).stats
    same_keys(cli, py, "field")
    # The method that ran, by name (auto resolved: 300 x 256 pairs are summed directly).
    ran = "direct" if method == "auto" else method
    assert cli["method"] == ran and py["method"] == ran, (cli["method"], py["method"])


def test_oscillators(exe, tmp_path):
    sets = {"network.nodes": 12, "ensemble.size": 4, "integrator.steps": 200,
            "integrator.transient": 50, "record.every": 20}
    cli = cli_stats(exe, tmp_path, "oscillators", sets)
    py = simscope.oscillators.study(params=sets, backend="cpu").stats
    same_keys(cli, py, "oscillators")
