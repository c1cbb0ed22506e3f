"""How calls run: the GIL is released (two threads overlap), Ctrl+C raises KeyboardInterrupt,
the progress callback, inputs read in place (no numpy copy) and outputs handed over without a
copy, DLPack objects (torch: test_torch.py)."""

import os
import signal
import subprocess
import sys
import threading
import time
import tracemalloc

import numpy as np
import pytest

import simscope

BIG = dict(sources_count=60000, grid_size=64, backend="cpu")  # ~2.5e8 pairs: a few tenths of s


def test_two_threads_overlap():
    """Each thread notes when its call was computing (its progress callbacks, which only come
    while the computation runs); with the GIL held during a call the other could not run."""
    spans = {}
    start = threading.Barrier(2)  # both calls start together: only a held GIL serialises them

    def work(name):
        times = []
        start.wait(timeout=60)
        r = simscope.field(progress=lambda f: times.append(time.perf_counter()), **BIG)
        spans[name] = (times[0], times[-1], r)

    threads = [threading.Thread(target=work, args=(n,)) for n in "ab"]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    (a0, a1, ra), (b0, b1, rb) = spans["a"], spans["b"]
    assert max(a0, b0) < min(a1, b1), "the two calls did not overlap: %r" % (spans,)
    np.testing.assert_array_equal(ra.magnitude, rb.magnitude)


def test_other_python_threads_run_during_a_call():
    ticks = []
    stop = threading.Event()

    def ticker():
        while not stop.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.002)

    t = threading.Thread(target=ticker)
    t.start()
    t0 = time.perf_counter()
    simscope.field(**BIG)
    t1 = time.perf_counter()
    stop.set()
    t.join()
    during = [x for x in ticks if t0 < x < t1]
    # 50 ms polls of the calling thread leave the GIL free in between: many ticks, not one.
    assert len(during) >= 5, (len(during), t1 - t0)


def test_progress_callback():
    seen = []
    simscope.field(progress=seen.append, **BIG)
    assert seen[-1] == 1.0
    assert all(0.0 <= f <= 1.0 for f in seen)
    assert all(a <= b for a, b in zip(seen, seen[1:]))


def test_study_progress_callback_with_info():
    """A callback that takes a second argument gets the rate and the ETA of the whole study
    (None until measured): eta_s = work (1 - fraction) / rate and total_s = work / rate, work =
    K N steps. f(fraction) keeps working. No timing assertion: the arithmetic of the values."""
    K, N, S = 2000, 100, 5000  # 1e9 osc-steps: over a second on any CPU
    seen = []
    simscope.oscillators.study(ensemble_size=K, network_nodes=N, integrator_steps=S,
                               backend="cpu", progress=lambda f, info: seen.append((f, info)))
    assert seen and seen[-1][0] == 1.0
    work = K * N * S
    measured = [(f, i) for f, i in seen if i is not None]
    assert seen[0][1] is None and measured
    for f, i in measured:
        assert set(i) == {"rate", "unit", "eta_s", "total_s"}
        assert i["unit"] == "osc-steps" and i["rate"] > 0
        assert i["total_s"] == pytest.approx(work / i["rate"], rel=1e-12)
        assert i["eta_s"] == pytest.approx(work * (1 - f) / i["rate"], rel=1e-9, abs=1e-12)
    fractions = []
    simscope.oscillators.study(ensemble_size=16, network_nodes=20, integrator_steps=200,
                               backend="cpu", progress=fractions.append)
    assert fractions[-1] == 1.0
    # A second parameter with a default is the caller's state, not a place for info.
    def kept(f, state=[]):
        state.append(f)
    simscope.oscillators.study(ensemble_size=16, network_nodes=20, integrator_steps=200,
                               backend="cpu", progress=kept)
    assert kept.__defaults__[0] and kept.__defaults__[0][-1] == 1.0


def test_progress_callback_about_every_50_ms():
    """README: "progress=f calls f(fraction) about every 50 ms". A call of about a second (direct
    sums, 6e9 pairs: the tree would end too soon on a fast machine): no two calls closer than the 50 ms wait (less 5 ms of clock slack), and on
    average at most 3x that apart over the whole call (a loaded machine wakes the waiting thread
    late; SIMSCOPE_TEST_SLOWDOWN stretches the bound further)."""
    slow = max(1.0, float(os.environ.get("SIMSCOPE_TEST_SLOWDOWN", "1") or 1))
    times = []
    t0 = time.perf_counter()
    simscope.field(progress=lambda f: times.append(time.perf_counter()), sources_count=1500000,
                   grid_size=64, backend="cpu", method="direct")
    t1 = time.perf_counter()
    polls = times[:-1]  # the last call (1.0) comes once the computation has ended
    gaps = np.diff([t0] + polls)
    assert len(polls) >= 5 and gaps.min() >= 0.045, (t1 - t0, gaps)
    assert (t1 - t0) / (len(polls) + 1) <= 0.15 * slow, (t1 - t0, len(polls))


