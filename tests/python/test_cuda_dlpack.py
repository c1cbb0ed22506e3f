"""CUDA arrays through DLPack (needs a GPU: skipped without one). Debian's torch has no CUDA, so
the caller's library here is a minimal one of this module's own over the CUDA runtime (ctypes on
libcudart): CudaArray offers __dlpack__ / __dlpack_device__ of device memory (kDLCUDA), and this
module's from_dlpack makes CudaArrays of what simscope hands back. Checked: CUDA inputs are
taken by all three workloads (field sources/targets, the lsq cube, the oscillators' initial
state); the field's results on the CUDA back end are CUDA DLPack tensors of simscope's device
memory (not copied to the host), kept alive by the array after simscope has moved on; every
result is a CudaArray on the caller's device; values equal the numpy calls' on the CPU."""

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


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int), ("device_id", ctypes.c_int)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int),
                ("dtype", DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class DLManagedTensor(ctypes.Structure):
    pass


_DELETER = ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensor))
DLManagedTensor._fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p),
                            ("deleter", _DELETER)]

_api = ctypes.pythonapi
_api.PyCapsule_New.restype = ctypes.py_object
_api.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
_api.PyCapsule_GetPointer.restype = ctypes.c_void_p
_api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_SetName.argtypes = [ctypes.py_object, ctypes.c_char_p]

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

    def __init__(self, host=None, managed=None):
        self._managed = managed
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

    def __dlpack__(self, stream=None):
        m = DLManagedTensor()
        shape = (ctypes.c_int64 * len(self.shape))(*self.shape)
        code, bits = _CODES[self.dtype]
        m.dl_tensor = DLTensor(ctypes.c_void_p(self.ptr), DLDevice(2, self.device),
                               len(self.shape), DLDataType(code, bits, 1), shape, None, 0)
        keep = [m, shape, self]  # alive until the consumer calls the deleter

        def deleter(_):
            CudaArray.deleted += 1
            keep.clear()

        m.deleter = _DELETER(deleter)
        keep.append(m.deleter)
        CudaArray.exported.append(keep)
        return _api.PyCapsule_New(ctypes.addressof(m), b"dltensor", None)

    def __del__(self):
        if self._managed is not None:
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
    r = simscope.field(CudaArray(src), CudaArray(tg), precision="fp64")  # backend auto: cuda
    assert r.backend == "cuda"
    assert CudaArray.deleted == deleted + 2  # both input capsules consumed and released
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


def test_field_cuda_inputs_on_the_cpu_backend_come_back_on_the_device():
    src = np.random.default_rng(2).uniform(-1, 1, size=(50, 3))
    tg = np.random.default_rng(3).uniform(-1, 1, size=(9, 3))
    r = simscope.field(CudaArray(src), CudaArray(tg), backend="cpu")
    base = simscope.field(src, tg, backend="cpu")
    assert isinstance(r.magnitude, CudaArray)
    np.testing.assert_array_equal(r.magnitude.numpy(), base.magnitude)


def test_lsq_and_oscillators_take_cuda_arrays():
    rng = np.random.default_rng(4)
    b = rng.normal(size=(30, 8, 9))
    b[b > 1.5] = np.nan
    a = rng.normal(size=(30, 4))
    lc = simscope.lsq(b, a, backend="cpu")
    lg = simscope.lsq(CudaArray(b), CudaArray(a), backend="cuda")
    assert isinstance(lg.solution, CudaArray) and lg.solution.shape == (4, 8, 9)
    np.testing.assert_allclose(lg.solution.numpy(), lc.solution, atol=1e-8)
    np.testing.assert_array_equal(lg.status.numpy(), lc.status)
    init = rng.normal(size=(8, 32, 2))
    kw = dict(network_nodes=32, ensemble_size=8, integrator_steps=200, integrator_transient=100)
    sc = simscope.oscillators.study(init, backend="cpu", **kw)
    sg = simscope.oscillators.study(CudaArray(init), backend="cuda", **kw)
    assert isinstance(sg.state, CudaArray)
    np.testing.assert_allclose(sg.state.numpy(), sc.state, atol=1e-9)
    e = simscope.oscillators.Ensemble(CudaArray(init), backend="cuda", **kw)
    e.advance(200)
    assert isinstance(e.state, CudaArray)
    np.testing.assert_allclose(e.state.numpy(), sc.state, atol=1e-9)


def test_strided_cuda_arrays_are_refused():
    class Strided(CudaArray):
        def __dlpack__(self, stream=None):
            cap = CudaArray.__dlpack__(self)
            m = ctypes.cast(_api.PyCapsule_GetPointer(cap, b"dltensor"),
                            ctypes.POINTER(DLManagedTensor))
            strides = (ctypes.c_int64 * 2)(1, self.shape[0])  # column-major
            CudaArray.exported[-1].append(strides)
            m.contents.dl_tensor.strides = strides
            return cap

    with pytest.raises(ValueError, match="^sources: a strided CUDA array"):
        simscope.field(Strided(np.ones((5, 4))), np.zeros((1, 3)))
