"""CUDA arrays through DLPack (needs a GPU: skipped without one). Debian's torch has no CUDA, so
the caller's library here is a minimal one of this module's own over the CUDA runtime (ctypes on
libcudart): CudaArray offers __dlpack__ / __dlpack_device__ of device memory (kDLCUDA), and this
module's from_dlpack makes CudaArrays of what simscope hands back. Checked: CUDA inputs are
taken by all three workloads (field sources/targets, the lsq cube, the oscillators' initial
state); the field's direct CUDA evaluator reads its CUDA inputs in place (any strides, float32 or
float64: stats["host_staging_bytes"] 0, input_route "device", the producer asked for the legacy
stream), with the host path's results and messages; the tree method and lsq / oscillators stage
a CUDA input through the host once (the counter says how much); the field's results on the CUDA
back end are CUDA DLPack tensors of simscope's device memory (not copied to the host), kept
alive by the array after simscope has moved on; every result is a CudaArray on the caller's
device; values equal the numpy calls' on the CPU. The CPU-side half (parsing, checks, routes,
refusals) is test_device_inputs.py."""

import ctypes
import ctypes.util
import gc
import glob

import numpy as np
import pytest

import simscope

_STATUS = simscope.cuda_status()


def _load_cudart():
    names = [ctypes.util.find_library("cudart")] + sorted(
        glob.glob("/usr/local/cuda*/lib64/libcudart.so*"), reverse=True)
    for n in names:
        if n:
            try:
                return ctypes.CDLL(n)
            except OSError:
                pass
    return None


_RT = _load_cudart() if _STATUS["usable"] else None
# Every test here is skipped (collected, so pytest's exit status is 0) without a GPU.
pytestmark = [
    pytest.mark.skipif(not _STATUS["usable"], reason="needs a usable CUDA device (the GPU "
                       "script runs it): " + _STATUS["reason"]),
    pytest.mark.skipif(_STATUS["usable"] and _RT is None, reason="libcudart not found "
                       "(find_library('cudart'), /usr/local/cuda*/lib64)"),
]


from dlpack_structs import DELETER as _DELETER
from dlpack_structs import DLDataType, DLDevice, DLManagedTensor, DLTensor
from dlpack_structs import api as _api

_CODES = {np.dtype(np.float32): (2, 32), np.dtype(np.float64): (2, 64),
          np.dtype(np.int32): (0, 32), np.dtype(np.uint8): (1, 8)}
_DTYPES = {v: k for k, v in _CODES.items()}
_H2D, _D2H = 1, 2


def _check(rc, what):
    assert rc == 0, "%s: CUDA error %d" % (what, rc)


def _pointer_is_device_memory(ptr):
    attrs = (ctypes.c_int * 16)()  # cudaPointerAttributes: type (int) first
    _check(_RT.cudaPointerGetAttributes(attrs, ctypes.c_void_p(ptr)), "cudaPointerGetAttributes")
    return attrs[0] == 2  # cudaMemoryTypeDevice