def test_memory_error():
    """README: "Errors: ... MemoryError" when host memory cannot be allocated. 10^15 sources or
    targets (zero-stride numpy views: no memory of their own) need 16 PB as float32 columns (24 PB
    as float64 ones), beyond any machine's address space: MemoryError, naming the sources' size
    where simscope's own allocation fails (16 bytes each, in PiB); the module stays usable."""
    n = 10 ** 15
    sources = np.broadcast_to(np.array([1.0, 0.0, 0.0, 1.0]), (n, 4))
    size = "%.1f PiB" % (16 * n / 2.0 ** 50)
    with pytest.raises(MemoryError, match=r"cannot allocate memory for %d sources \(%s\)"
                       % (n, size)):
        simscope.field(sources, np.zeros((2, 3)) + 3, backend="cpu")
    with pytest.raises(MemoryError):
        simscope.field(np.ones((4, 4)), np.broadcast_to(np.array([5.0, 0.0, 0.0]), (n, 3)),
                       backend="cpu")
    assert simscope.field(np.ones((1, 4)), np.zeros((1, 3)) + 2, backend="cpu").potential[0] > 0


def test_callback_exception_cancels_and_propagates():
    calls = []

    def stop(f):
        calls.append(f)
        raise OverflowError("stop here")

    with pytest.raises(OverflowError, match="stop here"):
        simscope.field(progress=stop, **BIG)
    assert len(calls) == 1
    # the module is usable afterwards
    assert simscope.field(np.ones((1, 4)), np.zeros((1, 3)) + 2, backend="cpu").potential[0] > 0


CHILD = r"""
import sys, time, simscope
def started(f, seen=[]):
    if not seen:
        seen.append(1)
        print("started", flush=True)
try:
    simscope.field(sources_count=2000000, grid_size=512, backend="cpu", progress=started)
    print("finished")
except KeyboardInterrupt:
    print("interrupted", flush=True)
# still usable after the interrupt
r = simscope.field(sources_count=10, grid_size=4, backend="cpu")
print("after", r.magnitude.shape)
"""


def test_ctrl_c_raises_keyboard_interrupt():
    env = dict(os.environ)
    p = subprocess.Popen([sys.executable, "-c", CHILD], stdout=subprocess.PIPE, text=True,
                         env=env)
    try:
        assert p.stdout.readline().strip() == "started"
        p.send_signal(signal.SIGINT)
        out, _ = p.communicate(timeout=120)  # 2e6 x 512^2 pairs would take many minutes
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 0
    assert out.split("\n")[:2] == ["interrupted", "after (4, 4)"], out


def test_inputs_are_read_in_place():
    """No numpy temporary of the input (numpy reports its buffers to tracemalloc): a Fortran-
    order float64 (P, 4) array and a transposed cube are read through their strides."""
    src = np.asfortranarray(np.random.default_rng(0).uniform(-1, 1, size=(200000, 4)))
    tg = np.zeros((4, 3)) + 2.0
    cube = np.random.default_rng(1).normal(size=(40, 60, 30)).transpose(0, 2, 1)  # not C order
    a = np.random.default_rng(2).normal(size=(40, 3))
    simscope.field(src, tg, backend="cpu")  # warm up (imports, caches)
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        simscope.field(src, tg, backend="cpu")
        peak_field = tracemalloc.get_traced_memory()[1] - base
        tracemalloc.reset_peak()
        simscope.lsq(cube, a, backend="cpu")
        peak_lsq = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    assert peak_field < src.nbytes / 20, peak_field   # 6.4 MB input
    assert peak_lsq < cube.nbytes / 20, peak_lsq      # 0.58 MB input


