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

Scalar parameters may be numpy scalars, 0-d numpy arrays or 0-d torch tensors (their value is
taken). A torch tensor that requires grad, given as an array argument, is a ValueError naming the
argument: simscope computes no gradients (pass tensor.detach(), as tensor.numpy() asks).

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
from ._arrays import refuse_grad as _refuse_grad
from ._arrays import staged as _staged
from ._params import python_messages as _messages
from ._params import python_warnings as _warnings
from ._params import settings as _settings
from . import oscillators  # noqa: F401  (simscope.oscillators.study, .Ensemble)
from ._result import FieldResult, LsqResult, Result
from ._show import show  # the window on a result or arrays (needs simscope._gui)

__all__ = ["params", "workloads", "field", "Sources", "lsq", "run", "cuda_status", "cpu_kernels",
           "oscillators",
           "presets", "preset", "Result", "FieldResult", "LsqResult", "show", "__version__"]
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


def cpu_kernels() -> dict:
    """{"level", "chosen_by", "built"}: the x86-64 level the CPU kernels run at in this process
    (e.g. "x86-64-v4"), why (this CPU's highest, or SIMSCOPE_ISA=v3 set before the import), and
    the levels this build holds. Raises ValueError for a bad SIMSCOPE_ISA (README, "One binary
    for any x86-64 CPU")."""
    return dict(_core.cpu_kernels())


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


def _shape(a):
    """The shape of an array argument as a tuple of ints, or None where it has none."""
    shape = getattr(a, "shape", None)
    if shape is None:
        try:
            shape = np.shape(a)
        except Exception:  # noqa: BLE001 (ragged lists: the readers say what is wrong)
            return None
    return tuple(int(n) for n in shape)


def _check_targets(targets):
    """ValueError for 1-D targets: those are often charges passed where targets go
    (simscope.field(positions, q)), which the (T,3) check alone would not tell."""
    shape = _shape(targets) if targets is not None else None
    if shape is not None and len(shape) == 1:
        raise ValueError("targets: (T,3) points expected, got %s; charges go beside (P,3) "
                         "positions as charges=: simscope.field(positions, targets, charges=q)"
                         % (shape,))


def _charges_vector(charges):
    """`charges` as given, or a (P, 1) column or (1, P) row of them (a table's column, the seeds'
    ``characteristic``) as the (P,) vector it is, of its own type (numpy or torch)."""
    shape = _shape(charges) if charges is not None else None
    if shape is None or len(shape) != 2 or 1 not in shape:
        return charges
    return (charges if hasattr(charges, "reshape") else np.asarray(charges)).reshape(-1)


def _host_charges(charges):
    """charges (after _inputs) as a numpy array for the module, and the bytes copied from CUDA
    memory (0 for host arrays)."""
    if charges is None or isinstance(charges, np.ndarray):
        return charges, 0
    if isinstance(charges, _core.DeviceArray):
        h = charges.to_host()
        return h, h.nbytes
    return np.asarray(charges), 0


def _kept_outputs(d, outputs):
    """d with only the outputs named by `outputs` (a name, names, or None: all); ValueError
    for an unknown name."""
    if outputs is not None:
        names = [outputs] if isinstance(outputs, str) else list(outputs)
        unknown = [n for n in names if n not in d["outputs"]]
        if unknown:
            raise ValueError("outputs: unknown field output '%s' (known: %s)"
                             % (unknown[0], ", ".join(d["outputs"])))
        d["outputs"] = {n: d["outputs"][n] for n in names}
    return d


