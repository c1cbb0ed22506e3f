"""CUDA inputs without a GPU: the CPU-side logic of "CUDA tensors stay on the device" (issue
15). Fake DLPack capsules of kDLCUDA memory (a pointer never dereferenced) are parsed into
_core.DeviceArray (shape, byte strides, dtype, device, data pointer, consumption and release),
refused where the host path refuses (device type, dtype: the same messages), checked as the host
readers check arrays (the same messages), and routed: "device" for the direct CUDA evaluator,
"staged" for the CUDA tree, ValueError naming the argument for backend="cpu" or where CUDA is
not usable. The GPU half is test_cuda_dlpack.py."""

import numpy as np
import pytest

import simscope
from simscope import _core

from dlpack_structs import Capsules, KDL_CPU, KDL_CUDA, KDL_CUDA_MANAGED, api

_USABLE = simscope.cuda_status()["usable"]
_FAKE = 0x7F0000001000  # a device address: parsed, never read


@pytest.fixture
def caps():
    return Capsules()


class FakeCuda:
    """What simscope sees of a torch CUDA tensor: __dlpack_device__ and __dlpack__(stream=)."""

    def __init__(self, caps, shape, dtype=np.float32, strides=None, device_id=0):
        self.caps, self.shape, self.dtype = caps, shape, dtype
        self.strides, self.device_id, self.streams = strides, device_id, []

    def __dlpack_device__(self):
        return (KDL_CUDA, self.device_id)

    def __dlpack__(self, stream=None):
        self.streams.append(stream)
        return self.caps.make(_FAKE, self.shape, self.dtype, KDL_CUDA, self.device_id,
                              self.strides)


def test_device_array_parses_shape_strides_dtype_and_pointer(caps):
    a = _core.DeviceArray(caps.make(_FAKE, (5, 4), np.float64, byte_offset=64), "sources", 1)
    assert (a.name, a.shape, a.dtype, a.device, a.stream) == ("sources", (5, 4), "float64", 0, 1)
    assert a.data_ptr == _FAKE + 64  # byte_offset applied: the pointer handed to the back end
    assert a.strides == (32, 8)  # null strides: C order, in bytes
    b = _core.DeviceArray(caps.make(_FAKE, (6, 3), np.float32, KDL_CUDA_MANAGED, 0, (1, 6)),
                          "targets", 2)
    assert b.strides == (4, 24) and b.stream == 2  # DLPack's element strides, now in bytes
    c = _core.DeviceArray(caps.make(_FAKE, (3, 7, 2), np.float32, strides=(-14, 2, 1)), "x", 1)
    assert c.strides == (-56, 8, 4)


def test_device_array_consumes_the_capsule_once_and_releases_it(caps):
    cap = caps.make(_FAKE, (2, 3), np.float32)
    a = _core.DeviceArray(cap, "targets", 1)
    assert api.PyCapsule_GetName(cap) == b"used_dltensor"
    assert caps.deleted == 0  # held for the call
    with pytest.raises(ValueError, match="^targets: the DLPack capsule was already used"):
        _core.DeviceArray(cap, "targets", 1)
    del a
    assert caps.deleted == 1  # the producer's deleter, once


def test_device_array_refuses_what_the_host_path_refuses(caps):
    with pytest.raises(ValueError, match="^sources: DLPack device type 1 is not a CUDA device"):
        _core.DeviceArray(caps.make(_FAKE, (2, 3), np.float32, KDL_CPU), "sources", 1)
    with pytest.raises(ValueError) as dev:
        _core.DeviceArray(caps.make(_FAKE, (2, 3), np.float16), "cube", 1)
    with pytest.raises(ValueError) as host:
        _core.host_from_dlpack(caps.make(_FAKE, (2, 3), np.float16), "cube")
    assert str(dev.value) == str(host.value)
    assert "float16" not in str(dev.value) and "16 bits" in str(dev.value)
    assert caps.deleted == 3  # refused capsules are released too


@pytest.mark.parametrize("shape,dtype,name,host", [
    ((5, 2), np.float64, "sources", np.zeros((5, 2))),
    ((5, 4), np.int32, "sources", np.zeros((5, 4), np.int32)),
    ((0, 4), np.float32, "sources", np.zeros((0, 4), np.float32)),
    ((5, 4), np.float32, "targets", np.zeros((5, 4), np.float32)),
    ((0, 3), np.float64, "targets", np.zeros((0, 3))),
])
def test_view_checks_give_the_host_paths_messages(caps, shape, dtype, name, host):
    """A CUDA array of the wrong shape or dtype: the message of the same numpy array."""
    good = {"sources": np.ones((3, 4)), "targets": np.zeros((2, 3))}
    with pytest.raises(ValueError) as want:
        simscope.field(**dict(good, **{name: host}), backend="cpu")
    a = _core.DeviceArray(caps.make(_FAKE, shape, dtype), name, 1)
    args = dict(good, **{name: a})
    with pytest.raises(ValueError) as got:  # checked before any back end runs
        _core.field(args["sources"], args["targets"], [], "cpu", None, False)
    assert str(got.value) == str(want.value)


