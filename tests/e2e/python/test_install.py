"""The README's offline install: a virtual environment (with the system's numpy) and
`pip install --no-build-isolation --no-index build/python`; the installed package imports and
runs from outside the source and build trees."""

import os
import subprocess
import sys

import pytest

import simscope


def test_pip_install_into_a_venv(tmp_path):
    build_python = os.path.dirname(os.path.dirname(os.path.abspath(simscope.__file__)))
    if not os.path.exists(os.path.join(build_python, "setup.py")):
        pytest.skip("simscope is not imported from build/python (already installed?)")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)],
                   check=True, timeout=300)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    # (pip writes its build/ and simscope.egg-info next to setup.py, inside the build tree.)
    p = subprocess.run([str(venv / "bin" / "pip"), "install", "--no-build-isolation",
                        "--no-index", "--no-cache-dir", build_python],
                       capture_output=True, text=True, env=env, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    code = ("import importlib.util, simscope;"
            "r = simscope.field(grid_size=4, sources_count=3, backend='cpu');"
            "print(simscope.__file__); print(r.magnitude.shape);"
            "print(importlib.util.find_spec('simscope._gui') is not None);"
            "print(r._repr_png_()[:8] == b'\\x89PNG\\r\\n\\x1a\\n')")
    p = subprocess.run([str(venv / "bin" / "python"), "-c", code], capture_output=True,
                       text=True, env=env, cwd=str(tmp_path), timeout=300)
    assert p.returncode == 0, p.stderr
    where, shape, window, picture = p.stdout.split("\n")[:4]
    assert where.startswith(str(venv)) and shape == "(4, 4)"
    assert picture == "True"  # the colormap tables came along (simscope/colormaps)
    # simscope.show's window module comes along where it was built (SIMSCOPE_APP=ON).
    built = any(f.startswith("_gui") for f in os.listdir(os.path.join(build_python, "simscope")))
    assert window == str(built)
