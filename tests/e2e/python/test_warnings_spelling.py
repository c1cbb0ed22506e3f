"""Python's warnings and refusals: settings that arrays replace are named as not used (lsq's
synth_*, the field's sources_*), every warning spells parameters as the caller typed them (as
the errors do), and simscope.run refuses before computing what headless refuses (the field's
view="error" with method="direct"), with the CLI's message re-spelled."""

import numpy as np
import pytest

import simscope
from simscope._params import python_message


def _problem():
    rng = np.random.default_rng(3)
    return rng.normal(size=(8, 3, 4)), rng.normal(size=(8, 2))


@pytest.mark.parametrize("kwargs,names", [({"synth_height": 7}, "synth_height is"),
                                          ({"synth_noise": 0.5}, "synth_noise is"),
                                          ({"synth_height": 7, "synth_seed": 4},
                                           "synth_height, synth_seed are")])
def test_lsq_arrays_name_the_synthetic_settings_not_used(kwargs, names):
    b, a = _problem()
    r = simscope.lsq(b, a, backend="cpu", **kwargs)
    hits = [w for w in r.warnings if "not used" in w]
    assert hits == ["cube and design are given as arrays, so %s not used (they make the "
                    "synthetic cube, which the given cube replaces)" % names], r.warnings


def test_lsq_arrays_without_synthetic_settings_warn_nothing():
    b, a = _problem()
    assert simscope.lsq(b, a, backend="cpu", lam=0.1).warnings == []


def test_lsq_arrays_dotted_names_stay_dotted():
    b, a = _problem()
    r = simscope.lsq(b, a, backend="cpu", params={"synth.width": 5})
    assert any("so synth.width is not used" in w for w in r.warnings), r.warnings


def test_field_array_sources_count_is_not_used():
    src = np.array([[0.0, 0.0, 0.0, 1.0], [0.5, 0.1, 0.2, -1.0]])
    tgt = np.array([[1.0, 1.0, 1.0]])
    r = simscope.field(src, tgt, backend="cpu", sources_count=10)
    assert "sources are given as an array, so sources_count is not used" in r.warnings, \
        r.warnings
    r = simscope.field(src, tgt, backend="cpu", sources_count=10, sources_seed=2)
    assert "sources are given as an array, so sources_count, sources_seed are not used" in \
        r.warnings, r.warnings


def test_run_warnings_use_the_python_spelling(cli, tmp_path):
    b, a = _problem()
    np.save(tmp_path / "cube.npy", b)
    np.save(tmp_path / "design.npy", a)
    files = {"data_file": str(tmp_path / "cube.npy"), "design_file": str(tmp_path / "design.npy")}
    r = simscope.run("lsq", backend="cpu", synth_height=7, synth_unknowns=2, **files)
    hits = [w for w in r.warnings if "not used" in w]
    assert len(hits) == 1 and hits[0].startswith(
        "data_file is set, so synth_height, synth_unknowns are not used"), r.warnings
    # the CLI's words for the same settings (dotted), re-spelled
    outs, err = cli.run("lsq", {"data.file": files["data_file"],
                                "design.file": files["design_file"], "synth.height": 7,
                                "synth.unknowns": 2})
    assert outs is not None, err
    dotted = hits[0].replace("data_file", "data.file").replace("synth_", "synth.")
    assert dotted in err, (dotted, err)
    assert python_message(dotted, "lsq") == hits[0]


def test_run_refuses_field_error_view_with_direct_method_before_computing(cli):
    calls = []
    with pytest.raises(ValueError) as e:
        simscope.run("field", backend="cpu", view="error", method="direct",
                     progress=calls.append)
    assert calls == []  # refused before computing
    msg = str(e.value)
    assert 'view="error"' in msg and 'method="direct"' in msg, msg
    assert msg == python_message(cli.error("field", {"view": "error", "method": "direct"}),
                                 "field")
    # dotted names given in params: the CLI's own words
    with pytest.raises(ValueError) as e:
        simscope.run("field", backend="cpu", params={"view": "error", "method": "direct"})
    assert str(e.value) == cli.error("field", {"view": "error", "method": "direct"})