def test_misaligned_and_three_dimensional_views_are_refused(caps):
    a = _core.DeviceArray(caps.make(_FAKE + 4, (2, 4), np.float64), "sources", 1)
    with pytest.raises(ValueError, match="^sources: device memory not aligned to its 8-byte"):
        _core.field(a, None, [], "cpu", None, False)
    t = _core.DeviceArray(caps.make(_FAKE, (2, 3, 1), np.float64), "targets", 1)
    with pytest.raises(ValueError, match=r"^targets: \(T,3\) expected, got \(2, 3, 1\)"):
        _core.field(np.ones((2, 4)), t, [], "cpu", None, False)


def test_routes(caps):
    a = _core.DeviceArray(caps.make(_FAKE, (100, 4), np.float32), "sources", 1)
    t = _core.DeviceArray(caps.make(_FAKE, (10, 3), np.float32), "targets", 1)
    assert _core._field_route(None, "cpu", "direct", 100, 10) == "host"
    assert _core._field_route(None, "cuda", "tree", 100, 10) == "host"
    assert _core._field_route(a, "cuda", "direct", 100, 10) == "device"
    assert _core._field_route(t, "cuda", "auto", 100, 10) == "device"  # few pairs: direct
    assert _core._field_route(a, "cuda", "tree", 100, 10) == "staged"  # trees build on the host
    # auto is direct on CUDA for now (README), whatever the pair count: read in place
    assert _core._field_route(a, "cuda", "auto", 10**7, 10**5) == "device"
    with pytest.raises(ValueError, match='^targets: a CUDA array \\(device 0\\), but '
                                         'backend="cpu" computes from host memory'):
        _core._field_route(t, "cpu", "direct", 100, 10)
    # The real call on backend="cpu": the same refusal, after the views' checks.
    with pytest.raises(ValueError, match='^sources: a CUDA array \\(device 0\\), but '
                                         'backend="cpu"'):
        _core.field(a, np.zeros((2, 3)), [], "cpu", None, False)


@pytest.mark.parametrize("call", ["field_sources", "field_targets", "lsq", "study"])
def test_cuda_inputs_name_the_argument_when_they_cannot_run(caps, call):
    """backend="cpu" (any machine), or CUDA not usable here (this build or machine): ValueError
    naming the argument, before any copy."""
    src = FakeCuda(caps, (5, 4))
    if call == "field_sources":
        f, name = lambda b: simscope.field(src, np.zeros((2, 3)), backend=b), "sources"
    elif call == "field_targets":
        f, name = lambda b: simscope.field(np.ones((5, 4)), FakeCuda(caps, (2, 3)),
                                           backend=b), "targets"
    elif call == "lsq":
        f, name = lambda b: simscope.lsq(FakeCuda(caps, (4, 2, 2)), np.ones((4, 1)),
                                         backend=b), "cube"
    else:
        f, name = lambda b: simscope.oscillators.study(FakeCuda(caps, (8, 2)), backend=b,
                                                       network_nodes=8,
                                                       ensemble_size=1), "initial"
    with pytest.raises(ValueError, match="^%s: a CUDA array" % name):
        f("cpu")
    if not _USABLE:
        with pytest.raises(ValueError, match="^%s: a CUDA array .*not usable here" % name):
            f("auto")


@pytest.mark.skipif(_USABLE, reason="a usable CUDA device: the capsule is taken then")
def test_no_capsule_is_taken_where_the_device_is_not_usable(caps):
    src = FakeCuda(caps, (5, 4))
    with pytest.raises(ValueError):
        simscope.field(src, np.zeros((2, 3)))
    assert src.streams == []  # refused before __dlpack__: nothing consumed, nothing copied


@pytest.mark.skipif(not _USABLE, reason="needs a usable CUDA device to take the capsule")
def test_cuda_producer_is_asked_for_the_legacy_stream(caps):
    src = FakeCuda(caps, (5, 4))
    with pytest.raises(ValueError):  # backend="cpu": refused after the capsule was taken
        simscope.field(src, np.zeros((2, 3)), backend="cpu")
    assert src.streams == [1]


