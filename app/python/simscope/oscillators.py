"""Ensembles of K networks of N Stuart-Landau oscillators, integrated with RK4
(compute/oscillators/model.hpp):
    dz_i/dt = (1 + i w) z_i - (1 - i c)|z_i|^2 z_i + (e/2) sum_j G_ij (x_j - x_i)
Keywords are the oscillators schema (simscope.params("oscillators")): network_nodes,
network_topology, network_k, ensemble_size, model_omega, ..., integrator_dt, integrator_steps,
record_every, init, precision. Time is the model's own unit."""

from __future__ import annotations

from typing import Any, Callable, Mapping, Optional

import numpy as np

from . import _core
from . import _networks
from ._arrays import back_of as _back_of
from ._arrays import host_view as _host_view
from ._arrays import refuse_cpu_backend as _refuse_cpu_backend
from ._params import python_messages as _messages
from ._params import python_warnings as _warnings
from ._params import scalar as _scalar
from ._params import settings as _settings
from ._result import Result

__all__ = ["study", "Ensemble"]


def _sized(params, kwargs, initial, networks):
    """(kwargs with network_nodes and ensemble_size taken from the arrays' shapes where the
    caller left them out, the networks' payload for _core or None, notes). A size in `params`
    (a dict, e.g. a preset's, which holds every parameter) that the networks contradict is
    replaced by theirs, with a note saying so; ValueError where the networks disagree with a
    size typed as a keyword (an initial state that does not fit gets the C++ check's message)."""
    names = {"network_nodes": "network.nodes", "ensemble_size": "ensemble.size"}
    nodes = kwargs.get("network_nodes")
    n, k, payload = _networks.entries(networks, None if nodes is None else int(nodes))
    if nodes is None and n is None:
        nodes = (params or {}).get("network.nodes")  # edge lists alone: the dict's N serves
        if payload is not None and nodes is not None:
            n, k, payload = _networks.entries(networks, int(nodes))
    found = {}  # schema keyword -> (value, what said so)
    if n is not None:
        found["network_nodes"] = (n, "networks")
    if k is not None:
        found["ensemble_size"] = (k, "networks")
    shape = tuple(getattr(initial, "shape", ()) or ())
    if initial is not None and len(shape) in (2, 3) and shape[-1] == 2:
        found.setdefault("network_nodes", (int(shape[-2]), "initial"))
        if len(shape) == 3:
            found.setdefault("ensemble_size", (int(shape[0]), "initial"))
    if payload is not None and n is None and nodes is None:
        raise ValueError("networks: edge lists do not say how many nodes there are; pass "
                         "network_nodes=N")
    out, notes, replaced = dict(kwargs), [], []
    for key, (value, source) in found.items():
        typed = kwargs.get(key)
        in_params = (params or {}).get(names[key])
        if typed is None:
            out[key] = value
            if in_params is not None and int(_scalar(in_params)) != value:
                replaced.append("%s = %s" % (names[key], _scalar(in_params)))
        elif int(typed) != value and source == "networks":  # initial: the C++ check's message
            what = "nodes per network" if key == "network_nodes" else "networks, one per member"
            raise ValueError("networks: %d %s, but %s=%s (leave %s out: the networks set it)"
                             % (value, what, key, typed, key))
    if replaced:
        what = " and ".join(replaced)
        notes.append("%s set %s, so params' %s %s not used"
                     % (found["network_nodes"][1] if "network_nodes" in found else "networks",
                        ", ".join("%s = %d" % (names[key], v) for key, (v, _) in found.items()),
                        what, "is" if len(replaced) == 1 else "are"))
    return out, payload, notes


def _initial(initial):
    """`initial` with a pair (x, y) of arrays (a tuple of two arrays of one shape, (N,) or
    (K, N), numpy or torch) stacked into the (..., 2) state the study takes; else unchanged."""
    if not (isinstance(initial, tuple) and len(initial) == 2
            and all(hasattr(a, "shape") for a in initial)):
        return initial
    x, y = initial
    if tuple(x.shape) != tuple(y.shape) or len(x.shape) not in (1, 2):
        raise ValueError("initial: a pair (x, y) takes two arrays of one shape, (N,) or (K, N), "
                         "got %s and %s" % (tuple(x.shape), tuple(y.shape)))
    if _networks._is_torch(x) and _networks._is_torch(y):
        import torch  # noqa: PLC0415 (only for torch inputs)
        return torch.stack([x, y], dim=-1)
    return np.stack([np.asarray(x), np.asarray(y)], axis=-1)


