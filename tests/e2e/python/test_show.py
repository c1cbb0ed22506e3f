"""simscope.show (issue 31): the simscope window opened from Python, on a result and on a sources
array, under Xvfb (tests/e2e/xvfb_exec.py), closed by its screenshot option; the one-line
RuntimeError without a display (none named, or one named that is not there) and without the
window's module (a build with -DSIMSCOPE_APP=OFF); the refusals that need no window."""
import importlib.util
import json
import os
import random
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import simscope

E2E = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, E2E)
from simscope_test_util import read_png  # noqa: E402

HAVE_WINDOW = importlib.util.find_spec("simscope._gui") is not None
needs_window = pytest.mark.skipif(not HAVE_WINDOW, reason="simscope built without the window "
                                  "(SIMSCOPE_APP=OFF): no simscope._gui")
NO_DISPLAY = "(no display; under SSH use X forwarding, or xvfb-run)"


def python(script, tmp_path, env_changes, timeout=300, xvfb=False):
    """Runs `script` in a fresh interpreter (PYTHONPATH as ours), the window's settings under
    tmp_path, optionally on a virtual X screen of its own (1280x800)."""
    path = tmp_path / "script.py"
    path.write_text(textwrap.dedent(script))
    env = dict(os.environ, HOME=str(tmp_path), XDG_CONFIG_HOME=str(tmp_path), **env_changes)
    for k, v in env_changes.items():
        if v is None:
            env.pop(k)
    cmd = [sys.executable, str(path)]
    if xvfb:
        cmd = [sys.executable, os.path.join(E2E, "xvfb_exec.py"), "1280x800", *cmd]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env,
                          cwd=tmp_path)


@needs_window
def test_show_under_xvfb(tmp_path):
    if shutil.which("Xvfb") is None:
        pytest.fail("Xvfb not found: install xvfb")
    p = python("""
        import json, os, sys
        import numpy as np
        import simscope
        out = {}
        r = simscope.field(grid_size=64, backend="cpu")
        assert simscope.show(r, screenshot="result.png") is None
        def drawn(m):  # view.range=percentile on the log scale: of the values > 0 (numpy's rule)
            m = m.astype(np.float64)
            return [float(x) for x in np.percentile(m[np.isfinite(m) & (m > 0)], [0.5, 99.5])]
        out["result"] = drawn(r["magnitude"])
        rng = np.random.default_rng(7)
        src = np.column_stack([rng.uniform(-1, 1, (20, 3)), rng.choice([-1.0, 1.0], 20)])
        assert simscope.show(src, screenshot="sources.png", grid_size=64, backend="cpu") is None
        a = simscope.field(src, grid_size=64, backend="cpu")["magnitude"]
        out["sources"] = drawn(a)
        json.dump(out, open("returned.json", "w"))
        """, tmp_path, {}, xvfb=True)
    assert p.returncode == 0, p.stderr[-2000:]
    returned = json.load(open(tmp_path / "returned.json"))  # both calls returned
    for name, workload_params in (("result", "grid.size=64"), ("sources", "sources.file=")):
        img, text = read_png(tmp_path / (name + ".png"))
        h, w, _ = img.shape
        assert (w, h) == (1280, 800), (name, w, h)  # the window, at its default size
        rgb = img[:, :, :3].astype(float)
        assert rgb.std() > 10, name  # not blank
        assert len(np.unique(img[:, :, :3].reshape(-1, 3), axis=0)) > 100, name
        centre = img[h // 4: h // 2, w // 2 - 80: w // 2 + 80, :3].reshape(-1, 3)
        assert len(np.unique(centre, axis=0)) > 30, name  # the plane, in colours
        assert text["simscope.workload"] == "field"
        assert workload_params in text["simscope.params"], (name, text["simscope.params"])
        # The panel shows what the run uses: show(sources) runs the array's 20 sources, so the
        # generator's settings are drawn disabled with the reason (not "gaussian / 20000").
        disabled = text.get("simscope.disabled", "")
        generated = "sources.count: not used: sources.file is set" in disabled
        assert generated == (name == "sources"), (name, disabled)
        # The window's own run shows the same values as the call: its default colour range is
        # the magnitude's 0.5th and 99.5th percentile.
        view = json.loads(text["simscope.view"])
        assert view["output"] == "magnitude"
        assert view["range"] == pytest.approx(returned[name], rel=1e-5), name
    params = text["simscope.params"]
    npy = [line for line in params.splitlines() if "sources.file" in line][0].split("=", 1)[1]
    assert npy.strip().endswith("array1.npy")
    assert not os.path.exists(os.path.dirname(npy.strip())), "the temporary file is removed"


@needs_window
def test_ctrl_c_closes_the_window(tmp_path):
    # The window's own Ctrl+C handler closes it; show() then raises KeyboardInterrupt, and
    # Python's handler is back (a later Ctrl+C interrupts Python as before).
    (tmp_path / "child.py").write_text(textwrap.dedent("""
        import os, signal, sys
        import simscope
        signal.signal(signal.SIGINT, signal.default_int_handler)
        try:
            simscope.show(grid_size=32, backend="cpu")
            print("returned")
        except KeyboardInterrupt:
            print("KeyboardInterrupt from show")
        print("handler restored:", signal.getsignal(signal.SIGINT) is signal.default_int_handler)
        """))
    p = python("""
        import signal, subprocess, sys, time
        log = open("child.log", "w")
        child = subprocess.Popen([sys.executable, "child.py"], stdout=subprocess.PIPE,
                                 stderr=log, text=True)
        while " result shown (computed in " not in open("child.log").read():  # the window's line
            assert child.poll() is None, open("child.log").read()
            time.sleep(0.1)
        child.send_signal(signal.SIGINT)
        out, _ = child.communicate(timeout=120)
        print(out, end="")
        print("exit", child.returncode)
        """, tmp_path, {}, xvfb=True)
    assert p.returncode == 0, p.stderr[-2000:]
    assert p.stdout.splitlines() == ["KeyboardInterrupt from show", "handler restored: True",
                                     "exit 0"], (p.stdout, (tmp_path / "child.log").read_text())
    assert "simscope: SIGINT: closing the window" in (tmp_path / "child.log").read_text()


def test_no_display_one_line(tmp_path):
    p = python("""
        import simscope
        r = simscope.field(grid_size=16, backend="cpu")
        try:
            simscope.show(r)
        except RuntimeError as e:
            print(e)
        """, tmp_path, {"DISPLAY": None, "WAYLAND_DISPLAY": None})
    assert p.returncode == 0, p.stderr[-2000:]
    lines = p.stdout.splitlines()
    assert len(lines) == 1, p.stdout
    if HAVE_WINDOW:
        assert lines[0] == ("simscope.show: cannot open a window: neither DISPLAY nor "
                            "WAYLAND_DISPLAY is set " + NO_DISPLAY)
    else:
        assert "built without the window (SIMSCOPE_APP=OFF" in lines[0]


@needs_window
def test_display_named_but_absent(tmp_path):
    # A number xvfb_exec.py never draws (1000-59999), with no server's socket.
    number = next(n for n in (random.randrange(60000, 65000) for _ in range(100))
                  if not os.path.exists("/tmp/.X11-unix/X%d" % n))
    p = python("""
        import numpy as np
        import simscope
        try:
            simscope.show(np.ones((3, 4)))
        except RuntimeError as e:
            print(e)
        """, tmp_path, {"DISPLAY": ":%d" % number, "WAYLAND_DISPLAY": None})
    assert p.returncode == 0, p.stderr[-2000:]  # an exception, not a crash
    assert p.stdout.splitlines() == [
        "simscope.show: cannot open a window: X11: Failed to open display :%d %s"
        % (number, NO_DISPLAY)], p.stdout


def test_without_the_window_module(monkeypatch):
    find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "simscope._gui" else find_spec(name, *a))
    r = simscope.field(grid_size=16, backend="cpu")
    with pytest.raises(RuntimeError, match=r"^simscope.show: this simscope was built without "
                       r"the window \(SIMSCOPE_APP=OFF"):
        simscope.show(r)