def field(sources: Any = None, targets: Any = None, *, charges: Any = None,
          backend: str = "auto", progress: Progress = None, params: Params = None,
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
    charges: None, or the strengths q of (P, 3) positions given as `sources`: shape (P,) (or
        a (P, 1) column, or a (1, P) row),
        float32 or float64 (rounded to float32 as a (P, 4) array's column q is: the same
        sources bit for bit). ValueError with a (P, 4) array (it holds q already), for another
        length ("charges: expected (P,) = (1000,), got (999,)"), dtype or a non-finite value.
    targets: None (the plane or box of the schema: plane, plane_offset, grid_size,
        grid_half_width), or an array (T, 3) of x, y, z (float32/float64; converted once, like
        the sources, into float64 columns: stats["targets_conversions"]). A 1-D array raises
        ValueError pointing to charges= (simscope.field(positions, q) passes q as targets).
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
    .stats, .backend, .compute_seconds. stats["method"] is the method that ran ("direct" or
    "tree": method="auto" resolved); for the tree, stats["tree_kept"] is 0 (built by this
    call: a call builds its tree afresh; simscope.Sources keeps it across calls).
    Raises ValueError (bad shape, dtype, non-finite value, unknown keyword, value out of range:
    the CLI's messages, naming "sources"/"targets" where the CLI names the file), RuntimeError
    (device failure), KeyboardInterrupt (Ctrl+C)."""
    s = _settings("field", params, **kwargs)
    _check_targets(targets)
    if charges is not None and sources is None:
        raise ValueError("charges: given without sources; pass (P,3) positions with them: "
                         "simscope.field(positions, targets, charges=q)")
    arrays, back = _inputs(sources=sources, targets=targets, charges=_charges_vector(charges))
    _refuse_cpu_backend(arrays, backend)
    sources, targets = arrays["sources"], arrays["targets"]
    charges, staged = _host_charges(arrays["charges"])
    given = {}
    if sources is not None:
        given["sources.file"] = "sources"
    if targets is not None:
        given["targets.file"] = "targets"
    given = given or None
    with _messages("field", params, arrays=given, typed=bool(kwargs)):
        if sources is None and targets is None:
            d = _core.run("field", s, backend, progress, "")
        else:
            d = _core.field(sources, targets, s, backend, progress, bool(back and back.cuda),
                            charges)
    _warnings(d, "field", params, arrays=given, typed=bool(kwargs))
    d["stats"]["host_staging_bytes"] = d["stats"].get("host_staging_bytes", 0.0) + staged
    result = FieldResult(_kept_outputs(d, outputs), back)
    if sources is not None and not isinstance(sources, _core.DeviceArray):
        result._inputs = {"sources": sources, "charges": charges}  # for simscope.show(result)
    return result


class Sources:
    """A source set kept for many field evaluations, with the tree the tree method builds of it
    (as the window keeps it when the plane moves): the tree is built by the first call whose
    method resolves to "tree" and kept for the next ones, on any targets or plane, and freed
    with the object (or by release()).

        src = simscope.Sources(positions, charges=q, method="tree", tree_tolerance=1e-5)
        r1 = src.field(targets)                      # builds the tree: stats["tree_kept"] 0
        r2 = src.field(plane="xy", plane_offset=0.5) # keeps it: stats["tree_kept"] 1

    sources: (P, 4) x, y, z, q or (P, 3) positions (q = 1, or `charges`), float32 or float64,
        any layout, numpy, a host or CUDA DLPack object (a CUDA one is copied to the host once:
        .host_staging_bytes); positions in units of length. Read once, here, into float32
        columns, as simscope.field reads them (the same checks and messages).
    charges: None or (P,) float32/float64 beside (P, 3) positions, as simscope.field's.
    Keywords: the field schema (k, eps, precision, method, tree_tolerance, plane, grid_size,
        ...) as the defaults of every call, and backend; each call's keywords override them.
        The sources_* settings are not used (the sources are these).
    Each call's result equals simscope.field(sources, targets, charges=charges, **keywords) bit
    for bit (the tree's error is measured and its ladder of tighter settings climbed afresh in
    each call); stats["method"] names the method that ran and, for the tree, stats["tree_kept"]
    is 1 when the tree of an earlier call served (tree_build_seconds is then 0, unless another
    order or precision recomputed the multipoles), 0 when this call built it. Another method or
    back end than the last call's makes a new evaluator, and so a new tree.
    Not for two threads at once: a call while another thread's runs raises RuntimeError. Each
    call computes with the GIL released, as simscope.field. Raises ValueError for bad arrays
    or keywords (simscope.field's messages). .host_staging_bytes: the bytes of CUDA inputs the
    constructor copied to the host."""

    def __init__(self, sources: Any, charges: Any = None, *, backend: str = "auto",
                 params: Params = None, **kwargs: Any):
        if sources is None:
            raise ValueError("sources: expected an array (P,4), or (P,3) positions (the "
                             "schema's generator: simscope.field without sources)")
        _settings("field", params, **kwargs)  # unknown keywords: ValueError now
        self._params, self._kwargs, self._backend = dict(params or {}), dict(kwargs), backend
        arrays, back = _inputs(sources=sources, charges=_charges_vector(charges))
        charges, staged = _host_charges(arrays["charges"])
        with _messages("field", params, arrays={"sources.file": "sources"},
                       typed=bool(kwargs)):
            self._s = _core.FieldSources(arrays["sources"], charges)
        self._back = back  # results as the sources' type (and device), as simscope.field's
        self.host_staging_bytes = float(self._s.staging_bytes + staged)  # CUDA inputs copied

    def field(self, targets: Any = None, *, backend: Optional[str] = None,
              progress: Progress = None, params: Params = None,
              outputs: Union[str, Sequence[str], None] = None, **kwargs: Any) -> FieldResult:
        """The field E and potential phi of these sources at `targets` ((T, 3), as
        simscope.field's), or with targets=None on the schema's plane or box (plane,
        plane_offset, grid_size, grid_half_width). Keywords override the constructor's;
        backend None is the constructor's. Returns a FieldResult as simscope.field does
        (shapes (T,), (n, n) or (6, n, n); units k*q/length^2 and k*q/length), its
        stats["sources_conversions"] 0 (the sources were read by the constructor). Raises
        ValueError, RuntimeError (a device failure, or another thread's call running),
        KeyboardInterrupt (Ctrl+C), as simscope.field."""
        backend = self._backend if backend is None else backend
        merged = {**self._params, **(params or {})}
        typed = bool(self._kwargs or kwargs)
        s = (_settings("field", self._params, **self._kwargs)
             + _settings("field", params, **kwargs))  # later entries win
        _check_targets(targets)
        arrays, back = _inputs(targets=targets)
        _refuse_cpu_backend(arrays, backend)
        given = {"sources.file": "sources"}
        if arrays["targets"] is not None:
            given["targets.file"] = "targets"
        with _messages("field", merged, arrays=given, typed=typed):
            d = self._s.field(arrays["targets"], s, backend, progress, bool(back and back.cuda))
        _warnings(d, "field", merged, arrays=given, typed=typed)
        result = FieldResult(_kept_outputs(d, outputs), back or self._back)
        result._inputs = {"sources": self}  # simscope.show(result) shows these sources
        return result

    def release(self) -> None:
        """Frees the kept tree (and evaluator) now; the next call builds it again. RuntimeError
        while another thread's call runs."""
        self._s.release()

    def __len__(self) -> int:
        return self._s.size

    @property
    def positions(self):
        """(P, 3) float32: the positions as evaluated (float32, as simscope.field reads them)."""
        return self._s.positions

    @property
    def charges(self):
        """(P,) float32: the strengths q as evaluated."""
        return self._s.charges

    def __repr__(self):
        return "<simscope.Sources: %d sources>" % len(self)


def _mask_bits(m, shape, refuse):
    """The mask `m` (numpy) as booleans: bool as it is; integers (uint8, int32, ...) of 0 and 1
    as the CLI's data.mask file takes them; ValueError (refuse) for another shape or dtype, or
    another value (naming its index)."""
    if m.shape != shape or not (m.dtype == np.bool_ or m.dtype.kind in "iu"):
        refuse(m.dtype, m.shape)
    if m.dtype == np.bool_:
        return m
    bad = np.flatnonzero((m != 0) & (m != 1))
    if bad.size:
        idx = np.unravel_index(bad[0], shape)
        raise ValueError("lsq: mask: entry [%s] is %s; expected True/1 where observed, False/0 "
                         "where missing" % (", ".join(map(str, idx)), m[idx]))
    return m.astype(bool)


def _masked(cube, mask):
    """`cube` with NaN where `mask` (the cube's shape, True or 1 = observed; bool, or integers
    of 0 and 1) is False: a numpy copy; for a torch tensor a masked copy on its device; for
    another array library's array (CuPy, JAX: any with __array_namespace__, the Python array
    API standard) a copy made by that library, on its device. A cube without a shape (nested
    lists) is read with numpy.asarray first. ValueError for a mask of another shape or dtype."""
    if not hasattr(cube, "shape"):
        cube = np.asarray(cube)
    shape = tuple(cube.shape)

    def refuse(dtype, got):
        raise ValueError("lsq: mask: expected a boolean array of the cube's shape %s "
                         "(True = observed; or 0/1 integers), got %s %s"
                         % (shape, dtype, tuple(got)))

    namespace = getattr(cube, "__array_namespace__", None)
    torch_cube = type(cube).__module__.startswith("torch")
    if namespace is not None and not isinstance(cube, np.ndarray) and not torch_cube:
        xp = namespace()
        m = xp.asarray(mask)
        if tuple(m.shape) != shape:
            refuse(m.dtype, m.shape)
        if m.dtype != xp.bool:
            m = xp.asarray(_mask_bits(np.asarray(m), shape, refuse))
        if cube.dtype not in (xp.float32, xp.float64):
            return cube
        return xp.where(m, cube, xp.asarray(float("nan"), dtype=cube.dtype))
    if torch_cube:
        import torch  # only when the cube is a torch tensor
        _refuse_grad(cube, "cube")
        m = torch.as_tensor(mask, device=cube.device)
        if m.dtype != torch.bool:
            m = torch.as_tensor(_mask_bits(np.asarray(m.cpu()), shape, refuse), device=cube.device)
        if tuple(m.shape) != shape:
            refuse(m.dtype, m.shape)
        return cube.masked_fill(~m, float("nan")) if cube.is_floating_point() else cube
    m = _mask_bits(np.asarray(mask), shape, refuse)
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
        False is missing, as NaN is, whatever the entry holds (inf too; a NaN where mask is
        True is missing too); 0/1 integers (uint8, int) as the CLI's data.mask file. The cube
        is not changed (a masked copy is solved); a cube of nested lists is read with numpy.
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
    if cube is not None and not isinstance(cube, _core.DeviceArray):
        result._inputs = {"cube": cube, "design": design}  # for simscope.show(result)
    return result
