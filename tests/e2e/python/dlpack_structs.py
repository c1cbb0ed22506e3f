"""DLPack's C structures (dlpack/dlpack.h, version 0.x "dltensor" capsules) through ctypes, for
the tests: capsules made by hand, in host or (fake or real) CUDA memory."""

import ctypes

import numpy as np

KDL_CPU, KDL_CUDA, KDL_CUDA_MANAGED = 1, 2, 13


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


DELETER = ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensor))
DLManagedTensor._fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p),
                            ("deleter", DELETER)]

api = ctypes.pythonapi
api.PyCapsule_New.restype = ctypes.py_object
api.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
api.PyCapsule_GetPointer.restype = ctypes.c_void_p
api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
api.PyCapsule_SetName.argtypes = [ctypes.py_object, ctypes.c_char_p]
api.PyCapsule_GetName.restype = ctypes.c_char_p
api.PyCapsule_GetName.argtypes = [ctypes.py_object]

CODES = {np.dtype(np.float32): (2, 32), np.dtype(np.float64): (2, 64),
         np.dtype(np.int32): (0, 32), np.dtype(np.int64): (0, 64), np.dtype(np.uint8): (1, 8),
         np.dtype(np.float16): (2, 16)}
DTYPES = {v: k for k, v in CODES.items()}


class Capsules:
    """Makes "dltensor" capsules over a pointer (never dereferenced by the tests that run
    without a GPU), and counts the deleter calls of those consumed."""

    # Every capsule's structures, for the whole session: a consumer may call a deleter late
    # (a DeviceArray held by a traceback until the garbage collector runs).
    _keep = []

    def __init__(self):
        self.deleted = 0

    def make(self, ptr, shape, dtype, device_type=KDL_CUDA, device_id=0, strides=None,
             byte_offset=0):
        m = DLManagedTensor()
        c_shape = (ctypes.c_int64 * len(shape))(*shape)
        c_strides = (ctypes.c_int64 * len(strides))(*strides) if strides is not None else None
        code, bits = CODES[np.dtype(dtype)]
        m.dl_tensor = DLTensor(ctypes.c_void_p(ptr), DLDevice(device_type, device_id),
                               len(shape), DLDataType(code, bits, 1), c_shape, c_strides,
                               byte_offset)
        keep = [m, c_shape, c_strides]

        def deleter(_):  # keeps `keep` (the running callback among it) for the session
            self.deleted += 1

        m.deleter = DELETER(deleter)
        keep.append(m.deleter)
        self._keep.append(keep)
        return api.PyCapsule_New(ctypes.addressof(m), b"dltensor", None)
