"""Arrays of other libraries through DLPack (PyTorch tensors, CuPy arrays, any object with
__dlpack__), and the results handed back as the caller's type on the caller's device.

- Host memory (a torch CPU tensor): read as a numpy view without a copy (numpy.from_dlpack);
  results come back through the caller's library's from_dlpack (again no copy).
- CUDA memory (kDLCUDA, a torch CUDA tensor, a CuPy array): taken as a _core.DeviceArray (the
  consumed capsule's tensor, held for the call: no copy). The CUDA back ends read it in place
  (field sources and targets, the lsq cube, the oscillators' initial state: any strides,
  float32/float64, converted on the device); where a back end cannot read device memory (the
  field's tree method, lsq's design matrix) the array's bytes are copied to the host once
  (DeviceArray.to_host, counted in stats["host_staging_bytes"]). The field's results on the CUDA back end stay in device memory
  and come back as CUDA DLPack tensors of the caller's library (no host copy); lsq and
  oscillators results, computed into host memory, are moved to the caller's device.
- Streams: the producer is asked for its capsule with __dlpack__(stream=1) (DLPack: 1 = the
  legacy default stream), so it orders its pending work on that tensor before that stream
  (torch records an event on its current stream and makes the legacy stream wait for it); the
  CUDA back end then records an event on the legacy default stream and makes its own stream
  wait for it (DeviceView::stream): nothing waits on the host. The results the field hands back
  are complete when simscope returns (its stream is synchronised).
- A CUDA input with backend="cpu", or where CUDA is not usable in this build or on this
  machine, raises ValueError naming the argument.
"""

import sys

import numpy as np

from . import _core

_KDL_CPU, _KDL_CUDA, _KDL_CUDA_HOST, _KDL_CUDA_MANAGED = 1, 2, 3, 13
_HOST = (_KDL_CPU, _KDL_CUDA_HOST)
_CUDA = (_KDL_CUDA, _KDL_CUDA_MANAGED)


_LEGACY_STREAM = 1  # DLPack's stream value for CUDA's legacy default stream


def _capsule(obj):
    """obj.__dlpack__ with the stream simscope's back ends wait on (the legacy default stream);
    producers whose __dlpack__ takes no stream are asked without."""
    try:
        return obj.__dlpack__(stream=_LEGACY_STREAM)
    except TypeError:
        return obj.__dlpack__()


def refuse_cpu_backend(arrays, backend):
    """ValueError naming the first CUDA input (a DeviceArray among `arrays`, a dict) when
    `backend` is "cpu": a CUDA array is computed where it lives, or copied by its owner."""
    for name, a in arrays.items():
        if isinstance(a, _core.DeviceArray) and backend == "cpu":
            raise ValueError('%s: a CUDA array (device %d), but backend="cpu" computes from '
                             'host memory; use backend="cuda" (or "auto"), or copy it to the '
                             'host first (tensor.cpu(), cupy.asnumpy(a))' % (name, a.device))


def staged(arrays):
    """The host copies of the DeviceArrays among `arrays` (a dict name -> array), for the calls
    whose back ends read host memory (lsq, oscillators): (dict, bytes copied)."""
    out, nbytes = {}, 0
    for name, a in arrays.items():
        if isinstance(a, _core.DeviceArray):
            a = a.to_host()
            nbytes += a.nbytes
        out[name] = a
    return out, nbytes


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
    CUDA one a _core.DeviceArray (no copy; ValueError naming `name` when CUDA is not usable
    here). Raises ValueError for other devices."""
    if obj is None or isinstance(obj, np.ndarray) or not hasattr(obj, "__dlpack__"):
        return obj, None
    refuse_grad(obj, name)
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
        return _core.DeviceArray(_capsule(obj), name, _LEGACY_STREAM), back
    raise ValueError("%s: DLPack device type %d (id %d) is neither host memory nor CUDA; "
                     "simscope takes numpy arrays, host tensors and CUDA arrays"
                     % (name, kind, index))


def refuse_grad(obj, name):
    """ValueError naming `name` for a tensor that requires grad: simscope's results are not
    differentiable (no autograd graph through them), so, as tensor.numpy() does, it asks for
    the values themselves: name.detach()."""
    if getattr(obj, "requires_grad", False):
        raise ValueError("%s: a tensor that requires grad; simscope computes no gradients, so "
                         "pass its values: %s.detach()" % (name, name))


def back_of(obj, name):
    """The Back that hands results back as `obj`'s type on its device (a DLPack object: a
    torch tensor, dense or sparse, a CuPy array), or None (numpy, lists, scipy.sparse)."""
    if obj is None or isinstance(obj, np.ndarray) or not hasattr(obj, "__dlpack_device__"):
        return None
    refuse_grad(obj, name)
    lib = sys.modules.get(type(obj).__module__.split(".")[0])
    if not hasattr(lib, "from_dlpack"):
        return None
    try:
        device = obj.__dlpack_device__()
    except Exception:  # noqa: BLE001 (a sparse tensor: its values' device)
        device = getattr(obj, "device", None)
        device = (_KDL_CUDA if getattr(device, "type", "cpu") == "cuda" else _KDL_CPU,
                  getattr(device, "index", None) or 0)
    return Back(lib, device)


def inputs(**named):
    """host_view for each named input; returns ({name: array}, back): back (a Back, or None
    when no input came through DLPack) converts a result to the first DLPack input's type and
    device."""
    out, back = {}, None
    for name, obj in named.items():
        out[name], b = host_view(obj, name)
        back = back or b
    return out, back