def test_a_c_order_cube_is_not_copied():
    """A C-order native float32/float64 cube is solved in place (borrowed by the C++ cube);
    other layouts are copied once, into the cube's own storage."""
    b = np.random.default_rng(3).normal(size=(12, 7, 5))
    b[b > 1.2] = np.nan
    a = np.random.default_rng(4).normal(size=(12, 3))
    r = simscope.lsq(b, a, backend="cpu")
    assert r.stats["cube_copied_bytes"] == 0
    assert simscope.lsq(b.astype(np.float32), a, backend="cpu").stats["cube_copied_bytes"] == 0
    f = simscope.lsq(np.asfortranarray(b), a, backend="cpu")
    assert f.stats["cube_copied_bytes"] == b.nbytes
    np.testing.assert_array_equal(f.solution, r.solution)
    with pytest.raises(ValueError, match=r"^cube: entry \[2, 3, 4\] is inf"):
        c = b.copy()
        c[2, 3, 4] = -np.inf
        simscope.lsq(c, a)


def test_outputs_are_not_copied():
    r = simscope.field(np.ones((3, 4)), np.zeros((1000, 3)) + 2, backend="cpu")
    m = r.magnitude
    # The array wraps the C++ result's memory (a capsule owns it): no copy was made.
    assert not m.flags.owndata and type(m.base).__name__ == "PyCapsule"
    assert m.flags.c_contiguous and m.flags.writeable
    assert r["magnitude"] is m
    lr = simscope.lsq(np.ones((5, 2, 2)), np.ones((5, 1)), backend="cpu")
    for name in ("solution", "residual", "count", "status", "condition"):
        assert type(lr[name].base).__name__ == "PyCapsule", name


class HostTensor:
    """A minimal array library of its own: the DLPack protocol over a numpy array (what a
    PyTorch CPU tensor offers), and this module's from_dlpack makes one back."""

    def __init__(self, array, device=(1, 0)):
        self.array, self.device = array, device

    def __dlpack__(self, stream=None):
        return self.array.__dlpack__()

    def __dlpack_device__(self):
        return self.device


def from_dlpack(x):  # what simscope looks up in the caller's module, as torch.from_dlpack
    return HostTensor(np.from_dlpack(x))


def test_dlpack_inputs_and_results():
    src = np.random.default_rng(0).uniform(-1, 1, size=(300, 4))
    tg = np.random.default_rng(1).uniform(-1, 1, size=(20, 3))
    base = simscope.field(src, tg, backend="cpu")
    r = simscope.field(HostTensor(src), HostTensor(tg), backend="cpu")
    assert isinstance(r.magnitude, HostTensor)
    np.testing.assert_array_equal(r.magnitude.array, base.magnitude)
    # The result's memory is the C++ result's (no copy on the way back either).
    assert type(r.magnitude.array.base).__name__ in ("PyCapsule", "ndarray")
    assert not r.magnitude.array.flags.owndata
    # The input is read through a view of the caller's memory (no numpy copy).
    view = np.from_dlpack(HostTensor(src))
    assert view.ctypes.data == src.ctypes.data
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        before = tracemalloc.get_traced_memory()[0]
        big = np.zeros((100000, 4)) + 0.5
        mid = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        simscope.field(HostTensor(big), HostTensor(tg), backend="cpu")
        peak = tracemalloc.get_traced_memory()[1] - mid
    finally:
        tracemalloc.stop()
    assert mid - before >= big.nbytes and peak < big.nbytes / 20, peak
    b, a = np.ones((6, 3, 2)), np.ones((6, 1))
    lr = simscope.lsq(HostTensor(b), a, backend="cpu")
    assert isinstance(lr.solution, HostTensor) and lr.solution.array.shape == (1, 3, 2)
    st = simscope.oscillators.study(HostTensor(np.ones((8, 2))), network_nodes=8,
                                    ensemble_size=2, integrator_steps=20,
                                    integrator_transient=10, backend="cpu")
    assert isinstance(st.state, HostTensor)


def test_dlpack_device_arrays_without_cuda_or_of_other_devices_are_refused():
    # A device other than host memory and CUDA (ROCm: type 10): refused, naming the input.
    with pytest.raises(ValueError, match="^targets: DLPack device type 10 \\(id 0\\) is neither "
                                         "host memory nor CUDA"):
        simscope.field(np.ones((3, 4)), HostTensor(np.zeros((1, 3)), device=(10, 0)))
    status = simscope.cuda_status()
    if status["usable"]:
        return  # a CUDA array is taken then (test_torch.py, test_cuda_dlpack.py)
    # A CUDA array where CUDA is not usable: ValueError with the runtime's reason, no crash.
    with pytest.raises(ValueError) as e:
        simscope.field(HostTensor(np.ones((3, 4)), device=(2, 0)), np.zeros((1, 3)))
    assert str(e.value) == ("sources: a CUDA array (DLPack device type 2, id 0), but CUDA is not "
                            "usable here (%s); copy it to the host first (tensor.cpu(), "
                            "cupy.asnumpy(a))" % status["reason"])