class CudaArray:
    """Device memory with a shape and dtype: made from a host array (owned: cudaMalloc), or over
    a consumed DLPack tensor (its deleter called when this array goes)."""

    deleted = 0  # deleters of consumed tensors called so far
    exported = []  # the deleters this module gave out (kept alive while in use)
    streams = []  # the stream argument of every __dlpack__ call

    def __init__(self, host=None, managed=None):
        self._managed, self.strides, self._base = managed, None, None
        if managed is not None:
            t = managed.contents.dl_tensor
            self.ptr = t.data + t.byte_offset
            self.shape = tuple(t.shape[i] for i in range(t.ndim))
            self.dtype = _DTYPES[(t.dtype.code, t.dtype.bits)]
            self.device = t.device.device_id
            assert t.device.device_type == 2
            return
        host = np.ascontiguousarray(host)
        self.shape, self.dtype, self.device = host.shape, host.dtype, 0
        p = ctypes.c_void_p()
        _check(_RT.cudaMalloc(ctypes.byref(p), ctypes.c_size_t(max(host.nbytes, 1))), "cudaMalloc")
        self.ptr = p.value
        _check(_RT.cudaMemcpy(ctypes.c_void_p(self.ptr), host.ctypes.data_as(ctypes.c_void_p),
                              ctypes.c_size_t(host.nbytes), _H2D), "cudaMemcpy H2D")

    def numpy(self):
        out = np.empty(self.shape, self.dtype)
        _check(_RT.cudaMemcpy(out.ctypes.data_as(ctypes.c_void_p), ctypes.c_void_p(self.ptr),
                              ctypes.c_size_t(out.nbytes), _D2H), "cudaMemcpy D2H")
        return out

    def __dlpack_device__(self):
        return (2, self.device)

    def view(self, shape, strides, offset=0):
        """A view of this memory (alive while the view is): `shape`, element `strides`, from
        `offset` bytes on, exported with those DLPack strides."""
        v = CudaArray.__new__(CudaArray)
        v._managed, v._base, v.strides = None, self, strides
        v.ptr, v.shape, v.dtype, v.device = self.ptr + offset, shape, self.dtype, self.device
        return v

    def __dlpack__(self, stream=None):
        CudaArray.streams.append(stream)
        m = DLManagedTensor()
        shape = (ctypes.c_int64 * len(self.shape))(*self.shape)
        strides = (ctypes.c_int64 * len(self.strides))(*self.strides) if self.strides else None
        code, bits = _CODES[self.dtype]
        m.dl_tensor = DLTensor(ctypes.c_void_p(self.ptr), DLDevice(2, self.device),
                               len(self.shape), DLDataType(code, bits, 1), shape, strides, 0)
        keep = [m, shape, strides, self]  # alive until the consumer calls the deleter

        def deleter(_):  # keep stays listed in exported: it holds this running callback
            CudaArray.deleted += 1
            keep.remove(self)

        m.deleter = _DELETER(deleter)
        keep.append(m.deleter)
        CudaArray.exported.append(keep)
        return _api.PyCapsule_New(ctypes.addressof(m), b"dltensor", None)

    def __del__(self):
        if getattr(self, "_base", None) is not None:
            return  # a view: its base frees the memory
        if getattr(self, "_managed", None) is not None:
            self._managed.contents.deleter(self._managed)
        elif getattr(self, "ptr", None):
            _RT.cudaFree(ctypes.c_void_p(self.ptr))


def from_dlpack(x):
    """What simscope looks up in the caller's module (as torch.from_dlpack)."""
    if isinstance(x, np.ndarray):  # a result in host memory: simscope moves it to our device
        return CudaArray(host=x)
    assert tuple(x.__dlpack_device__())[0] == 2
    cap = x.__dlpack__()
    ptr = _api.PyCapsule_GetPointer(cap, b"dltensor")
    _api.PyCapsule_SetName(cap, b"used_dltensor")  # consumed: we call the deleter
    return CudaArray(managed=ctypes.cast(ptr, ctypes.POINTER(DLManagedTensor)))


def test_field_cuda_inputs_and_results_stay_on_the_device():
    src = np.random.default_rng(0).uniform(-1, 1, size=(2000, 4))
    tg = np.random.default_rng(1).uniform(-1, 1, size=(300, 3))
    base = simscope.field(src, tg, backend="cpu", precision="fp64")
    deleted = CudaArray.deleted
    streams = len(CudaArray.streams)
    r = simscope.field(CudaArray(src), CudaArray(tg), precision="fp64")  # backend auto: cuda
    assert r.backend == "cuda"
    assert CudaArray.deleted == deleted + 2  # both input capsules consumed and released
    # Read in place by the CUDA evaluator: no byte of them went through the host.
    assert r.input_route == "device" and r.stats["host_staging_bytes"] == 0
    assert CudaArray.streams[streams:] == [1, 1]  # asked for the legacy default stream
    for name in base:
        out = r[name]
        assert isinstance(out, CudaArray) and out.shape == (300,) and out.dtype == np.float32
        # The result is simscope's device memory, handed over as DLPack (not an upload of ours).
        assert out._managed is not None and _pointer_is_device_memory(out.ptr)
    kept = {n: r[n] for n in base}
    del r
    gc.collect()
    # simscope computes and frees other results meanwhile: ours stay allocated and unchanged.
    simscope.field(CudaArray(src[:100]), CudaArray(tg[:7]), precision="fp64")
    for name, out in kept.items():
        np.testing.assert_allclose(out.numpy(), base[name], rtol=1e-6, atol=1e-6)
    del kept, out
    gc.collect()  # the arrays' deleters release simscope's memory (no double free: no crash)


