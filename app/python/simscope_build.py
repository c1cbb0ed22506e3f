"""The PEP 517 build backend of pyproject.toml: `pip install --no-build-isolation .` from a clone.

It needs nothing but the standard library (no setuptools, wheel or scikit-build-core, which
Debian 12 does not package), CMake and a compiler. build_wheel configures a build folder of the
Python module alone for the interpreter that runs pip (-DSIMSCOPE_APP=OFF -DSIMSCOPE_TESTS=OFF
-DSIMSCOPE_PYTHON=ON -DSIMSCOPE_PYTHON_EXECUTABLE=<it>; the pybind11 of that interpreter's
environment when it has one, else Debian's pybind11-dev), builds the target simscope_python,
installs the CMake component `python` into a staging folder (app/python/CMakeLists.txt) and zips
that package as a wheel for this interpreter. Nothing is downloaded.

prepare_metadata_for_build_wheel and build_wheel first check that this environment's numpy is
importable (the configure reads its version, the wheel requires it) and that pip does not run them
in an isolated build environment (which hides the environment's numpy and pybind11); otherwise
pip stops with one line saying what to do, before anything is configured or resolved. Checked
without system site packages, setuptools or wheel: tests/e2e/python/test_pip_source.py.

Environment:
  SIMSCOPE_PIP_BUILD_DIR  the build folder (default build/pip-<interpreter tag>, e.g.
                          build/pip-cpython-311, kept, so a second install rebuilds little)
  SIMSCOPE_BUILD_DIR      an already configured build folder to take the module from instead
                          (it must have been configured for this interpreter; tests use it)
  SIMSCOPE_CMAKE_ARGS     extra configure flags, e.g. "-DSIMSCOPE_CUDA=OFF"
  CMAKE_BUILD_PARALLEL_LEVEL  compile jobs (default: the CPU count)
"""

import base64
import hashlib
import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import zipfile

_NAME = "simscope"
_SRC = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _version():
    with open(os.path.join(_SRC, "CMakeLists.txt"), encoding="utf-8") as f:
        m = re.search(r"project\(simscope VERSION ([0-9.]+)", f.read())
    if not m:
        raise RuntimeError("simscope_build: no project(simscope VERSION ...) in CMakeLists.txt")
    return m.group(1)


def _tag():
    """The wheel's tag for this interpreter: cp311-cp311-linux_x86_64."""
    impl = {"cpython": "cp", "pypy": "pp"}.get(sys.implementation.name, sys.implementation.name)
    py = f"{impl}{sys.version_info.major}{sys.version_info.minor}"
    abi = py + ("t" if sysconfig.get_config_var("Py_GIL_DISABLED") else "")
    plat = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    return f"{py}-{abi}-{plat}"


def _metadata():
    return (
        "Metadata-Version: 2.1\n"
        f"Name: {_NAME}\n"
        f"Version: {_version()}\n"
        "Summary: simscope's workloads (field, lsq, oscillators) from Python\n"
        "Requires-Python: >=3.11\n"
        "Requires-Dist: numpy\n"
    )


def _wheel_file():
    return ("Wheel-Version: 1.0\n"
            "Generator: simscope_build (app/python/simscope_build.py)\n"
            "Root-Is-Purelib: false\n"
            f"Tag: {_tag()}\n")


def _dist_info():
    return f"{_NAME}-{_version()}.dist-info"


def _run(cmd, **kw):
    print("simscope_build: " + " ".join(shlex.quote(c) for c in cmd), file=sys.stderr, flush=True)
    subprocess.run(cmd, check=True, **kw)


def _configure(build):
    args = ["cmake", "-S", _SRC, "-B", build, "-DCMAKE_BUILD_TYPE=Release",
            "-DSIMSCOPE_APP=OFF", "-DSIMSCOPE_TESTS=OFF", "-DSIMSCOPE_PYTHON=ON",
            f"-DSIMSCOPE_PYTHON_EXECUTABLE={sys.executable}"]
    if not os.path.exists(os.path.join(build, "CMakeCache.txt")) and shutil.which("ninja"):
        args += ["-G", "Ninja"]
    if shutil.which("ccache"):
        args += ["-DCMAKE_C_COMPILER_LAUNCHER=ccache", "-DCMAKE_CXX_COMPILER_LAUNCHER=ccache",
                 "-DCMAKE_CUDA_COMPILER_LAUNCHER=ccache"]
    try:  # the environment's own pybind11 (e.g. >= 2.12 for numpy 2) before Debian's
        import pybind11  # noqa: PLC0415
        args.append(f"-Dpybind11_DIR={pybind11.get_cmake_dir()}")
    except ImportError:
        pass
    args += shlex.split(os.environ.get("SIMSCOPE_CMAKE_ARGS", ""))
    env = dict(os.environ)
    env.setdefault("CCACHE_BASEDIR", _SRC)
    env.setdefault("CCACHE_NOHASHDIR", "1")
    _run(args, env=env)
    return env