@needs_window
def test_refusals_before_any_window(monkeypatch):
    monkeypatch.delenv("DISPLAY", raising=False)  # none of these gets as far as the display
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    with pytest.raises(ValueError, match=r"^simscope.show: array 1: array1.npy has shape \(5,\): "
                       r"field takes sources"):
        simscope.show(np.zeros(5))
    r = simscope.field(np.ones((3, 4)), grid_size=8, backend="cpu")
    with pytest.raises(ValueError, match=r"computed on arrays \(sources\), which a result does "
                       r"not keep: pass them as well, e.g. simscope.show\(result, sources\)"):
        simscope.show(r)
    with pytest.raises(ValueError, match="the result is of workload 'field'"):
        simscope.show(r, workload="lsq")
    with pytest.raises(ValueError, match="unknown parameter 'grid_sz' for workload 'field'"):
        simscope.show(grid_sz=3)
    with pytest.raises(ValueError, match="expected a simscope result or an array"):
        simscope.show("sources.npy")
    # Values: the command line's checks, in the Python spelling, the view's parameters included.
    with pytest.raises(ValueError, match=r"^parameter lam: expected a finite number in \[0, "):
        simscope.show(workload="lsq", lam=-1)
    with pytest.raises(ValueError, match=r"^parameter view.colormap: expected one of viridis"):
        simscope.show(params={"view.colormap": "nope"})
    with pytest.raises(ValueError, match=r"backend: expected \"auto\", \"cpu\" or \"cuda\""):
        simscope.show(backend="gpu")


def test_a_result_on_networks_shows_from_their_file(monkeypatch, tmp_path):
    """A study on networks= is refused without its networks, with the way to give them; given
    as the file the message names, show() goes on to the window (here: no display)."""
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    g = np.zeros((3, 8, 8))
    i = np.arange(8)
    g[:, i, (i + 1) % 8] = g[:, (i + 1) % 8, i] = 1
    r = simscope.oscillators.study(networks=g, integrator_steps=20, integrator_transient=5,
                                   backend="cpu")
    with pytest.raises(ValueError, match=r"for networks: numpy.save\(\"nets.npy\", G\), then "
                       r"simscope.show\(result, network_file=\"nets.npy\", "
                       r"network_topology=\"file\"\)"):
        simscope.show(r)
    np.save(tmp_path / "nets.npy", g)
    with pytest.raises(RuntimeError, match=r"^simscope.show: cannot open a window"):
        simscope.show(r, network_file=str(tmp_path / "nets.npy"), network_topology="file")
