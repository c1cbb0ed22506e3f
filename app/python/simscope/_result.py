"""Results of simscope's calls: the outputs as numpy arrays (a mapping), with the run's
warnings, stats and timings."""

from collections.abc import Mapping


class Result(Mapping):
    """A run's outputs, name -> numpy array (the CLI's .npy files, same dtype and shape), plus:
    warnings (list of str, the CLI's), stats (dict, run.json's), backend ("cpu"/"cuda"),
    notice (the back-end choice's line, or ""), compute_seconds, total_seconds, params (the
    parameters used, dotted names)."""

    def __init__(self, d, wrap=None):
        """`d`: the dict of simscope._core; `wrap`: applied to each output array (e.g.
        torch.from_dlpack, to hand results back as the caller's type), or None."""
        self._outputs = {k: (wrap(v) if wrap else v) for k, v in d["outputs"].items()}
        self.workload = d["workload"]
        self.warnings = list(d["warnings"])
        self.stats = dict(d["stats"])
        self.backend = d["backend"]
        self.notice = d["notice"]
        self.compute_seconds = d["compute_seconds"]
        self.total_seconds = d["total_seconds"]
        self.params = dict(d["params"])
        # How the inputs reached the back end: "host" (host arrays), "device" (CUDA arrays
        # read in place by the back end) or "staged" (CUDA arrays copied to the host once:
        # stats["host_staging_bytes"]); simscope.field sets it, the others leave "host".
        self.input_route = d.get("input_route", "host")
        # The arrays the call was given (references, not copies: None for a run on the
        # schema's own inputs), for simscope.show(result) to show the same inputs.
        self._inputs = None

    @property
    def outputs(self):
        return self._outputs

    def __getitem__(self, name):
        return self._outputs[name]

    def __iter__(self):
        return iter(self._outputs)

    def __len__(self):
        return len(self._outputs)

    def __getattr__(self, name):
        outputs = self.__dict__.get("_outputs", {})
        if name in outputs:
            return outputs[name]
        raise AttributeError(name)

    def _repr_png_(self):
        """The output the window shows first, as PNG bytes, for Jupyter and IPython (see
        simscope/_picture.py); None where the result has no picture (values at targets)."""
        from ._picture import picture, png  # noqa: PLC0415 (only when a notebook asks)
        rgb = picture(self)
        return None if rgb is None else png(rgb)

    def __repr__(self):
        shapes = ", ".join("%s%s" % (k, tuple(v.shape)) for k, v in self._outputs.items())
        averaged = ""
        if "averaged_steps" in self.stats and "transient" in self.stats:  # a study: its msd's
            averaged = "; msd averaged over steps %d to %d" % (self.stats["transient"] + 1,
                                                               self.stats["steps"])
        return "<simscope %s result on %s: %s%s>" % (self.workload, self.backend, shapes,
                                                      averaged)


class FieldResult(Result):
    """simscope.field's result: magnitude, ex, ey, ez, potential (float32)."""


class LsqResult(Result):
    """simscope.lsq's result: solution, residual, count, status, condition, and stats."""