def test_cuda_backend_matches_cpu():
    if not simscope.cuda_status()["usable"]:
        pytest.skip("no usable CUDA device: " + simscope.cuda_status()["reason"])
    src = np.random.default_rng(0).uniform(-1, 1, size=(3000, 4))
    tg = np.random.default_rng(1).uniform(-1, 1, size=(500, 3))
    rc = simscope.field(src, tg, backend="cpu", precision="fp64")
    rg = simscope.field(src, tg, backend="cuda", precision="fp64")
    assert rg.backend == "cuda"
    np.testing.assert_allclose(rg.magnitude, rc.magnitude, rtol=1e-6)
    b = np.random.default_rng(2).normal(size=(30, 20, 20))
    b[b > 1.5] = np.nan
    a = np.random.default_rng(3).normal(size=(30, 4))
    lc = simscope.lsq(b, a, backend="cpu")
    lg = simscope.lsq(b, a, backend="cuda")
    np.testing.assert_allclose(lg.solution, lc.solution, atol=1e-8)
    sc = simscope.oscillators.study(network_nodes=32, ensemble_size=8, integrator_steps=200,
                                    integrator_transient=100, backend="cpu")
    sg = simscope.oscillators.study(network_nodes=32, ensemble_size=8, integrator_steps=200,
                                    integrator_transient=100, backend="cuda")
    np.testing.assert_allclose(sg.state, sc.state, atol=1e-9)


def test_dlpack_capsules_are_consumed_once_and_host_ones_refused_by_the_cuda_reader():
    """_core.host_from_dlpack (the CUDA input path) on a host capsule: ValueError naming the
    input, the capsule consumed (renamed, its deleter called: no leak, no double free); a used
    capsule is refused."""
    a = np.arange(12.0).reshape(3, 4)
    cap = a.__dlpack__()
    with pytest.raises(ValueError, match="^sources: DLPack device type 1 is not a CUDA device"):
        simscope._core.host_from_dlpack(cap, "sources")
    with pytest.raises(ValueError, match="^sources: the DLPack capsule was already used"):
        simscope._core.host_from_dlpack(cap, "sources")
    del cap
    np.testing.assert_array_equal(a, np.arange(12.0).reshape(3, 4))  # the producer's array


def _dotted_names(workload):
    return [p["name"] for p in simscope.params(workload) if "." in p["name"]]


def test_messages_use_the_python_spelling(cli, exe, tmp_path):
    """A keyword's bad value or a missing companion is named as the caller typed it (init_file,
    init="file", design_file, network_file), not as --set spells it; the CLI keeps its words."""
    cases = [
        ("oscillators", {"init": "file"}, {"init": "file"},
         [("init.file", "init_file"), ("init=file", 'init="file"')]),
        ("lsq", {"data_file": tmp_path / "cube.npy"}, {"data.file": tmp_path / "cube.npy"},
         [("design.file", "design_file"), ("data.file", "data_file")]),
        ("oscillators", {"network_topology": "file", "network_file": tmp_path / "none.txt"},
         {"network.topology": "file", "network.file": tmp_path / "none.txt"},
         [("network.file", "network_file")]),
    ]
    np.save(tmp_path / "cube.npy", np.ones((4, 2, 2)))
    for workload, kwargs, sets, words in cases:
        expected = cli.error(workload, sets)
        for cli_word, py_word in words:
            assert cli_word in expected, (cli_word, expected)
            expected = expected.replace(cli_word, py_word)
        with pytest.raises(ValueError) as e:
            simscope.run(workload, **kwargs)
        assert str(e.value) == expected
        assert not [n for n in _dotted_names(workload) if n in str(e.value)], str(e.value)
    # Dotted names given in params: the CLI's own words.
    expected = cli.error("oscillators", {"init": "file"})
    with pytest.raises(ValueError) as e:
        simscope.oscillators.study(params={"init": "file"})
    assert str(e.value) == expected
    # A path holding a parameter's dotted name is left as it is.
    odd = str(tmp_path / "grid.size" / "sources.file.npy")
    with pytest.raises(ValueError) as e:
        simscope.field(sources_file=odd)
    assert str(e.value) == cli.error("field", {"sources.file": odd})
    assert str(e.value).startswith(odd + ": ")


