"""simscope.show (issue 31): the simscope window opened from Python, on a result and on a sources
array, under Xvfb (tests/e2e/xvfb_exec.py), closed by its screenshot option; the one-line
RuntimeError without a display (none named, or one named that is not there) and without the
window's module (a build with -DSIMSCOPE_APP=OFF); the refusals that need no window."""
import importlib.util
import json
import os
import random
import re
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
    r._inputs = None  # as a result of CUDA arrays, which keeps none
    with pytest.raises(ValueError, match=r"computed on arrays \(sources\) that it does not "
                       r"keep \(CUDA arrays\): pass them as well, e.g. "
                       r"simscope.show\(result, sources\)"):
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


@needs_window
def test_show_of_an_lsq_result_greys_the_generator_only(tmp_path):
    """show(an lsq result on arrays): the window solves the user's cube and design (its colour
    range is the call's solution's, coolwarm over +-the 99.5th percentile of |x_0|), so the
    generator's synth.* settings are drawn disabled with the reason, and nothing that the run
    uses is (method, lambda, precision, data.mask, the files)."""
    if shutil.which("Xvfb") is None:
        pytest.fail("Xvfb not found: install xvfb")
    p = python("""
        import json
        import numpy as np
        import simscope
        rng = np.random.default_rng(5)
        a = rng.standard_normal((30, 6))
        cube = np.einsum("mn,nhw->mhw", a, rng.standard_normal((6, 12, 20)))
        cube[rng.random(cube.shape) < 0.2] = np.nan
        r = simscope.lsq(cube, a, backend="cpu")
        assert simscope.show(r, screenshot="lsq.png") is None
        x0 = r.solution[0].astype(np.float64)
        json.dump(float(np.percentile(np.abs(x0[np.isfinite(x0)]), 99.5)),
                  open("m.json", "w"))
        """, tmp_path, {}, xvfb=True)
    assert p.returncode == 0, p.stderr[-2000:]
    _, text = read_png(tmp_path / "lsq.png")
    m = json.load(open(tmp_path / "m.json"))
    view = json.loads(text["simscope.view"])
    assert view["output"] == "solution" and view["colormap"] == "coolwarm"
    assert view["range"] == pytest.approx([-m, m], rel=1e-5)
    reasons = dict(line.split(": ", 1) for line in text.get("simscope.disabled", "").splitlines())
    synth = [n for n in reasons if n.startswith("synth.")]
    assert sorted(synth) == sorted(["synth.height", "synth.width", "synth.observations",
                                    "synth.unknowns", "synth.nan_fraction", "synth.noise",
                                    "synth.seed", "synth.design"]), reasons
    for n in synth:
        assert reasons[n] == ("not used: data.file is set (they make the synthetic cube, which "
                              "the given cube replaces)"), (n, reasons[n])
    used = {"method", "lambda", "precision", "data.mask", "data.file", "design.file",
            "view.component"}
    assert not used & set(reasons), reasons


@needs_window
def test_a_result_on_networks_shows_them(monkeypatch, tmp_path):
    """A study on networks= keeps them: show(result) goes on to the window with them (here: no
    display), as show(result, G) and show(result, network_file=...) do."""
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    g = np.zeros((3, 8, 8))
    i = np.arange(8)
    g[:, i, (i + 1) % 8] = g[:, (i + 1) % 8, i] = 1
    r = simscope.oscillators.study(networks=g, integrator_steps=20, integrator_transient=5,
                                   backend="cpu")
    for args, kw in (((r,), {}), ((r, g), {})):
        with pytest.raises(RuntimeError, match=r"^simscope.show: cannot open a window"):
            simscope.show(*args, **kw)
    np.save(tmp_path / "nets.npy", g)
    with pytest.raises(RuntimeError, match=r"^simscope.show: cannot open a window"):
        simscope.show(r, network_file=str(tmp_path / "nets.npy"), network_topology="file")


def planned(*data, folder, **kwargs):
    """show()'s plan: (workload, {name: value}, the .npy files it wrote, by parameter)."""
    workload, sets, _ = simscope._show.plan(*data, folder=str(folder), **kwargs)
    d = dict(x.split("=", 1) for x in sets)  # later entries win, as on the command line
    files = {n: np.load(v) for n, v in d.items() if n.endswith(".file") and v.endswith(".npy")}
    return workload, d, files