def _close(got, want, rel):
    """max |got - want| <= rel * max |want| (the outputs' scale)."""
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    assert got.shape == want.shape
    assert np.max(np.abs(got - want)) <= rel * max(np.max(np.abs(want)), 1e-300)


# The documented agreement of the CUDA and CPU direct evaluators (README, "field"): fp32 to
# about 1e-6 of the outputs' scale (each fp32 sum in its own order), fp64 to rounding.
_REL = {"fp32": 1e-5, "fp64": 1e-9}


def test_field_cuda_inputs_with_backend_cpu_are_refused():
    with pytest.raises(ValueError, match='^sources: a CUDA array \\(device 0\\), but '
                                         'backend="cpu"'):
        simscope.field(CudaArray(np.ones((5, 4))), np.zeros((2, 3)), backend="cpu")
    with pytest.raises(ValueError, match='^targets: a CUDA array'):
        simscope.field(np.ones((5, 4)), CudaArray(np.zeros((2, 3))), backend="cpu")


def test_field_strided_and_mixed_cuda_inputs():
    rng = np.random.default_rng(8)
    P, T = 3000, 400
    src = rng.uniform(-1, 1, size=(P, 4))
    src[:, 3] += 1.5
    tg = rng.uniform(-1.5, 1.5, size=(T, 3))
    wide = np.zeros((T, 5))
    wide[:, 1:4] = tg
    for prec in ("fp32", "fp64"):
        base = simscope.field(src, tg, backend="cpu", precision=prec)
        # float32 sources in Fortran order (strides (1, P)); float64 targets as the column
        # slice [:, 1:4] of a (T, 5) array (offset one element, strides (5, 1)).
        s_f = CudaArray(np.ascontiguousarray(src.T, dtype=np.float32))
        t_w = CudaArray(wide)
        deleted = CudaArray.deleted
        r = simscope.field(s_f.view((P, 4), (1, P)), t_w.view((T, 3), (5, 1), offset=8),
                           precision=prec, backend="cuda")
        assert r.input_route == "device" and r.stats["host_staging_bytes"] == 0
        assert CudaArray.deleted == deleted + 2
        for name in base:
            assert isinstance(r[name], CudaArray)
            _close(r[name].numpy(), base[name], _REL[prec])
        # Mixed: host sources with CUDA targets; CUDA (P, 3) sources with the schema's plane.
        r2 = simscope.field(src, CudaArray(tg), precision=prec)
        assert r2.input_route == "device" and r2.stats["host_staging_bytes"] == 0
        _close(r2.ex.numpy(), base.ex, _REL[prec])
        r3 = simscope.field(CudaArray(src[:, :3]), precision=prec, grid_size=16)
        b3 = simscope.field(src[:, :3], backend="cpu", precision=prec, grid_size=16)
        assert r3.potential.shape == (16, 16)
        _close(r3.potential.numpy(), b3.potential, _REL[prec])


def test_field_cuda_input_errors_are_the_host_paths():
    """A bad value found on the device: ValueError with the message of the same numpy array."""
    tg = np.zeros((2, 3))
    cases = []
    s = np.ones((50, 4))
    s[17, 2] = np.nan
    s[30, 0] = np.inf  # a later row: the first bad one is reported
    cases.append(("sources", s))
    s = np.ones((5, 4))
    s[3, 1] = 1e39  # beyond float32
    cases.append(("sources", s))
    t = np.zeros((9, 3), np.float32)
    t[4, 0] = -np.inf
    cases.append(("targets", t))
    for name, bad in cases:
        args = {"sources": np.ones((3, 4)), "targets": tg, name: bad}
        with pytest.raises(ValueError) as host:
            simscope.field(args["sources"], args["targets"], backend="cpu")
        args[name] = CudaArray(bad)
        with pytest.raises(ValueError) as dev:
            simscope.field(args["sources"], args["targets"], backend="cuda")
        assert str(dev.value) == str(host.value)
        assert str(dev.value).startswith(name + ": row ")


