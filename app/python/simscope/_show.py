"""simscope.show: the simscope window, opened from Python on a result or on arrays (issue 31).

The window is the ``simscope`` executable's own (app/gui, run_gui), run by the optional
extension module simscope._gui (app/pygui/py_gui.cpp), which is built only where the window is
(SIMSCOPE_APP=ON: GLFW, Dear ImGui, Qt). simscope._core, and so everything else in the package,
does not need it."""

import importlib.util
import os
import shutil
import sys
import tempfile
import warnings

import numpy as np

from ._arrays import refuse_grad
from ._params import python_messages as _messages
from ._params import settings as _settings
from ._params import text as _text
from ._result import Result

_NO_DISPLAY = "(no display; under SSH use X forwarding, or xvfb-run)"


def _window_module():
    """simscope._gui, or RuntimeError saying why there is no window."""
    if importlib.util.find_spec(__package__ + "._gui") is None:
        raise RuntimeError(
            "simscope.show: this simscope was built without the window (SIMSCOPE_APP=OFF, as "
            "`pip install` builds it): build simscope with its app (cmake -DSIMSCOPE_APP=ON, "
            "the default), or open results in the simscope executable")
    try:
        from . import _gui  # noqa: PLC0415
    except ImportError as e:
        raise RuntimeError("simscope.show: cannot load the window's module simscope._gui: %s"
                           % e) from None
    return _gui


def _check_display():
    """RuntimeError, in one line, where no window can open: Linux/BSD without an X or Wayland
    display (GLFW itself is asked otherwise, and where a display is named but absent)."""
    if sys.platform.startswith(("darwin", "win", "cygwin")):
        return
    if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
        raise RuntimeError("simscope.show: cannot open a window: neither DISPLAY nor "
                           "WAYLAND_DISPLAY is set " + _NO_DISPLAY)


def _array_inputs(result):
    """The arrays a result was computed on, as the message of show() names them: (what, the
    arguments to pass), or None for a result of the schema's own inputs (generators or files),
    which the window recomputes as they were. The array calls (_core.field, _core.lsq,
    _core.oscillators_study) add stats["host_staging_bytes"], which _core.run's results do not
    have; the field counts its conversions of each input."""
    stats = result.stats
    if result.workload == "field":
        return ("sources", "sources") if stats.get("sources_conversions", 0) > 0 else None
    if "host_staging_bytes" not in stats:
        return None
    return {"lsq": ("cube and design matrix", "cube, design"),
            "oscillators": ("initial state or networks", "initial, networks")
            }.get(result.workload, ("arrays", "arrays"))


def _numpy(item, what):
    """An array argument of show() as numpy (lists, torch CPU tensors); ValueError naming it for
    a tensor that requires grad."""
    refuse_grad(item, what)
    try:
        return np.asarray(item)
    except (TypeError, ValueError, RuntimeError) as e:  # a CUDA tensor, a ragged list
        raise ValueError("simscope.show: %s: expected an array in host memory (numpy, lists, a "
                         "CPU tensor: tensor.cpu()), got %s (%s)" % (what, type(item).__name__, e)
                         ) from None


def _with_charges(positions, charges, what):
    """(P, 4) x, y, z, q of (P, 3) positions and (P,) charges (a (P, 1) column too)."""
    q = _numpy(charges, "charges").reshape(-1) if np.ndim(charges) == 2 else _numpy(charges,
                                                                                    "charges")
    if positions.ndim != 2 or positions.shape[1] != 3 or q.shape != (positions.shape[0],):
        raise ValueError("simscope.show: charges: expected (P,) beside (P, 3) positions, got "
                         "%s beside %s %s" % (q.shape, what, positions.shape))
    return np.column_stack([positions, q])


def _sources_of(src):
    """(P, 4) float32 x, y, z, q of a simscope.Sources (as it evaluates them)."""
    return np.column_stack([src.positions, src.charges])


def _dense_networks(g):
    """The user's networks as a dense (K, N, N) or (N, N) array for the window's network.file,
    or ValueError for edge lists (the window reads those from a .txt file)."""
    if hasattr(g, "toarray"):  # scipy.sparse
        return np.asarray(g.toarray())
    if type(g).__module__.split(".")[0] == "torch":
        refuse_grad(g, "networks")
        g = g.detach().cpu()
        return (g.to_dense() if g.layout != __import__("torch").strided else g).numpy()
    if isinstance(g, (list, tuple)):
        parts = [_dense_networks(a) for a in g]
        if all(p.ndim == 2 and p.shape[0] == p.shape[1] for p in parts):
            return np.stack(parts)
        raise ValueError("simscope.show: networks given as edge lists: pass them as adjacency "
                         "matrices (K, N, N), or as an edge-list file (network_file=...)")
    return np.asarray(g)