@needs_window
def test_show_gives_the_window_what_the_user_passed(tmp_path):
    """Issue 42, 1: what reaches the window's run is the user's: the sources of a Sources and of
    its results, a result's charges, charges=, a (P, 1) column, the user's (K, N, N) networks,
    an lsq result's cube and design (counts and sums against the arrays given)."""
    rng = np.random.default_rng(3)
    pos, q = rng.uniform(-1, 1, (300, 3)), rng.uniform(0.5, 1.5, 300)
    q32 = q.astype(np.float32).astype(np.float64)
    src = simscope.Sources(pos, charges=q)
    for data, kw, charges in (((src.field(plane="xy", grid_size=16),), {}, q32),  # README's
                              ((src,), {}, q32),
                              ((simscope.field(pos, charges=q, grid_size=16), pos), {}, q32),
                              ((simscope.field(pos, charges=q, grid_size=16), pos),
                               {"charges": 2 * q}, 2 * q32),
                              ((simscope.field(pos, charges=q[:, None], grid_size=16),), {}, q32),
                              ((pos,), {"charges": q[:, None]}, q32)):
        workload, d, files = planned(*data, folder=tmp_path, **kw)
        s = files["sources.file"]
        assert workload == "field" and s.shape == (300, 4), (kw, s.shape)
        assert np.allclose(s[:, :3], pos, atol=1e-6) and np.isclose(s[:, 3].sum(), charges.sum())
    # README's promise: a result that keeps no arrays (CUDA ones) is a ValueError, not the
    # window's default sources.
    r = simscope.field(pos, charges=q, grid_size=16)
    r._inputs = None
    with pytest.raises(ValueError, match=r"computed on arrays \(sources\)"):
        planned(r, folder=tmp_path)
    g = np.zeros((5, 12, 12))
    i = np.arange(12)
    g[:, i, (i + 1) % 12] = g[:, (i + 1) % 12, i] = 1
    g[2, 0, 6] = g[2, 6, 0] = 0.5  # one network of its own, weighted
    study = simscope.oscillators.study(networks=g, integrator_steps=10, integrator_transient=0)
    for data in ((study,), (study, g)):
        workload, d, files = planned(*data, folder=tmp_path)
        assert (d["network.topology"], d["network.nodes"], d["ensemble.size"]) == ("file", "12",
                                                                                   "5")
        assert np.array_equal(files["network.file"], g)
    a = rng.standard_normal((10, 3))
    cube = np.einsum("mn,nhw->mhw", a, rng.standard_normal((3, 4, 5)))
    workload, d, files = planned(simscope.lsq(cube, a), folder=tmp_path)
    assert workload == "lsq" and np.array_equal(files["data.file"], cube)
    assert np.array_equal(files["design.file"], a)
    # A 1-D design is one column (simscope.lsq): the window gets it as (M, 1).
    workload, d, files = planned(simscope.lsq(cube, a[:, 0]), folder=tmp_path)
    assert np.array_equal(files["design.file"], a[:, :1])
    with pytest.raises(ValueError, match=r"charges: expected \(P,\) beside"):
        planned(pos, charges=q[:10], folder=tmp_path)


@needs_window
def test_doc_show_block_and_the_users_sources_under_xvfb(tmp_path):
    """docs/python.md's show block runs as printed (each window closed a frame after its first
    result), and the window on src.field(...) computes on the user's sources: its colour range
    (view.range minmax; the default percentile trims the ends) is the result's least and greatest
    |E|; show(study, G) runs the user's networks."""
    if shutil.which("Xvfb") is None:
        pytest.fail("Xvfb not found: install xvfb")
    doc = open(os.path.join(E2E, "..", "..", "docs", "python.md"), encoding="utf-8").read()
    block = [b for b in re.findall(r"^```python\n(.*?)^```", doc, flags=re.S | re.M)
             if "simscope.show(r)" in b][0]
    (tmp_path / "block.py").write_text(block)
    p = python("""
        import json
        import numpy as np
        import simscope
        show = simscope.show
        simscope.show = lambda *a, **k: show(*a, **dict({"frames": 1}, **k))  # closes itself
        exec(compile(open("block.py").read(), "docs/python.md show block", "exec"), {})
        simscope.show = show
        rng = np.random.default_rng(5)
        pos, q = rng.uniform(-1, 1, (500, 3)), rng.uniform(0.5, 1.5, 500)
        src = simscope.Sources(pos, charges=q)
        r = src.field(plane="xy", grid_size=64, backend="cpu")
        show(r, screenshot="sources.png", params={"view.range": "minmax"})
        g = np.zeros((3, 10, 10))
        i = np.arange(10)
        g[:, i, (i + 1) % 10] = g[:, (i + 1) % 10, i] = 1
        s = simscope.oscillators.study(networks=g, integrator_steps=50, integrator_transient=0,
                                       backend="cpu")
        show(s, g, screenshot="study.png")
        json.dump([float(r.magnitude.min()), float(r.magnitude.max())], open("r.json", "w"))
        """, tmp_path, {}, xvfb=True)
    assert p.returncode == 0, p.stderr[-3000:]
    assert os.path.exists(tmp_path / "field.png")  # the block's last call saved its window
    _, text = read_png(tmp_path / "sources.png")
    view = json.loads(text["simscope.view"])
    assert view["range"] == pytest.approx(json.load(open(tmp_path / "r.json")), rel=1e-5)
    _, text = read_png(tmp_path / "study.png")
    params = {k.strip(): v.strip() for k, v in (line.split("=", 1)
                                                for line in text["simscope.params"].splitlines()
                                                if "=" in line)}
    assert (params["network.topology"], params["network.nodes"], params["ensemble.size"]) == (
        "file", "10", "3"), params
