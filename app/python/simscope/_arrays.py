"""Arrays of other libraries through DLPack (PyTorch tensors, CuPy arrays, any object with
__dlpack__), and the results handed back as the caller's type on the caller's device.

- Host memory (a torch CPU tensor): read as a numpy view without a copy (numpy.from_dlpack);
  results come back through the caller's library's from_dlpack (again no copy).
- CUDA memory (kDLCUDA, a torch CUDA tensor, a CuPy array): the compute layer's inputs are host
  structures (field.Sources, lsq.Cube, oscillators.State), so the array's bytes are copied once
  from the device into a host numpy array (_core.host_from_dlpack: one cudaMemcpy, no detour
  through the caller's library). The field's results on the CUDA back end stay in device memory
  and come back as CUDA DLPack tensors of the caller's library (no host copy); lsq and
  oscillators results, computed into host memory, are moved to the caller's device.
"""

import sys

import numpy as np

from . import _core

_KDL_CPU, _KDL_CUDA, _KDL_CUDA_HOST, _KDL_CUDA_MANAGED = 1, 2, 3, 13
_HOST = (_KDL_CPU, _KDL_CUDA_HOST)
_CUDA = (_KDL_CUDA, _KDL_CUDA_MANAGED)


class _DeviceCapsule:
    """A CUDA DLPack capsule of simscope's (a result left in device memory) with the protocol's
    two methods, for the caller's from_dlpack."""

    def __init__(self, capsule, device):
        self._capsule, self._device = capsule, device

    def __dlpack__(self, stream=None):  # the values are complete: no stream to wait on
        capsule, self._capsule = self._capsule, None
        if capsule is None:
            raise BufferError("simscope: this DLPack capsule was already consumed")
        return capsule

    def __dlpack_device__(self):
        return self._device


class Back:
    """Hands results back as the caller's type on the caller's device: `lib` is the module of
    the first DLPack input (torch, cupy, ...), `device` its (DLPack device type, id)."""

    def __init__(self, lib, device):
        self.lib, self.device = lib, (int(device[0]), int(device[1]))

    @property
    def cuda(self):
        return self.device[0] in _CUDA

    def __call__(self, out):
        if not isinstance(out, np.ndarray):  # a CUDA capsule: the result in device memory
            return self.lib.from_dlpack(_DeviceCapsule(out, (_KDL_CUDA, self.device[1])))
        t = self.lib.from_dlpack(out)  # host: no copy
        if not self.cuda:
            return t
        # A result computed into host memory, to the caller's device (one upload).
        if hasattr(t, "to"):  # torch
            return t.to("cuda:%d" % self.device[1])
        if getattr(self.lib, "__name__", "") == "cupy":
            with self.lib.cuda.Device(self.device[1]):
                return self.lib.asarray(out)
        return t


def host_view(obj, name):
    """(array for the module, Back or None). numpy arrays, None and plain sequences pass
    unchanged; a DLPack object in host memory becomes a numpy view of its memory (no copy); a
    CUDA one a host copy (one device-to-host copy; ValueError when CUDA is not usable here).
    Raises ValueError for other devices."""
    if obj is None or isinstance(obj, np.ndarray) or not hasattr(obj, "__dlpack__"):
        return obj, None
    device = obj.__dlpack_device__() if hasattr(obj, "__dlpack_device__") else (_KDL_CPU, 0)
    kind, index = int(device[0]), int(device[1])
    lib = sys.modules.get(type(obj).__module__.split(".")[0])
    back = Back(lib, (kind, index)) if hasattr(lib, "from_dlpack") else None
    if kind in _HOST:
        return np.from_dlpack(obj), back
    if kind in _CUDA:
        status = _core.cuda_status()
        if not status["usable"]:
            raise ValueError("%s: a CUDA array (DLPack device type %d, id %d), but CUDA is not "
                             "usable here (%s); copy it to the host first (tensor.cpu(), "
                             "cupy.asnumpy(a))" % (name, kind, index, status["reason"]))
        return _core.host_from_dlpack(obj.__dlpack__(), name), back
    raise ValueError("%s: DLPack device type %d (id %d) is neither host memory nor CUDA; "
                     "simscope takes numpy arrays, host tensors and CUDA arrays"
                     % (name, kind, index))


def inputs(**named):
    """host_view for each named input; returns ({name: array}, back): back (a Back, or None
    when no input came through DLPack) converts a result to the first DLPack input's type and
    device."""
    out, back = {}, None
    for name, obj in named.items():
        out[name], b = host_view(obj, name)
        back = back or b
    return out, back