def test_field_tree_stages_cuda_inputs_through_the_host():
    rng = np.random.default_rng(9)
    src = rng.uniform(-1, 1, size=(4000, 4))
    tg = rng.uniform(-1, 1, size=(300, 3))
    base = simscope.field(src, tg, backend="cuda", method="tree")
    r = simscope.field(CudaArray(src), CudaArray(tg), backend="cuda", method="tree")
    assert r.input_route == "staged"
    assert r.stats["host_staging_bytes"] == src.nbytes + tg.nbytes
    for name in base:
        _close(r[name].numpy(), base[name], 1e-6)


def test_lsq_and_oscillators_take_cuda_arrays():
    rng = np.random.default_rng(4)
    b = rng.normal(size=(30, 8, 9))
    b[b > 1.5] = np.nan
    a = rng.normal(size=(30, 4))
    lc = simscope.lsq(b, a, backend="cpu")
    lg = simscope.lsq(CudaArray(b), CudaArray(a), backend="cuda")
    # The cube read in place (copied to the host only for pixels solved there), the design
    # matrix staged through the host.
    cube_staged = b.nbytes if lg.stats["host_pixels"] else 0
    assert lg.stats["host_staging_bytes"] == a.nbytes + cube_staged
    assert lg.input_route == "device"
    assert lg.warnings == lc.warnings
    assert isinstance(lg.solution, CudaArray) and lg.solution.shape == (4, 8, 9)
    np.testing.assert_allclose(lg.solution.numpy(), lc.solution, atol=1e-8)
    np.testing.assert_array_equal(lg.status.numpy(), lc.status)
    init = rng.normal(size=(8, 32, 2))
    kw = dict(network_nodes=32, ensemble_size=8, integrator_steps=200, integrator_transient=100)
    sc = simscope.oscillators.study(init, backend="cpu", **kw)
    sg = simscope.oscillators.study(CudaArray(init), backend="cuda", **kw)
    assert sg.stats["host_staging_bytes"] == 0 and sg.input_route == "device"  # read in place
    assert isinstance(sg.state, CudaArray)
    np.testing.assert_allclose(sg.state.numpy(), sc.state, atol=1e-9)
    e = simscope.oscillators.Ensemble(CudaArray(init), backend="cuda", **kw)
    e.advance(200)
    assert isinstance(e.state, CudaArray)
    np.testing.assert_allclose(e.state.numpy(), sc.state, atol=1e-9)


def test_lsq_cuda_cube_is_read_in_place():
    rng = np.random.default_rng(10)
    M, H, W = 30, 9, 11
    b = rng.normal(size=(M, H, W))
    b[rng.uniform(size=b.shape) < 0.15] = np.nan
    a = rng.normal(size=(M, 4))
    # float32, as (M, W, H) memory viewed (M, H, W): gathered into C order on the device.
    t = CudaArray(np.ascontiguousarray(b.transpose(0, 2, 1), dtype=np.float32))
    for method in ("auto", "normal", "downdate"):
        lc = simscope.lsq(b.astype(np.float32), a, backend="cpu", method=method)
        lg = simscope.lsq(t.view((M, H, W), (H * W, 1, H)), a, backend="cuda", method=method)
        assert lg.input_route == "device"
        assert lg.stats["host_staging_bytes"] == (b.size * 4 if lg.stats["host_pixels"] else 0)
        np.testing.assert_allclose(lg.solution.numpy(), lc.solution, rtol=1e-7, atol=1e-8)
        np.testing.assert_array_equal(lg.status.numpy(), lc.status)
        assert lg.warnings == lc.warnings
    # svd solves the pixels with gaps on the host: the cube's one host copy is counted.
    ls = simscope.lsq(CudaArray(b), a, backend="cuda", method="svd")
    assert ls.stats["host_staging_bytes"] == b.nbytes
    np.testing.assert_allclose(ls.solution.numpy(), simscope.lsq(b, a, backend="cpu",
                                                                 method="svd").solution,
                               rtol=1e-9, atol=1e-10)


