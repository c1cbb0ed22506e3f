"""Arrays of other libraries through DLPack (PyTorch CPU tensors, any object with __dlpack__):
read as numpy views without a copy (numpy.from_dlpack), and the results handed back as the
caller's type through its library's from_dlpack (again without a copy)."""

import sys

import numpy as np

_KDL_CPU = 1  # DLPack's kDLCPU


def host_view(obj, name):
    """(array for the module, from_dlpack of the caller's library or None). numpy arrays, None
    and plain sequences pass unchanged; a DLPack object on the host becomes a numpy view of
    its memory. Raises ValueError for device memory (CUDA tensors, CuPy arrays): not taken yet,
    so nothing is copied behind the caller's back."""
    if obj is None or isinstance(obj, np.ndarray) or not hasattr(obj, "__dlpack__"):
        return obj, None
    device = obj.__dlpack_device__() if hasattr(obj, "__dlpack_device__") else (_KDL_CPU, 0)
    if int(device[0]) != _KDL_CPU:
        raise ValueError("%s: a device array (DLPack device type %d, id %d): simscope takes "
                         "host memory for now; copy it first (tensor.cpu(), cupy.asnumpy(a))"
                         % (name, int(device[0]), int(device[1])))
    view = np.from_dlpack(obj)
    lib = sys.modules.get(type(obj).__module__.split(".")[0])
    return view, getattr(lib, "from_dlpack", None)


def inputs(**named):
    """host_view for each named input; returns ({name: array}, wrap): wrap converts a result
    array to the type of the first DLPack input (identity when there was none)."""
    out, back = {}, None
    for name, obj in named.items():
        out[name], b = host_view(obj, name)
        back = back or b
    return out, back
