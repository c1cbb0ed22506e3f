"""`pip install --no-build-isolation .` from the clone (pyproject.toml, the build backend
app/python/simscope_build.py) into a fresh virtual environment with the system's numpy, offline;
the installed package imports from the venv and computes. The backend takes the module of this
build folder (SIMSCOPE_BUILD_DIR: configured for /usr/bin/python3, the venv's interpreter), so
nothing is compiled here; the backend's own configure of build/pip-<tag> is the README's path
for users."""

import os
import pathlib
import subprocess
import sys

import pytest

import simscope

SRC = pathlib.Path(__file__).resolve().parents[3]


def test_pip_install_from_the_clone(tmp_path):
    build_python = pathlib.Path(simscope.__file__).resolve().parents[1]
    build = build_python.parent
    if not (build / "CMakeCache.txt").exists():
        pytest.skip("simscope is not imported from a build folder's python/")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)],
                   check=True, timeout=300)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["SIMSCOPE_BUILD_DIR"] = str(build)
    p = subprocess.run([str(venv / "bin" / "pip"), "install", "--no-build-isolation",
                        "--no-index", "--no-cache-dir", str(SRC)],
                       capture_output=True, text=True, env=env, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    tag = f"cp{sys.version_info.major}{sys.version_info.minor}"
    assert f"simscope-0" in p.stdout and f"-{tag}-{tag}-linux_" in p.stdout, p.stdout
    (record,) = venv.glob("lib/python3*/site-packages/simscope-*.dist-info/RECORD")
    names = [line.split(",")[0] for line in record.read_text().splitlines()]
    assert "simscope/__init__.py" in names and any(n.startswith("simscope/_core") for n in names)
    code = ("import numpy as np, simscope\n"
            "r = simscope.field(np.array([[0.0, 0, 0, 2.0]]), np.array([[0.0, 2.0, 0]]), k=1.0,"
            " eps=0.0, precision='fp64', backend='cpu')\n"
            "print(simscope.__file__); print(float(r.magnitude[0]))")
    p = subprocess.run([str(venv / "bin" / "python"), "-c", code], capture_output=True,
                       text=True, env=env, cwd=str(tmp_path), timeout=300)
    assert p.returncode == 0, p.stderr
    where, value = p.stdout.split("\n")[:2]
    assert where.startswith(str(venv)), where
    assert abs(float(value) - 0.5) < 1e-6, value  # |E| = k q / r^2 = 2 / 4