def test_backend_messages_use_the_python_spelling(exe, tmp_path):
    """backend="gpu" / "cuda" where CUDA is not usable: the keyword's words, where the library
    underneath says --backend (the CLI's spelling)."""
    with pytest.raises(ValueError) as e:
        simscope.run("field", backend="gpu", grid_size=8, sources_count=5)
    assert str(e.value) == "backend: expected auto, cpu or cuda, got 'gpu'"
    if simscope.cuda_status()["usable"]:
        return
    p = subprocess.run([exe, "--headless", "--no-image", "--backend", "cuda", "--set",
                        "grid.size=8", "--set", "sources.count=5", "--out-dir", str(tmp_path / "out")],
                       capture_output=True, text=True)
    line = p.stderr.strip().splitlines()[-1]
    assert p.returncode == 1 and line.startswith("simscope: error: --backend cuda: no usable CUDA")
    with pytest.raises(RuntimeError) as e:
        simscope.run("field", backend="cuda", grid_size=8, sources_count=5)
    assert str(e.value) == line[len("simscope: error: "):].replace("--backend cuda",
                                                                  'backend="cuda"')


def test_shipped_presets_by_name():
    """simscope.presets() and simscope.preset(name): the original questions, as --preset NAME
    loads them; a misspelt name is answered with the nearest."""
    names = simscope.presets()
    assert {"seed-field", "seed-lsq", "seed-lsq-rank", "seed-oscillators"} <= set(names), names
    p = simscope.preset("seed-lsq")
    assert p["workload"] == "lsq" and p["path"].endswith("seed-lsq.json")
    assert (p["params"]["synth.height"], p["params"]["synth.observations"],
            p["params"]["synth.unknowns"], p["params"]["synth.nan_fraction"]) == (500, 50, 100, 0.2)
    # seed 001: A = randn(N, M) with N = 50, M = 100: 50 observations of 100 unknowns
    r = simscope.preset("seed-lsq-rank")["params"]
    assert (r["synth.height"], r["synth.width"], r["synth.observations"], r["synth.unknowns"],
            r["synth.nan_fraction"]) == (500, 500, 50, 100, 0)  # seed 003: no gaps
    o = simscope.preset("seed-oscillators")["params"]
    assert (o["network.topology"], o["network.k"], o["model.coupling_form"],
            o["integrator.steps"]) == ("ring", 2, "literal", 1000000)
    f = simscope.preset("seed-field")["params"]
    assert (f["sources.count"], f["grid.size"], f["plane.offset"]) == (8000000, 200, 1000.0)
    # Run a preset, cut down: its parameters with keywords on top.
    r = simscope.run("lsq", params=dict(simscope.preset("seed-lsq-rank")["params"],
                                        **{"synth.height": 3, "synth.width": 4}), backend="cpu")
    assert r.solution.shape == (100, 3, 4) and (r.status == 1).all()
    with pytest.raises(ValueError, match=r"preset 'seed-oscilators': .*did you mean "
                                         r"'seed-oscillators'\?"):
        simscope.preset("seed-oscilators")


def test_cpu_kernels_level_and_simscope_isa():
    """simscope.cpu_kernels() names the level the CPU kernels run at; SIMSCOPE_ISA set before
    the first call forces a built one (the same outputs as the CLI at that level: test_isa.cpp
    and e2e_cli.py); a bad one is a ValueError at the first call."""
    k = simscope.cpu_kernels()
    assert set(k) == {"level", "chosen_by", "built"} and k["level"] in k["built"]
    if "x86-64-v2" not in k["built"]:
        pytest.skip("a one-level build: " + ", ".join(k["built"]))
    code = ("import simscope, numpy as np; k = simscope.cpu_kernels(); "
            "a = np.random.default_rng(0).normal(size=(5, 2)); "
            "r = simscope.lsq(np.ones((5, 3, 4)), a, backend='cpu'); "
            "print(k['level'], k['chosen_by'], int(r.stats['status_ok']))")
    env = dict(os.environ, SIMSCOPE_ISA="v2")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         timeout=120)
    assert out.returncode == 0 and out.stdout.split() == ["x86-64-v2", "SIMSCOPE_ISA=v2", "12"], \
        out.stdout + out.stderr
    env["SIMSCOPE_ISA"] = "v9"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         timeout=120)
    assert out.returncode == 1 and \
        "ValueError: SIMSCOPE_ISA='v9': expected v2, v3 or v4" in out.stderr, out.stderr