def _is_networks(a):
    """An oscillators array that is networks (N, N) or (K, N, N), not an initial state (N, 2) or
    (K, N, 2)."""
    return a.ndim in (2, 3) and a.shape[-1] == a.shape[-2] and a.shape[-1] != 2


def _kept_arrays(result):
    """The arrays the result's call was given, as show() takes them, or [] (a result of the
    schema's inputs, or of CUDA arrays, which the result does not keep)."""
    inputs = result._inputs or {}
    if result.workload == "field" and inputs.get("sources") is not None:
        src = inputs["sources"]
        if hasattr(src, "positions") and hasattr(src, "charges"):  # simscope.Sources
            return [_sources_of(src)]
        src = _numpy(src, "sources")
        q = inputs.get("charges")
        return [_with_charges(src, q, "sources") if q is not None else src]
    if result.workload == "lsq" and inputs.get("cube") is not None:
        design = _numpy(inputs["design"], "design")
        if design.ndim == 1:  # one column, as simscope.lsq reads it
            design = design.reshape(-1, 1)
        return [_numpy(inputs["cube"], "cube"), design]
    if result.workload == "oscillators":
        out = []
        if inputs.get("initial") is not None:
            init = inputs["initial"]
            if isinstance(init, tuple) and len(init) == 2:  # (x, y)
                init = np.stack([_numpy(init[0], "initial"), _numpy(init[1], "initial")], -1)
            out.append(_numpy(init, "initial"))
        if inputs.get("networks") is not None:
            out.append(_dense_networks(inputs["networks"]))
        return out
    return []


def _arrays_of(data, charges):
    """(the Result among `data` or None, the arrays among them as numpy): a simscope.Sources as
    its (P, 4) sources; ValueError for anything else."""
    result, arrays = None, []
    for k, item in enumerate(data):
        if isinstance(item, Result):
            if result is not None:
                raise ValueError("simscope.show: give at most one result")
            result = item
        elif hasattr(item, "positions") and hasattr(item, "charges") and hasattr(item, "field"):
            arrays.append(_sources_of(item))  # a simscope.Sources
        elif isinstance(item, (str, bytes, os.PathLike)) or item is None:
            raise ValueError("simscope.show: argument %d: expected a simscope result or an "
                             "array, got %r" % (k + 1, item))
        else:
            arrays.append(_numpy(item, "argument %d" % (k + 1)))
    if result is not None and not arrays:
        arrays = _kept_arrays(result)
    elif (result is not None and result.workload == "field" and charges is None
          and len(arrays) == 1 and arrays[0].ndim == 2 and arrays[0].shape[1] == 3):
        # show(result, positions): the charges the result was computed with, when it has them
        kept = _kept_arrays(result)
        if kept and kept[0].shape == (arrays[0].shape[0], 4):
            charges = kept[0][:, 3]
    if charges is not None:
        field_ones = [k for k, a in enumerate(arrays) if a.ndim == 2 and a.shape[1] == 3]
        if len(field_ones) != 1:
            raise ValueError("simscope.show: charges= goes with one (P, 3) positions array, got "
                             "%s" % ([a.shape for a in arrays],))
        k = field_ones[0]
        arrays[k] = _with_charges(arrays[k], charges, "positions")
    return result, arrays


def plan(*data, workload=None, backend=None, params=None, charges=None, folder=None, **kwargs):
    """What show() gives the window, without opening it: (workload, ["NAME=VALUE", ...],
    backend). Arrays are written as .npy files into `folder` (they must outlive the window);
    ValueError for what show() refuses. See show()."""
    result, arrays = _arrays_of(data, charges)
    if result is not None:
        if workload is not None and workload != result.workload:
            raise ValueError("simscope.show: workload=%r, but the result is of workload %r"
                             % (workload, result.workload))
        workload = result.workload
        given = _array_inputs(result)
        # Files named in the call stand for the arrays (network_file=..., init_file=...).
        files = (any(k.endswith("_file") for k in kwargs) or
                 any(str(n).endswith(".file") for n in (params or {})))
        if given and not arrays and not files:
            raise ValueError(
                "simscope.show: this %s result was computed on arrays (%s) that it does not "
                "keep (CUDA arrays): pass them as well, e.g. simscope.show(result, %s)"
                % ((workload,) + given))
        if workload == "field" and result.stats.get("targets_conversions", 0) > 0:
            warnings.warn("simscope.show: the window shows the field on the plane of the "
                          "parameters, not at the targets the result was computed at",
                          stacklevel=3)
    workload = workload or "field"
    if backend is None:
        backend = result.backend if result is not None else "auto"
    if backend not in ("auto", "cpu", "cuda"):
        raise ValueError("simscope.show: backend: expected \"auto\", \"cpu\" or \"cuda\", got %r"
                         % (backend,))
    base = [(n, _text(v)) for n, v in result.params.items()] if result is not None else []
    aliases = {"lam": "lambda"} if workload == "lsq" else None  # as simscope.lsq spells it
    given_sets = _settings(workload, params, aliases, **kwargs)  # unknown keywords: ValueError
    gui = _window_module()
    inputs = []
    for k, a in enumerate(arrays):  # as files dropped onto the window (app/gui/drop_plan)
        if workload == "oscillators" and _is_networks(a):  # the user's own networks
            path = os.path.join(folder, "networks%d.npy" % (k + 1))
            np.save(path, a.astype(np.float64), allow_pickle=False)
            inputs += [("network.topology", "file"), ("network.file", path),
                       ("network.nodes", str(a.shape[-1]))]
            if a.ndim == 3:
                inputs.append(("ensemble.size", str(a.shape[0])))
            continue
        path = os.path.join(folder, "array%d.npy" % (k + 1))
        np.save(path, a, allow_pickle=False)
        try:
            _, sets = gui.plan_input(path, workload)
        except ValueError as e:
            raise ValueError("simscope.show: array %d: %s" % (k + 1, e)) from None
        inputs += sets
    sets = ["%s=%s" % nv for nv in base + inputs + given_sets]
    with _messages(workload, params, aliases, typed=bool(kwargs)):
        gui.check(workload, sets, backend)  # the values, before asking for a display
    return workload, sets, backend