def test_lsq_returns_the_clis_warnings(cli):
    """simscope.lsq's warnings are the CLI's for the same problem: the unused settings and the
    solve's (underdetermined, rank-deficient and all-missing pixels)."""
    rng = np.random.default_rng(7)
    b = rng.normal(size=(6, 3, 4))
    b[:, 0, 0] = np.nan  # all missing
    b[2:, 1, 1] = np.nan  # 2 rows for N = 3 unknowns: underdetermined
    a = rng.normal(size=(6, 3))
    a[:, 2] = a[:, 1]  # dependent columns: every pixel rank-deficient (minimum norm)
    r = simscope.lsq(b, a, backend="cpu", method="svd")
    assert r.stats["status_all_missing"] == 1 and r.stats["status_underdetermined"] == 1
    assert r.stats["status_rank_deficient"] >= 1
    assert any("no observation (status 3)" in w for w in r.warnings)
    assert any("underdetermined (status 1" in w for w in r.warnings)
    assert any("rank-deficient (status 2" in w for w in r.warnings)
    np.save(cli.tmp / "cube.npy", b)
    np.save(cli.tmp / "design.npy", a)
    outs, err = cli.run("lsq", {"data.file": cli.tmp / "cube.npy",
                                "design.file": cli.tmp / "design.npy", "method": "svd"})
    assert outs is not None, err
    for w in r.warnings:  # every warning is one the CLI prints
        assert w in err, (w, err)
    clean = simscope.lsq(rng.normal(size=(6, 3, 4)), rng.normal(size=(6, 2)), backend="cpu")
    assert clean.warnings == []


@pytest.mark.parametrize("shape,dtype", [((5,), np.float64), ((2, 3, 4), np.int32),
                                         ((0, 3, 4), np.float32), ((2, 2, 2, 2), np.float64)])
def test_lsq_cube_view_checks_give_the_host_paths_messages(caps, shape, dtype):
    """(A 2-D cube is a flat batch in simscope.lsq: the raw call's refusal of it is not compared.)"""
    a = np.ones((2, 1))
    with pytest.raises(ValueError) as want:
        simscope.lsq(np.zeros(shape, dtype), a, backend="cpu")
    cube = _core.DeviceArray(caps.make(_FAKE, shape, dtype), "cube", 1)
    with pytest.raises(ValueError) as got:
        _core.lsq(cube, a, [], "cpu", None)
    assert str(got.value) == str(want.value)


def test_lsq_cuda_cube_with_backend_cpu_names_the_cube(caps):
    cube = _core.DeviceArray(caps.make(_FAKE, (2, 3, 4), np.float32), "cube", 1)
    with pytest.raises(ValueError, match='^cube: a CUDA array \\(device 0\\), but backend="cpu"'):
        _core.lsq(cube, np.ones((2, 1)), [], "cpu", None)


_OSC = [("network.nodes", "8"), ("ensemble.size", "2")]


@pytest.mark.parametrize("shape,dtype", [((7, 2), np.float64), ((8, 2), np.int32),
                                         ((3, 8, 2), np.float32), ((8, 3), np.float64)])
def test_initial_state_view_checks_give_the_host_paths_messages(caps, shape, dtype):
    with pytest.raises(ValueError) as want:
        _core.oscillators_study(np.zeros(shape, dtype), _OSC, "cpu", None)
    init = _core.DeviceArray(caps.make(_FAKE, shape, dtype), "initial", 1)
    with pytest.raises(ValueError) as got:
        _core.oscillators_study(init, _OSC, "cpu", None)
    assert str(got.value) == str(want.value)
    init = _core.DeviceArray(caps.make(_FAKE, shape, dtype), "initial", 1)
    with pytest.raises(ValueError) as got:
        _core.Ensemble(_OSC, "cpu", init)
    assert str(got.value) == str(want.value)


def test_cuda_initial_state_with_backend_cpu_names_it(caps):
    for make in (lambda i: _core.oscillators_study(i, _OSC, "cpu", None),
                 lambda i: _core.Ensemble(_OSC, "cpu", i)):
        init = _core.DeviceArray(caps.make(_FAKE, (2, 8, 2), np.float64), "initial", 1)
        with pytest.raises(ValueError, match='^initial: a CUDA array \\(device 0\\), but '
                                             'backend="cpu"'):
            make(init)


@pytest.mark.skipif(not _USABLE, reason="needs a usable CUDA device (the backend must be cuda)")
def test_cuda_array_on_a_device_this_process_cannot_see(caps):
    """device_id beyond cuda_device_count(): ValueError naming the argument (the back ends run
    on the array's own device otherwise)."""
    for call, name, shape in ((lambda a: _core.field(a, None, [], "cuda", None, False),
                               "sources", (4, 4)),
                              (lambda a: _core.lsq(a, np.ones((2, 1)), [], "cuda", None),
                               "cube", (2, 3, 4)),
                              (lambda a: _core.oscillators_study(a, _OSC, "cuda", None),
                               "initial", (8, 2))):
        a = _core.DeviceArray(caps.make(_FAKE, shape, np.float64, device_id=999), name, 1)
        with pytest.raises(ValueError, match="^%s: a CUDA array on device 999, but this process "
                                             "sees \\d+ CUDA device" % name):
            call(a)
