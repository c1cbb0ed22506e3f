"""Shared helpers of the Python module's tests: the simscope executable (SIMSCOPE_EXE, set by
ctest) for the CLI comparisons."""

import os
import subprocess

import numpy as np
import pytest


@pytest.fixture(scope="session")
def exe():
    path = os.environ.get("SIMSCOPE_EXE", "")
    if not path or not os.path.exists(path):
        pytest.skip("SIMSCOPE_EXE (the simscope executable) not given: run through ctest")
    return path


class Cli:
    """Runs `simscope --headless --no-image` and reads its .npy outputs back."""

    def __init__(self, exe, tmp_path):
        self.exe = exe
        self.tmp = tmp_path

    def run(self, workload, sets, name="cli"):
        out = self.tmp / name
        args = [self.exe, "--headless", "--no-image", "--quiet", "--backend", "cpu",
                "--workload", workload, "--out-dir", str(out)]
        for k, v in sets.items():
            args += ["--set", "%s=%s" % (k, v)]
        p = subprocess.run(args, capture_output=True, text=True, timeout=300)
        if p.returncode != 0:
            return None, p.stderr.strip()
        outs = {f[:-4]: np.load(out / f) for f in os.listdir(out) if f.endswith(".npy")}
        return outs, p.stderr.strip()

    def error(self, workload, sets):
        """The CLI's one-line error message for `sets`, without the 'simscope: error: ' prefix."""
        outs, err = self.run(workload, sets, name="err")
        assert outs is None, "the CLI accepted %r" % (sets,)
        line = [l for l in err.splitlines() if l.startswith("simscope: error: ")][-1]
        return line[len("simscope: error: "):]


@pytest.fixture
def cli(exe, tmp_path):
    return Cli(exe, tmp_path)


def same_array(a, b):
    """Same dtype, shape and values (NaN equal to NaN), bit for bit."""
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype, (a.dtype, b.dtype)
    assert a.shape == b.shape, (a.shape, b.shape)
    assert np.array_equal(a, b, equal_nan=a.dtype.kind == "f")


# SIMSCOPE_REQUIRE_CUDA=1 (a machine with a GPU: ./simscope.sh test, tests/gpu/run.sh): a test
# skipped for want of CUDA fails instead, as the C++ tests do (tests/compute/test_cuda_skip.hpp).
_NO_CUDA = ("no usable CUDA", "needs a usable CUDA", "libcudart not found", "no CUDA")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    if rep.skipped and os.environ.get("SIMSCOPE_REQUIRE_CUDA") == "1":
        reason = rep.longrepr[-1] if isinstance(rep.longrepr, tuple) else str(rep.longrepr)
        if any(s in reason for s in _NO_CUDA):
            rep.outcome = "failed"
            rep.longrepr = f"SIMSCOPE_REQUIRE_CUDA=1, but this CUDA test skipped: {reason}"