def show(*data, workload=None, backend=None, screenshot=None, frames=None, params=None,
         charges=None, **kwargs):
    """Opens the simscope window (the ``simscope`` executable's) and returns when it is closed.
    The window computes, as the executable's does: what it shows is its own run of the
    workload with the parameters below, which you can then change in its panels.

    data: any of
      - a Result of simscope.run, simscope.field, simscope.lsq, simscope.oscillators.study or
        simscope.Sources.field: the window opens on its workload with its parameters
        (result.params, output shown included) and computes it again, on result.backend
        unless `backend` is given, on the arrays the call was given (a result keeps references
        to them: sources and charges, the Sources object, cube and design, initial state and
        networks). Arrays passed beside it replace those (``show(result, positions)`` keeps
        the result's charges when it has as many). A result computed on CUDA arrays keeps
        none: without them ValueError. The targets of ``simscope.field(sources, targets)``
        cannot be shown: the window shows the plane of the parameters (a warning says so).
        The oscillators run live in the window (its panel's Study button runs the study).
      - a simscope.Sources: its sources.
      - numpy arrays (or array-likes: lists, PyTorch CPU tensors): each is written to a
        temporary .npy file that the window takes as a file dropped onto it would be: for the
        field, sources (P, 4) x, y, z, q or (P, 3) (sources.file); for lsq a cube (M, H, W)
        (data.file) or a design matrix (M, N) (design.file); for the oscillators an initial
        state (N, 2) or (K, N, 2) (init.file) or networks, (N, N) or (K, N, N) adjacency
        matrices (network.file, network.topology=file). The files are removed when the window
        closes.
    charges: (P,) (or a (P, 1) column) beside (P, 3) positions, as simscope.field's charges=.
    workload: "field" (default with no Result), "lsq" or "oscillators"; a Result's own by
        default (another one is refused).
    params / keywords: parameters, as in simscope.run (grid_size=64 or {"grid.size": 64}; the
        view's, e.g. {"view.colormap": "viridis"}, in params), applied over the Result's.
    backend: "auto", "cpu" or "cuda".
    screenshot: a .png path: once the first full result is shown (and `frames` more frames, 2
        by default), the window is saved there, as its S key saves it, and closes.
    frames: N: the window closes N frames after the first full result (for scripts and tests).

    The window's log lines ("simscope: ...") go to stderr, as the executable's do. The GIL is
    released while it is open. Ctrl+C closes it and raises KeyboardInterrupt.
    Raises RuntimeError when no window can open ("simscope.show: cannot open a window: ...":
    no display, e.g. over SSH without X forwarding; use xvfb-run to run headless), or when
    simscope was built without the window (SIMSCOPE_APP=OFF, as pip builds it); with
    screenshot or frames, when the last run failed or the screenshot was not written (the
    reason is on stderr); ValueError for bad arguments and parameters (the CLI's messages)."""
    if frames is not None and (int(frames) != frames or frames < 0):
        raise ValueError("simscope.show: frames must be a whole number >= 0, got %r" % (frames,))
    gui = _window_module()
    folder = tempfile.mkdtemp(prefix="simscope-show-")
    try:
        workload, sets, backend = plan(*data, workload=workload, backend=backend, params=params,
                                       charges=charges, folder=folder, **kwargs)
        _check_display()
        status, interrupted = gui.show(workload, sets, backend,
                                       os.fspath(screenshot) if screenshot else "",
                                       int(frames or 0))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    if interrupted:
        raise KeyboardInterrupt
    if status != 0:
        raise RuntimeError("simscope.show: the window's last run failed, or its screenshot "
                           "was not written (the reason is on stderr: 'simscope: error: ...')")