def _build_package(staging):
    """Builds the module and installs its CMake component into staging; returns the folder that
    holds the simscope package."""
    given = os.environ.get("SIMSCOPE_BUILD_DIR")
    if given:
        build, env = os.path.abspath(given), dict(os.environ)
    else:
        tag = sys.implementation.cache_tag or "python"
        build = os.path.abspath(os.environ.get("SIMSCOPE_PIP_BUILD_DIR")
                                or os.path.join(_SRC, "build", f"pip-{tag}"))
        env = _configure(build)
    jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(os.cpu_count() or 1)
    _run(["cmake", "--build", build, "--target", "simscope_python", "-j", jobs], env=env)
    _run(["cmake", "--install", build, "--component", "python", "--prefix", staging], env=env)
    for root, dirs, files in os.walk(staging):
        if os.path.basename(root) == _NAME and "__init__.py" in files:
            if not any(f.startswith("_core") for f in files):
                raise RuntimeError(f"simscope_build: {root} has no _core extension")
            return os.path.dirname(root)
    raise RuntimeError(f"simscope_build: cmake --install put no simscope package under {staging}")


def _isolated():
    """True inside an isolated build environment (pip without --no-build-isolation): the
    interpreter's own site-packages folder is taken off sys.path there, so the environment's numpy
    and pybind11 are hidden from the build."""
    own = os.path.realpath(sysconfig.get_paths()["purelib"])
    return os.path.isdir(own) and own not in {os.path.realpath(p) for p in sys.path if p}


def _require_numpy():
    """One line, before anything is configured or resolved, when the build cannot see numpy: the
    configure reads its version (numpy 2 needs pybind11 >= 2.12, app/python/CMakeLists.txt) and
    the wheel requires it."""
    if _isolated():
        sys.exit("simscope_build: pip runs this build in an isolated environment, which hides this "
                 "environment's numpy and pybind11: run pip install --no-build-isolation . "
                 "(README, Python)")
    try:
        import numpy  # noqa: F401, PLC0415
    except ImportError:
        sys.exit(f"simscope_build: numpy is not importable in this environment ({sys.executable}): "
                 "install numpy first (offline: a venv made with --system-site-packages sees "
                 "Debian's python3-numpy, or pip install --no-index --find-links DIR numpy with a "
                 "numpy wheel in DIR), then pip install --no-build-isolation .")


# The hooks.

def get_requires_for_build_wheel(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    _require_numpy()
    d = os.path.join(metadata_directory, _dist_info())
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "METADATA"), "w", encoding="utf-8") as f:
        f.write(_metadata())
    with open(os.path.join(d, "WHEEL"), "w", encoding="utf-8") as f:
        f.write(_wheel_file())
    return _dist_info()


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    _require_numpy()
    name = f"{_NAME}-{_version()}-{_tag()}.whl"
    with tempfile.TemporaryDirectory(prefix="simscope-wheel-") as staging:
        site = _build_package(staging)
        entries = []  # (archive name, bytes)
        for root, dirs, files in os.walk(os.path.join(site, _NAME)):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for f in sorted(files):
                path = os.path.join(root, f)
                with open(path, "rb") as fh:
                    entries.append((os.path.relpath(path, site).replace(os.sep, "/"), fh.read()))
        di = _dist_info()
        entries.append((f"{di}/METADATA", _metadata().encode()))
        entries.append((f"{di}/WHEEL", _wheel_file().encode()))
        entries.append((f"{di}/top_level.txt", f"{_NAME}\n".encode()))
        record = []
        for arc, data in entries:
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
            record.append(f"{arc},sha256={digest.decode()},{len(data)}")
        record.append(f"{di}/RECORD,,")
        entries.append((f"{di}/RECORD", ("\n".join(record) + "\n").encode()))
        os.makedirs(wheel_directory, exist_ok=True)
        with zipfile.ZipFile(os.path.join(wheel_directory, name), "w",
                             zipfile.ZIP_DEFLATED) as z:
            for arc, data in entries:
                info = zipfile.ZipInfo(arc, date_time=(2020, 1, 1, 0, 0, 0))
                info.external_attr = (0o755 if arc.endswith(".so") else 0o644) << 16
                info.compress_type = zipfile.ZIP_DEFLATED
                z.writestr(info, data)
    return name
