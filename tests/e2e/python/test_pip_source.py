"""`pip install --no-build-isolation .` from the clone (pyproject.toml, the build backend
app/python/simscope_build.py), offline, into fresh virtual environments; the installed package
imports from the venv and computes.
- With system site packages (Debian's numpy): the backend takes the module of this build folder
  (SIMSCOPE_BUILD_DIR: configured for /usr/bin/python3, the venv's interpreter), nothing compiled.
- Without system site packages: a venv whose own site-packages has numpy (Debian's numpy linked
  in, which is what an environment with its own numpy looks like to pip) and no setuptools or
  wheel; the backend configures and builds the module for the venv's interpreter itself (the
  README's path; Debian's pybind11-dev, as the venv has no pybind11 module), CPU only, in
  BUILD/pip-venv through ccache. Before numpy is there, and under pip's build isolation, pip
  fails at once with the backend's one line."""

import os
import pathlib
import re
import subprocess
import sys
import sysconfig

import pytest

import simscope

SRC = pathlib.Path(__file__).resolve().parents[3]


def _pip_env(**extra):
    """The environment of an offline pip: no PYTHONPATH, no pip configuration of this machine
    (its find-links or index), nothing but the venv."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH" and not k.startswith("PIP_")}
    env.update(PIP_CONFIG_FILE=os.devnull, PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
    env.update(extra)
    return env


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
    assert "simscope/colormaps/viridis.csv" in names  # Result._repr_png_'s tables
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


def _build_folder():
    build = pathlib.Path(simscope.__file__).resolve().parents[2]
    if not (build / "CMakeCache.txt").exists():
        pytest.skip("simscope is not imported from a build folder's python/")
    return build


def test_pip_install_into_a_venv_without_system_site_packages(tmp_path):
    build = _build_folder()
    venv = tmp_path / "venv"
    # Debian's python3 -m venv bundles pip and setuptools (ensurepip, python3-venv's wheels).
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    py, pip = str(venv / "bin" / "python"), str(venv / "bin" / "pip")
    site = subprocess.run([py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    assert site.startswith(str(venv)), site
    # The backend needs neither setuptools nor wheel: take them away.
    env = _pip_env()
    subprocess.run([pip, "uninstall", "-y", "-q", "setuptools"], check=True, env=env, timeout=300)
    probe = ("import importlib.util as u; "
             "print([m for m in ('numpy', 'setuptools', 'wheel', 'pybind11') if u.find_spec(m)])")
    seen = subprocess.run([py, "-c", probe], capture_output=True, text=True, env=env,
                          cwd=str(tmp_path), check=True).stdout.strip()
    assert seen == "[]", f"a venv without system site packages sees {seen}"

    # No numpy: pip stops before configuring anything, with the backend's one line.
    pip_build = build / "pip-venv"
    install = [pip, "install", "--no-build-isolation", "--no-index", "--no-cache-dir", str(SRC)]
    p = subprocess.run(install, capture_output=True, text=True, timeout=300,
                       env=_pip_env(SIMSCOPE_PIP_BUILD_DIR=str(tmp_path / "not-configured")))
    out = p.stdout + p.stderr
    assert p.returncode != 0, out
    lines = [ln.strip() for ln in out.splitlines() if "simscope_build:" in ln]
    # (pip runs the backend with the venv's bin/python3, which the line names.)
    assert len(lines) == 1 and re.fullmatch(
        rf"simscope_build: numpy is not importable in this environment \({re.escape(py)}3?\): "
        r"install numpy first \(offline: a venv made with --system-site-packages sees "
        r"Debian's python3-numpy, or pip install --no-index --find-links DIR numpy with a numpy "
        r"wheel in DIR\), then pip install --no-build-isolation \.", lines[0]), out
    assert "Traceback" not in out and "CMake" not in out, out
    assert not (tmp_path / "not-configured").exists()

    # The venv's own numpy: Debian's numpy package and its metadata in the venv's site-packages.
    dist = pathlib.Path("/usr/lib/python3/dist-packages")
    numpy_meta = sorted(dist.glob("numpy-*.egg-info")) + sorted(dist.glob("numpy-*.dist-info"))
    assert (dist / "numpy").is_dir() and numpy_meta, "Debian's python3-numpy is not installed"
    for path in [dist / "numpy", numpy_meta[0]]:
        os.symlink(path, pathlib.Path(site) / path.name)

    # pip's build isolation hides the venv's numpy: one line saying to use --no-build-isolation.
    p = subprocess.run([a for a in install if a != "--no-build-isolation"], capture_output=True,
                       text=True, timeout=300, env=_pip_env())
    out = p.stdout + p.stderr
    assert p.returncode != 0, out
    lines = [ln.strip() for ln in out.splitlines() if "simscope_build:" in ln]
    assert len(lines) == 1 and "--no-build-isolation" in lines[0], out

    # The install: the backend configures BUILD/pip-venv for the venv's interpreter (CPU only;
    # kept, and at the depth of BUILD/deb-cpu, whose objects ccache gives back) and builds.
    env = _pip_env(SIMSCOPE_PIP_BUILD_DIR=str(pip_build), CMAKE_BUILD_PARALLEL_LEVEL="2",
                   SIMSCOPE_CMAKE_ARGS="-DSIMSCOPE_CUDA=OFF -DSIMSCOPE_NATIVE=OFF",
                   CCACHE_BASEDIR=str(SRC), CCACHE_NOHASHDIR="1")
    p = subprocess.run(install, capture_output=True, text=True, env=env, timeout=560)
    assert p.returncode == 0, p.stdout[-4000:] + p.stderr[-4000:]
    tag = f"cp{sys.version_info.major}{sys.version_info.minor}"
    assert f"-{tag}-{tag}-linux_" in p.stdout and "Successfully installed simscope-" in p.stdout
    cache = (pip_build / "CMakeCache.txt").read_text()
    assert re.search(rf"^SIMSCOPE_PYTHON_EXECUTABLE:\w+={re.escape(py)}3?$", cache, re.M), \
        "the module was not configured for the venv's interpreter"
    assert re.search(r"^pybind11_DIR:PATH=/usr/lib/cmake/pybind11$", cache, re.M), \
        "not Debian's pybind11-dev"
    code = ("import numpy as np, simscope, importlib.util as u\n"
            "r = simscope.lsq(np.array([1.0, 2.0, 3.0]).reshape(3, 1, 1),"
            " np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]), backend='cpu')\n"
            "print(simscope.__file__); print(np.__file__); print(u.find_spec('setuptools'))\n"
            "print(' '.join('%.12g' % v for v in np.asarray(r.solution).ravel()))")
    p = subprocess.run([py, "-c", code], capture_output=True, text=True, env=_pip_env(),
                       cwd=str(tmp_path), timeout=300)
    assert p.returncode == 0, p.stderr
    where, np_where, setuptools, x = p.stdout.split("\n")[:4]
    assert where.startswith(site) and np_where.startswith(site), (where, np_where)
    assert setuptools == "None"
    assert [float(v) for v in x.split()] == pytest.approx([1.0, 2.0], abs=1e-9), x
