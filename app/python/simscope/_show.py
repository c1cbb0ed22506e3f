"""simscope.show: the simscope window, opened from Python on a result or on arrays (issue 31).

The window is the ``simscope`` executable's own (app/gui, run_gui), run by the optional
extension module simscope._gui (app/python/py_gui.cpp), which is built only where the window is
(SIMSCOPE_APP=ON: GLFW, Dear ImGui, Qt). simscope._core, and so everything else in the package,
does not need it."""

import importlib.util
import os
import shutil
import sys
import tempfile
import warnings

import numpy as np

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
            "oscillators": ("initial state or networks",
                            "initial); for networks: numpy.save(\"nets.npy\", G), then "
                            "simscope.show(result, network_file=\"nets.npy\", "
                            "network_topology=\"file\"")}.get(result.workload,
                                                                 ("arrays", "arrays"))


def show(*data, workload=None, backend=None, screenshot=None, frames=None, params=None,
         **kwargs):
    """Opens the simscope window (the ``simscope`` executable's) and returns when it is closed.
    The window computes, as the executable's does: what it shows is its own run of the
    workload with the parameters below, which you can then change in its panels.

    data: any of
      - a Result of simscope.run, simscope.field, simscope.lsq or simscope.oscillators.study:
        the window opens on its workload with its parameters (result.params, output shown
        included) and computes it again, on result.backend unless `backend` is given. Arrays
        the call was given (sources, cube and design, initial or networks) are not kept in a
        Result: pass them too, e.g. ``show(result, sources)``; without them ValueError. The
        targets of ``simscope.field(sources, targets)`` cannot be shown: the window shows the
        plane of the parameters (a warning says so). The oscillators run live in the window
        (its panel's Study button runs the study).
      - numpy arrays (or array-likes: lists, PyTorch CPU tensors): each is written to a
        temporary .npy file that the window takes as a file dropped onto it would be: for the
        field, sources (P, 4) x, y, z, q or (P, 3) (sources.file); for lsq a cube (M, H, W)
        (data.file) or a design matrix (M, N) (design.file); for the oscillators an initial
        state (N, 2) or (K, N, 2) (init.file). The files are removed when the window closes.
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
    result, arrays = None, []
    for k, item in enumerate(data):
        if isinstance(item, Result):
            if result is not None:
                raise ValueError("simscope.show: give at most one result")
            result = item
        elif isinstance(item, (str, bytes, os.PathLike)) or item is None:
            raise ValueError("simscope.show: argument %d: expected a simscope result or an "
                             "array, got %r" % (k + 1, item))
        else:
            arrays.append(np.asarray(item))
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
                "simscope.show: this %s result was computed on arrays (%s), which a result "
                "does not keep: pass them as well, e.g. simscope.show(result, %s)"
                % ((workload,) + given))
        if workload == "field" and result.stats.get("targets_conversions", 0) > 0:
            warnings.warn("simscope.show: the window shows the field on the plane of the "
                          "parameters, not at the targets the result was computed at",
                          stacklevel=2)
    workload = workload or "field"
    if backend is None:
        backend = result.backend if result is not None else "auto"
    if backend not in ("auto", "cpu", "cuda"):
        raise ValueError("simscope.show: backend: expected \"auto\", \"cpu\" or \"cuda\", got %r"
                         % (backend,))
    if frames is not None and (int(frames) != frames or frames < 0):
        raise ValueError("simscope.show: frames must be a whole number >= 0, got %r" % (frames,))
    base = [(n, _text(v)) for n, v in result.params.items()] if result is not None else []
    aliases = {"lam": "lambda"} if workload == "lsq" else None  # as simscope.lsq spells it
    given_sets = _settings(workload, params, aliases, **kwargs)  # unknown keywords: ValueError
    gui = _window_module()
    folder = tempfile.mkdtemp(prefix="simscope-show-") if arrays else None
    try:
        inputs = []
        for k, a in enumerate(arrays):  # as files dropped onto the window (app/gui/drop_plan)
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
            _check_display()
            status, interrupted = gui.show(workload, sets, backend,
                                           os.fspath(screenshot) if screenshot else "",
                                           int(frames or 0))
    finally:
        if folder:
            shutil.rmtree(folder, ignore_errors=True)
    if interrupted:
        raise KeyboardInterrupt
    if status != 0:
        raise RuntimeError("simscope.show: the window's last run failed, or its screenshot "
                           "was not written (the reason is on stderr: 'simscope: error: ...')")
