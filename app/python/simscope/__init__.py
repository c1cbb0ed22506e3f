"""simscope from Python: the three workloads of the simscope lab (the field of point sources,
per-pixel least squares with gaps, Stuart-Landau oscillator ensembles) called on numpy arrays,
with the schema, messages and results of the ``simscope`` command line.

Parameters are the workload's schema (``simscope.params(workload)``, ``simscope --list-params``):
pass each as a keyword argument with its dots written as underscores (``grid_size=64`` for
``grid.size``), or as a dict of dotted names (``params={"grid.size": 64}``). Values are checked
by the same code as ``--set NAME=VALUE``: a bad one raises ValueError with the CLI's message,
its parameters spelled as typed (``parameter grid_size: ...``, ``init="file"``,
``backend="cuda"``; dotted names given in ``params`` stay dotted); an unknown keyword raises it
with the keyword spellings listed (an unknown dotted name in ``params`` with the dotted names).

Every call computes with the GIL released (other Python threads run meanwhile); Ctrl+C cancels
it and raises KeyboardInterrupt; ``progress=f`` calls ``f(fraction)`` (0..1) about every 50 ms
from the calling thread (an exception raised by ``f`` cancels the run and propagates).

Errors: ValueError for bad arguments and inputs (the product's messages), RuntimeError for
device (CUDA) failures, MemoryError when host memory runs out.

Arrays: numpy arrays of any layout; objects with __dlpack__ in host memory (PyTorch CPU
tensors) are read in place (no copy) and the results come back as the caller's type (its
library's from_dlpack, no copy). CUDA arrays (torch CUDA tensors, CuPy arrays) stay where they
are for the field: its direct CUDA evaluator reads sources and targets from the caller's device
memory (any strides, float32/float64, converted on the device; stats["host_staging_bytes"] is
0), after the producer's pending work (``__dlpack__(stream=1)``: see simscope/_arrays.py), and
its results come back as the caller's type on the caller's device without leaving it (CUDA
DLPack over simscope's device memory, kept alive by the tensor). lsq's CUDA solver reads a CUDA
cube in place too (pixels it solves on the host, methods qr/svd and fallbacks, need one host
copy of it: stats["host_staging_bytes"] says how many bytes), and the oscillators' CUDA back end
a CUDA initial state. lsq's design matrix and the field's tree method copy a CUDA input to the
host once (counted there as well); lsq's and the oscillators' results are moved to the caller's
device. A CUDA input with
backend="cpu", or where CUDA is not usable, raises ValueError naming the argument.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Optional, Sequence, Union

import numpy as np

from . import _core
from ._arrays import inputs as _inputs
from ._arrays import refuse_cpu_backend as _refuse_cpu_backend
from ._arrays import staged as _staged
from ._params import python_messages as _messages
from ._params import python_warnings as _warnings
from ._params import settings as _settings
from . import oscillators  # noqa: F401  (simscope.oscillators.study, .Ensemble)
from ._result import FieldResult, LsqResult, Result
from ._show import show  # the window on a result or arrays (needs simscope._gui)

__all__ = ["params", "workloads", "field", "lsq", "run", "cuda_status", "oscillators", "presets",
           "preset", "Result", "FieldResult", "LsqResult", "show", "__version__"]
__version__ = _core.version


Progress = Optional[Callable[[float], Any]]
Params = Optional[Mapping[str, Any]]


def workloads() -> list:
    """The workload names: ["field", "lsq", "oscillators"]."""
    return list(_core.workloads())


def params(workload: str) -> list:
    """The schema of `workload` as a list of dicts, in display order, each with: name (dotted,
    as --set takes it), keyword (the keyword argument: dots as '_'), type ("int", "float",
    "bool", "enum", "path"), default, min and max (inclusive range; None when unbounded),
    choices (enum), unit, help and also (other words for it, e.g. "w" for model.omega; an
    unknown keyword that is one of them is answered "did you mean ..."). Raises ValueError for
    an unknown workload."""
    return list(_core.schema(workload))


def presets() -> list:
    """The names of the presets shipped with simscope: "seed-field", "seed-lsq",
    "seed-lsq-rank", "seed-oscillators" (the original questions; README "Presets")."""
    return list(_core.presets())


def preset(name: str) -> dict:
    """The preset `name` (a shipped one, or a .json file): {"workload", "path", "params"}, with
    params every parameter of the workload (dotted names), e.g.
    ``p = simscope.preset("seed-lsq"); simscope.run(p["workload"], params=p["params"])``.
    Raises ValueError naming the preset (with the nearest names for a misspelt one)."""
    return dict(_core.preset(str(name)))


def cuda_status() -> dict:
    """{"compiled", "usable", "device", "reason", "total_bytes"}: whether backend="cuda" can
    run here."""
    return dict(_core.cuda_status())


def run(workload: str, *, backend: str = "auto", progress: Progress = None,
        params: Params = None, **kwargs: Any) -> Result:
    """Runs `workload` exactly as ``simscope --headless --workload W --set ...`` does (inputs
    from the schema: generators or files). Returns a Result whose ``outputs`` equal the CLI's
    .npy files, and whose warnings are the CLI's with the parameters spelled as typed
    (synth_height). Raises ValueError, before computing, for what headless refuses (e.g. the
    field's view="error" with method="direct")."""
    with _messages(workload, params, typed=bool(kwargs)):
        d = _core.run(workload, _settings(workload, params, **kwargs), backend, progress, "")
    return Result(_warnings(d, workload, params, typed=bool(kwargs)))


def field(sources: Any = None, targets: Any = None, *, backend: str = "auto",
          progress: Progress = None, params: Params = None,
          outputs: Union[str, Sequence[str], None] = None, **kwargs: Any) -> FieldResult:
    """The field E and potential phi of point sources at targets (compute/field/field.hpp):
        E(x)   = k sum_j q_j (y_j - x) / (|y_j - x|^2 + eps^2)^(3/2)
        phi(x) = k sum_j q_j / sqrt(|y_j - x|^2 + eps^2)

    sources: None (the schema's generator, or sources_file), or an array of shape (P, 4)
        x, y, z, q or (P, 3) with q = 1; float32 or float64, any memory layout. Positions in
        units of length. Converted once, read in place through its strides, into the
        evaluators' layout (float32 columns x, y, z, q, like a source file: the evaluators read
        each coordinate contiguously, which a (P, 4) row-major array cannot be borrowed as);
        stats["sources_conversions"] is 1 then (2 for other inputs: lists, byte-swapped arrays,
        which are read into a C-order copy first).
    targets: None (the plane or box of the schema: plane, plane_offset, grid_size,
        grid_half_width), or an array (T, 3) of x, y, z (float32/float64; converted once, like
        the sources, into float64 columns: stats["targets_conversions"]).
    Keywords: the field schema (k, eps, precision="fp32"|"fp64", plane, grid_size, ...; see
        simscope.params("field")); backend "auto" | "cpu" | "cuda"; progress callback;
        outputs: names to keep (default all of magnitude, ex, ey, ez, potential).
    sources and targets may be DLPack objects (torch tensors, CUDA ones included): the results
        are then the caller's type on the caller's device (on the CUDA back end, CUDA tensors
        over simscope's device memory, never copied to the host; see the module's doc). CUDA
        inputs are read in place by the direct CUDA evaluator (any strides; the checks and
        messages of host arrays): stats["host_staging_bytes"] 0 and .input_route "device";
        with the tree method they are copied to the host once ("staged"). ValueError for a
        CUDA input with backend="cpu".
    Warnings (.warnings) spell parameters as typed, like the errors (sources_count).
    Returns a FieldResult: a dict-like of float32 arrays, each of shape (T,) for given targets,
    (n, n) for a plane (index [i, j]: u_i, v_j, as the CLI's .npy) or (6, n, n) for a box;
    units k*q/length^2 (magnitude, ex, ey, ez) and k*q/length (potential). Also .warnings,
    .stats, .backend, .compute_seconds.
    Raises ValueError (bad shape, dtype, non-finite value, unknown keyword, value out of range:
    the CLI's messages, naming "sources"/"targets" where the CLI names the file), RuntimeError
    (device failure), KeyboardInterrupt (Ctrl+C)."""
    s = _settings("field", params, **kwargs)
    arrays, back = _inputs(sources=sources, targets=targets)
    _refuse_cpu_backend(arrays, backend)
    sources, targets = arrays["sources"], arrays["targets"]
    given = {"sources.file": "sources"} if sources is not None else None
    with _messages("field", params, arrays=given, typed=bool(kwargs)):
        if sources is None and targets is None:
            d = _core.run("field", s, backend, progress, "")
        else:
            d = _core.field(sources, targets, s, backend, progress, bool(back and back.cuda))
    _warnings(d, "field", params, arrays=given, typed=bool(kwargs))
    if outputs is not None:
        names = [outputs] if isinstance(outputs, str) else list(outputs)
        unknown = [n for n in names if n not in d["outputs"]]
        if unknown:
            raise ValueError("outputs: unknown field output '%s' (known: %s)"
                             % (unknown[0], ", ".join(d["outputs"])))
        d["outputs"] = {n: d["outputs"][n] for n in names}
    return FieldResult(d, back)


def _masked(cube, mask):
    """`cube` with NaN where the boolean `mask` (the cube's shape, True = observed) is False:
    a numpy copy, or for a torch tensor a masked copy on its device. ValueError for a mask of
    another shape or dtype."""
    shape = tuple(cube.shape)
    if type(cube).__module__.startswith("torch"):
        import torch  # only when the cube is a torch tensor
        m = torch.as_tensor(mask, device=cube.device)
        if m.dtype != torch.bool or tuple(m.shape) != shape:
            raise ValueError("lsq: mask: expected a boolean array of the cube's shape %s "
                             "(True = observed), got %s %s" % (shape, m.dtype, tuple(m.shape)))
        return cube.masked_fill(~m, float("nan")) if cube.is_floating_point() else cube
    m = np.asarray(mask)
    if m.dtype != np.bool_ or m.shape != shape:
        raise ValueError("lsq: mask: expected a boolean array of the cube's shape %s "
                         "(True = observed), got %s %s" % (shape, m.dtype, m.shape))
    c = np.asarray(cube)
    return np.where(m, c, c.dtype.type(np.nan)) if c.dtype.kind == "f" else c


def lsq(cube: Any = None, design: Any = None, *, mask: Any = None, backend: str = "auto",
        progress: Progress = None, params: Params = None, **kwargs: Any) -> LsqResult:
    """Per-pixel least squares with missing data (compute/lsq/lsq.hpp): for each pixel p,
    x_p = argmin sum_{observed i} (A_i . x - b_ip)^2 + lam |x|^2 (minimum norm when not unique).

    cube: array (M, H, W), float32 or float64, NaN marks a missing observation (inf refused);
        any layout (C or Fortran order, slices). Or a flat batch (M, P) of P pixels: the maps
        are then (P,) and the solution (N, P). None: the schema's generator or data_file.
    mask: optional boolean array of the cube's shape, True where an observation is present:
        False is missing, as NaN is (a NaN where mask is True is missing too). The cube is
        not changed (a masked copy is solved).
    design: A, array (M, N) (a 1-D array is one column), any numeric dtype, finite.
        Either may be a DLPack object (a torch tensor, CPU or CUDA): the results are then the
        caller's type on the caller's device (with CUDA inputs on the CUDA back end, the maps
        are assembled on the device and handed out as CUDA tensors over simscope's device
        memory, never copied to the host). A CUDA cube is read in place by the CUDA solver
        (any strides; .input_route "device"); stats["host_staging_bytes"] counts the bytes
        copied to the host (0 unless pixels are solved there: qr/svd, fallbacks, or a CUDA
        design matrix). ValueError for a CUDA input with backend="cpu".
    Keywords: lam (alias of lambda, a Python keyword), method ("auto", "normal", "qr", "svd",
        "downdate"), precision ("fp64" default, "fp32"), the rest of simscope.params("lsq");
        backend, progress.
    Returns an LsqResult with .solution (N, H, W) float64 (float32 with precision="fp32"),
    .residual (H, W) float32 RMS residual, .count (H, W) int32 observed rows, .status (H, W)
    uint8 (0 ok, 1 underdetermined, 2 rank-deficient, 3 all missing), .condition (H, W)
    float32, and .stats (status counts, fallback pixels, ...), as the CLI's files and run.json;
    .warnings as the CLI's, spelled as typed (with arrays, changed synth_* settings are named
    as not used).
    Raises ValueError (shapes that do not match, dtype, inf, bad keyword), RuntimeError."""
    s = _settings("lsq", params, aliases={"lam": "lambda"}, **kwargs)
    if mask is not None:
        if cube is None:
            raise ValueError("lsq: mask is given without a cube (give both)")
        cube = _masked(cube, mask)
    flat = cube is not None and len(getattr(cube, "shape", np.shape(cube))) == 2
    if flat:  # (M, P) -> (M, 1, P): one row of P pixels; the maps come back (P,)
        cube = cube[:, None, :] if hasattr(cube, "shape") else np.asarray(cube)[:, None, :]
    arrays, back = _inputs(cube=cube, design=design)
    _refuse_cpu_backend(arrays, backend)
    # The CUDA solver reads a CUDA cube in place; the design matrix (M, N, small) is read from
    # host memory: a CUDA one is copied (counted in stats["host_staging_bytes"]).
    design_host, staged = _staged({"design": arrays["design"]})
    cube, design = arrays["cube"], design_host["design"]
    if cube is None and design is None:
        with _messages("lsq", params, aliases={"lam": "lambda"}, typed=bool(kwargs)):
            d = _core.run("lsq", s, backend, progress, "")
        _warnings(d, "lsq", params, aliases={"lam": "lambda"}, typed=bool(kwargs))
    elif cube is None or design is None:
        raise ValueError("lsq: give both cube and design (or neither, for the schema's inputs)")
    else:
        with _messages("lsq", params, aliases={"lam": "lambda"},
                       arrays={"data.file": "cube", "design.file": "design"},
                       typed=bool(kwargs)):
            d = _core.lsq(cube, design, s, backend, progress, bool(back and back.cuda))
        _warnings(d, "lsq", params, aliases={"lam": "lambda"},
                  arrays={"data.file": "cube", "design.file": "design"}, typed=bool(kwargs))
        d["stats"]["host_staging_bytes"] += float(staged)
    result = LsqResult(d, back)
    if flat:
        result._outputs = {k: v[..., 0, :] for k, v in result._outputs.items()}
    return result