def study(initial: Any = None, *, networks: Any = None, backend: str = "auto",
          progress: Optional[Callable[..., Any]] = None,
          params: Optional[Mapping[str, Any]] = None, **kwargs: Any) -> Result:
    """Integrates every member integrator_steps steps from its initial state (a headless
    study, as ``simscope --headless --workload oscillators``).

    initial: None (the schema's init: random, uniform_phase or init_file), or an array of
        shape (N, 2) [x, y] for every member or (K, N, 2) per member (float32/float64, finite),
        or x and y apart as a tuple (x, y) of two arrays of one shape, (N,) or (K, N);
        a DLPack object (a torch tensor, CPU or CUDA) gives results of its type on its device;
        a CUDA one is read in place by the CUDA back end (any strides; .input_route "device",
        stats["host_staging_bytes"] 0); ValueError with backend="cpu". Its shape sets
        network_nodes (and ensemble_size for (K, N, 2)) when they are not given.
    networks: None (the schema's network_topology), or your own: a (K, N, N) stack of
        adjacency matrices, one per member (numpy or torch); a list of K networks, each an
        (N, N) matrix (dense, scipy.sparse or torch sparse) or an edge list (E, 2) / (E, 3) of
        0-based i, j[, weight]; or one matrix or edge list for every member. Matrices must be
        symmetric with a zero diagonal; G_ij is the coupling weight. Sets ensemble_size = K and
        network_nodes = N (edge lists alone need network_nodes); where `params` (e.g. a
        preset's, which holds every parameter) says otherwise, the networks' sizes win and
        .warnings says so (a keyword typed otherwise is a ValueError). Torch networks give
        torch results. The study, its per-member results and the ensemble statistics over the
        K networks are those of generated ones.
    Scalar parameters may be numbers of an array library: numpy scalars, 0-d arrays and 0-d
        torch tensors. A torch tensor that requires grad as an array argument is a ValueError
        naming it (simscope computes no gradients: pass tensor.detach()).
    progress: ``f(fraction)``, or ``f(fraction, info)`` when f has a second parameter without a
        default (or *args): info is None until the rate is measured, then {"rate": osc-steps/s,
        "unit": "osc-steps", "eta_s": seconds left, "total_s": the whole study's seconds at that
        rate}.
    Returns a Result with msd (K,) time-averaged mean square deviation over steps
    integrator_transient + 1 to integrator_steps (stats["transient"], stats["averaged_steps"];
    NaN: member went non-finite), msd_t and order_t (T,) ensemble means every record_every
    steps, phases (K, N) final theta in (-pi, pi], state (K, N, 2) final x, y; all float64.
    Raises ValueError (bad keyword or array, with the CLI's messages), RuntimeError."""
    user_initial, user_networks = initial, networks
    initial, back = _host_view(_initial(initial), "initial")
    back = back or _back_of(networks, "networks")  # torch networks: torch results
    _refuse_cpu_backend({"initial": initial}, backend)
    given = _given(initial, networks)
    typed = bool(kwargs)
    with _messages("oscillators", params, arrays=given, typed=typed):
        kwargs, payload, notes = _sized(params, kwargs, initial, networks)
        s = _settings("oscillators", params, **kwargs)
        if initial is None and payload is None:
            d = _core.run("oscillators", s, backend, progress, "study")
        else:  # a CUDA initial state is read in place by the CUDA back end (input_route "device")
            d = _core.oscillators_study(initial, s, backend, progress, payload)
    d = _warnings(d, "oscillators", params, arrays=given, typed=typed)
    d["warnings"] = notes + d["warnings"]
    result = Result(d, back)
    result._inputs = {"initial": user_initial, "networks": user_networks}
    return result


def _given(initial, networks):
    """The file parameters that array arguments replace, for the messages' spelling."""
    given = {}
    if initial is not None:
        given["init.file"] = "initial"
    if networks is not None:
        given["network.file"] = "networks"
    return given or None


class Ensemble:
    """An ensemble being integrated step by step (the schema's network or your own networks=,
    as for study(); initial state, model, integrator_dt, integrator_transient and
    record_every; integrator_steps is not used).

        e = simscope.oscillators.Ensemble(network_nodes=64, ensemble_size=8)
        series = e.advance(1000)      # {"step", "msd", "order", "finite"}: (T,) arrays
        e.phases                      # (K, N) float64 theta
    Arrays come back as numpy arrays, or as the initial state's (or the networks') type on its
    device when it was given as a DLPack object (a torch tensor). .notes: the sizes the arrays
    set over a `params` dict's (as a study's .warnings say them). Not for two threads at once
    (RuntimeError)."""

    def __init__(self, initial: Any = None, *, networks: Any = None, backend: str = "auto",
                 params: Optional[Mapping[str, Any]] = None, **kwargs: Any):
        initial, back = _host_view(_initial(initial), "initial")
        back = back or _back_of(networks, "networks")
        _refuse_cpu_backend({"initial": initial}, backend)  # a CUDA one: read in place
        given = _given(initial, networks)
        with _messages("oscillators", params, arrays=given, typed=bool(kwargs)):
            kwargs, payload, self.notes = _sized(params, kwargs, initial, networks)
            self._e = _core.Ensemble(_settings("oscillators", params, **kwargs), backend,
                                     initial, payload)
        self._wrap = back or (lambda a: a)  # results as the initial state's type and device

    def advance(self, steps: int, *, progress: Optional[Callable[[float], Any]] = None) -> dict:
        """Advances every member by `steps` RK4 steps of integrator_dt; returns the samples
        taken (after each global step g with g % record_every == 0) as a dict of (T,) arrays:
        step (int64), msd and order (float64 ensemble means over the finite members), finite
        (int64 members in the means). GIL released; Ctrl+C stops at a chunk boundary (the
        state stays consistent) and raises KeyboardInterrupt."""
        return {k: self._wrap(v) for k, v in self._e.advance(int(steps), progress).items()}

    @property
    def step(self):
        """Steps done since the start."""
        return self._e.step

    @property
    def state(self):
        """(K, N, 2) float64: x, y of every oscillator."""
        return self._wrap(self._e.state)

    @property
    def phases(self):
        """(K, N) float64: theta = atan2(y, x) in (-pi, pi]."""
        return self._wrap(self._e.phases)

    @property
    def msd_mean(self):
        """(K,) float64: each member's time-averaged msd over the steps after the transient
        (NaN while none is past it, or for a failed member)."""
        return self._wrap(self._e.msd_mean)

    @property
    def failed(self):
        """(K,) uint8: 1 where a member's state went non-finite."""
        return self._wrap(self._e.failed)

    members = property(lambda self: self._e.members, doc="K")
    nodes = property(lambda self: self._e.nodes, doc="N")
    backend = property(lambda self: self._e.backend, doc='"cpu" or "cuda"')
    params = property(lambda self: dict(self._e.params), doc="the parameters (dotted names)")