def test_lsq_cuda_maps_are_simscopes_device_memory():
    """Issue 29: with CUDA inputs on the CUDA back end, lsq's five maps are assembled on the
    device and handed out over simscope's device memory (DLPack, their own dtypes), never
    uploaded from the host; they outlive later calls."""
    rng = np.random.default_rng(12)
    b = rng.normal(size=(25, 7, 10))
    b[rng.uniform(size=b.shape) < 0.3] = np.nan
    b[:, 0, 0] = np.nan  # all missing
    a = rng.normal(size=(25, 4))
    dtypes = {"solution": np.float64, "residual": np.float32, "condition": np.float32,
              "count": np.int32, "status": np.uint8}
    for method, precision in (("auto", "fp64"), ("svd", "fp32")):
        lc = simscope.lsq(b, a, backend="cpu", method=method, precision=precision)
        lg = simscope.lsq(CudaArray(b), CudaArray(a), backend="cuda", method=method,
                          precision=precision)
        assert lg.warnings == lc.warnings
        for name, dt in dtypes.items():
            out = getattr(lg, name)
            want = np.float32 if name == "solution" and precision == "fp32" else dt
            assert isinstance(out, CudaArray) and out.dtype == want, name
            assert out._managed is not None and _pointer_is_device_memory(out.ptr), name
        kept = {n: getattr(lg, n) for n in dtypes}
        del lg
        gc.collect()
        simscope.lsq(CudaArray(b[:, :3]), CudaArray(a), backend="cuda")  # later work
        tol = 1e-9 if precision == "fp64" else 1e-5
        np.testing.assert_allclose(kept["solution"].numpy(), lc.solution, rtol=tol, atol=tol)
        np.testing.assert_allclose(kept["residual"].numpy(), lc.residual, rtol=1e-4, atol=1e-6)
        np.testing.assert_array_equal(kept["count"].numpy(), lc.count)
        np.testing.assert_array_equal(kept["status"].numpy(), lc.status)
        del kept
        gc.collect()


def test_lsq_cuda_cube_errors_are_the_host_paths():
    b = np.ones((5, 4, 3))
    b[2, 1, 2] = np.inf
    with pytest.raises(ValueError) as host:
        simscope.lsq(b, np.ones((5, 1)), backend="cpu")
    with pytest.raises(ValueError) as dev:
        simscope.lsq(CudaArray(b), np.ones((5, 1)), backend="cuda")
    assert str(dev.value) == str(host.value)
    assert str(dev.value).startswith("cube: entry [2, 1, 2] is inf")


def test_oscillators_cuda_initial_state_is_read_in_place():
    rng = np.random.default_rng(11)
    init = rng.normal(size=(3, 16, 2))
    kw = dict(network_nodes=16, ensemble_size=3, integrator_steps=300, integrator_transient=100)
    sc = simscope.oscillators.study(init, backend="cuda", **kw)
    # float32 stored as (2, 3, 16), viewed (3, 16, 2): strides (16, 1, 48) elements.
    t = CudaArray(np.ascontiguousarray(init.transpose(2, 0, 1), dtype=np.float32))
    sf = simscope.oscillators.study(init.astype(np.float32), backend="cuda", **kw)
    sg = simscope.oscillators.study(t.view((3, 16, 2), (16, 1, 48)), backend="cuda", **kw)
    assert sg.input_route == "device" and sg.stats["host_staging_bytes"] == 0
    np.testing.assert_array_equal(sg.state.numpy(), sf.state)  # the same values, same path
    # (N, 2) for every member.
    s1 = simscope.oscillators.study(CudaArray(init[0]), backend="cuda", **kw)
    np.testing.assert_array_equal(
        s1.state.numpy(), simscope.oscillators.study(init[0], backend="cuda", **kw).state)
    e = simscope.oscillators.Ensemble(CudaArray(init), backend="cuda", **kw)
    e.advance(300)
    np.testing.assert_array_equal(e.state.numpy(), sc.state)
    bad = init.copy()
    bad[1, 5, 1] = np.nan
    with pytest.raises(ValueError) as host:
        simscope.oscillators.study(bad, backend="cpu", **kw)
    with pytest.raises(ValueError) as dev:
        simscope.oscillators.study(CudaArray(bad), backend="cuda", **kw)
    assert str(dev.value) == str(host.value)
