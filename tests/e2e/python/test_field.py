"""simscope.field against a float64 numpy sum, against the CLI's .npy outputs, and on bad
inputs (the CLI's messages as ValueError)."""

import numpy as np
import pytest

import simscope
from conftest import same_array


def reference(sources, targets, k=1.0, eps=0.0):
    """E and phi by a float64 numpy sum over every (target, source) pair; sources rounded to
    float32 first (simscope stores them so); q = 1 for (P, 3)."""
    s = np.asarray(sources, dtype=np.float32).astype(np.float64)
    q = s[:, 3] if s.shape[1] == 4 else np.ones(len(s))
    d = s[None, :, :3] - np.asarray(targets, dtype=np.float64)[:, None, :]  # (T, P, 3)
    r2 = (d * d).sum(-1) + eps * eps
    with np.errstate(divide="ignore", invalid="ignore"):
        inv = np.where(r2 > 0, 1 / np.sqrt(r2), 0.0)
    e = k * (q[None, :, None] * d * (inv ** 3)[..., None]).sum(1)
    phi = k * (q[None, :] * inv).sum(1)
    return e, phi


def rng_sources(p, seed=0, cols=4):
    rng = np.random.default_rng(seed)
    s = rng.uniform(-1, 1, size=(p, cols))
    if cols == 4:
        s[:, 3] = rng.uniform(0.5, 1.5, size=p)
    return s


# fp64 sums are rounded once to the float32 outputs (6e-8 relative); fp32 sums carry their own
# error, bounded relative to the largest value (README: 1e-6).
@pytest.mark.parametrize("precision,rtol,tol", [("fp64", 1.2e-7, 1e-12), ("fp32", 0, 1e-6)])
@pytest.mark.parametrize("cols", [3, 4])
def test_targets_against_numpy(precision, rtol, tol, cols):
    src = rng_sources(300, cols=cols)
    tg = np.random.default_rng(1).uniform(-2, 2, size=(57, 3))
    r = simscope.field(src, tg, k=-2.5, eps=0.05, precision=precision, backend="cpu")
    e, phi = reference(src, tg, k=-2.5, eps=0.05)
    scale = np.abs(e).max()
    for c, name in enumerate(["ex", "ey", "ez"]):
        assert r[name].shape == (57,) and r[name].dtype == np.float32
        np.testing.assert_allclose(r[name], e[:, c], rtol=rtol, atol=tol * scale)
    np.testing.assert_allclose(r.magnitude, np.linalg.norm(e, axis=1), rtol=rtol,
                               atol=tol * scale)
    np.testing.assert_allclose(r.potential, phi, rtol=rtol, atol=tol * np.abs(phi).max())
    assert r.stats["sources"] == 300 and r.stats["targets"] == 57


def test_plane_grid_against_numpy():
    src = rng_sources(200, seed=3)
    n, hw, off = 9, 1.5, 0.25
    r = simscope.field(src, plane="xz", grid_size=n, grid_half_width=hw, plane_offset=off,
                       precision="fp64", backend="cpu")
    u = np.linspace(-hw, hw, n)
    ii, jj = np.meshgrid(u, u, indexing="ij")  # [i, j] = (u_i, v_j); xz: x = u, z = v
    tg = np.stack([ii.ravel(), np.full(n * n, off), jj.ravel()], axis=1)
    e, phi = reference(src, tg)
    assert r.ey.shape == (n, n)
    np.testing.assert_allclose(r.ey.ravel(), e[:, 1], rtol=1.2e-7, atol=1e-12 * np.abs(e).max())
    np.testing.assert_allclose(r.potential.ravel(), phi, rtol=1.2e-7)


def test_tree_method_on_arrays_reports_its_measured_error():
    # A source array through the tree method: the result within the tolerance of a float64
    # numpy sum, and the run's stats those of the CLI (method_tree, the sampled error).
    src = rng_sources(4000, seed=5)
    tg = np.random.default_rng(6).uniform(-3, 3, size=(400, 3))
    tg[:, 2] = 4.0  # a plane of targets outside the sources
    r = simscope.field(src, tg, method="tree", tree_tolerance=1e-5, precision="fp64",
                       backend="cpu")
    e, _ = reference(src, tg)
    err = np.sqrt(((np.stack([r.ex, r.ey, r.ez], 1) - e) ** 2).sum() / (e ** 2).sum())
    assert err < 1e-5
    assert r.stats["method_tree"] == 1
    assert 0 <= r.stats["rms_rel_error"] < 1e-5 and r.stats["error_samples"] > 0
    d = simscope.field(src, tg, method="direct", precision="fp64", backend="cpu")
    assert d.stats["method_tree"] == 0 and "rms_rel_error" not in d.stats


def test_coincidence_skipped_and_warned():
    src = np.array([[0.0, 0.0, 0.0, 1.0], [1.0, 0.0, 0.0, 1.0]])
    tg = np.array([[0.0, 0.0, 0.0]])
    r = simscope.field(src, tg, precision="fp64", backend="cpu")
    assert r.stats["skipped_coincidences"] == 1
    assert any("coincidences skipped" in w for w in r.warnings)
    np.testing.assert_allclose(r.ex, [1.0], rtol=1e-12)  # only the source at x = 1


def test_layouts_give_the_same_result():
    src = rng_sources(120, seed=5)
    tg = np.random.default_rng(6).uniform(-1, 1, size=(40, 3))
    base = simscope.field(src, tg, backend="cpu")
    variants = [
        (np.asfortranarray(src), np.asfortranarray(tg)),
        (src.astype(np.float32), tg),  # sources are stored as float32 anyway
        (np.repeat(src, 2, axis=0)[::2], np.repeat(tg, 3, axis=0)[::-3][::-1]),
        (src.astype(">f8"), tg.astype(">f8")),
    ]
    for s, t in variants:
        r = simscope.field(s, t, backend="cpu")
        for name in base:
            same_array(r[name], base[name])
    # a strided view whose rows are every other row of a larger array
    big = np.zeros((240, 6))
    big[::2, 1:5] = src
    r = simscope.field(big[::2, 1:5], tg, backend="cpu")
    same_array(r.magnitude, base.magnitude)


def test_inputs_are_converted_once():
    """A float32/float64 numpy array of any strides is converted once, straight from its memory,
    into the evaluators' layout (the (P, 4) rows cannot be borrowed as the columns they read);
    only inputs numpy must make first (a list, byte-swapped values) take a copy before it."""
    src = rng_sources(50, seed=7)
    tg = np.random.default_rng(8).uniform(-1, 1, size=(6, 3))
    once = [(src, tg), (np.asfortranarray(src), tg[::-1]), (src.astype(np.float32), tg.T.copy().T),
            (np.zeros((100, 6))[::2, 1:5] + src, tg)]
    for s, t in once:
        r = simscope.field(s, t, backend="cpu")
        assert (r.stats["sources_conversions"], r.stats["targets_conversions"]) == (1, 1)
    r = simscope.field(src.tolist(), tg.astype(">f8"), backend="cpu")
    assert (r.stats["sources_conversions"], r.stats["targets_conversions"]) == (2, 2)
    same_array(r.magnitude, simscope.field(src, tg, backend="cpu").magnitude)
    r = simscope.field(targets=None, grid_size=4, backend="cpu")  # generated: none
    assert "sources_conversions" not in r.stats


def test_grid_run_equals_cli(cli):
    sets = {"grid.size": 24, "sources.count": 700, "sources.distribution": "dipoles",
            "eps": 0.01, "plane": "box"}
    outs, err = cli.run("field", sets)
    assert outs is not None, err
    r = simscope.field(params=sets, backend="cpu")
    assert sorted(r) == sorted(outs)
    for name in outs:
        same_array(r[name], outs[name])


def test_source_array_equals_cli_file(cli, tmp_path):
    src = rng_sources(500, seed=9).astype(np.float32)
    np.save(tmp_path / "src.npy", src)
    sets = {"grid.size": 16, "plane": "yz", "plane.offset": 0.3, "precision": "fp64"}
    outs, err = cli.run("field", dict(sets, **{"sources.file": tmp_path / "src.npy"}))
    assert outs is not None, err
    r = simscope.field(src, params=sets, backend="cpu")
    for name in outs:
        same_array(r[name], outs[name])


def test_outputs_selection():
    r = simscope.field(rng_sources(10), np.zeros((2, 3)) + 3, outputs=("potential",),
                       backend="cpu")
    assert list(r) == ["potential"]
    with pytest.raises(ValueError, match="unknown field output 'phi'"):
        simscope.field(rng_sources(10), np.zeros((2, 3)) + 3, outputs="phi")


@pytest.mark.parametrize("kwargs,sets", [
    ({"grid_size": 1}, {"grid.size": 1}),
    ({"eps": -1.0}, {"eps": "-1.0"}),
    ({"precision": "fp16"}, {"precision": "fp16"}),
    ({"k": float("nan")}, {"k": "nan"}),
    ({"plane": "xw"}, {"plane": "xw"}),
    ({"sources_count": 2.5}, {"sources.count": "2.5"}),
])
def test_bad_values_have_the_cli_message(cli, kwargs, sets):
    # The CLI's message, with the parameter spelled as the keyword typed (grid_size for the
    # CLI's grid.size); the CLI's own message keeps its dotted name.
    expected = cli.error("field", sets)
    (keyword, name), = zip(kwargs, sets)
    assert name in expected
    with pytest.raises(ValueError) as e:
        simscope.field(**kwargs)
    assert str(e.value) == expected.replace(name, keyword)
    # Given as a dict of dotted names: the dotted spelling, the CLI's message as it is.
    with pytest.raises(ValueError) as e:
        simscope.field(params=sets)
    assert str(e.value) == expected


def test_unknown_keyword_has_the_cli_message(cli):
    expected = cli.error("field", {"grid.sise": 3})
    with pytest.raises(ValueError) as e:
        simscope.field(params={"grid.sise": 3})
    # With a suggestion the CLI says where the names are listed (issue 42); Python lists them.
    head = "unknown parameter 'grid.sise' for workload 'field' (did you mean 'grid.size'?)"
    assert expected == head + "; --list-params field lists them all"
    assert str(e.value).startswith(head + " (known: sources.file, ")
    # Near none: the CLI adds the view parameters it also takes (view.colormap, ...) to the same
    # list.
    expected = cli.error("field", {"zzzz": 3})
    with pytest.raises(ValueError) as e:
        simscope.field(params={"zzzz": 3})
    assert expected.startswith(str(e.value)[:-1] + "; view parameters")
    # A keyword: the same message, listing the keyword spellings (dots as '_').
    with pytest.raises(ValueError) as e:
        simscope.field(grid_sise=3)
    known = [p["keyword"] for p in simscope.params("field")]
    assert str(e.value) == ("unknown parameter 'grid_sise' for workload 'field' "
                            "(did you mean 'grid_size'?) (known: %s)" % ", ".join(known))
    assert "grid_size" in known and "grid.size" not in str(e.value)
    # lsq's lambda (a Python keyword) is spelled lam.
    with pytest.raises(ValueError, match=r"^unknown parameter 'lamda' for workload 'lsq' "
                                         r"\(did you mean 'lam'\?\) \(known: .*\blam\b") as e:
        simscope.lsq(np.ones((3, 1, 1)), np.ones((3, 1)), lamda=1)
    assert "lambda" not in str(e.value)
    # The users' own words for a parameter name it (simscope.params(w)[i]["also"]).
    with pytest.raises(ValueError, match=r"^unknown parameter 'factor' for workload 'field' "
                                         r"\(did you mean 'k'\?\)"):
        simscope.field(factor=2.0)
    with pytest.raises(ValueError, match=r"^unknown parameter 'w' for workload 'oscillators' "
                                         r"\(did you mean 'model_omega'\?\)"):
        simscope.oscillators.study(w=2.0)
    with pytest.raises(ValueError, match=r"did you mean 'model.coupling'\?"):
        simscope.run("oscillators", params={"e": 0.1})
    # Nothing near: no suggestion.
    with pytest.raises(ValueError) as e:
        simscope.field(colormap="gray")
    assert "did you mean" not in str(e.value)


def test_bad_arrays_have_the_loaders_messages(cli, tmp_path):
    tg = np.zeros((1, 3))
    cases = [np.zeros((5, 2)), np.zeros((0, 4)), np.zeros((3, 4, 1)), np.zeros((4, 4), np.int32)]
    nan = rng_sources(6)
    nan[4, 2] = np.nan
    cases.append(nan)
    big = rng_sources(6)
    big[2, 3] = 1e300
    cases.append(big)
    for i, bad in enumerate(cases):
        np.save(tmp_path / ("bad%d.npy" % i), bad)
        path = str(tmp_path / ("bad%d.npy" % i))
        expected = cli.error("field", {"sources.file": path})
        with pytest.raises(ValueError) as e:
            simscope.field(bad, tg)
        # The CLI names the parameter and the file ("sources.file: PATH: ..."), Python the argument.
        assert str(e.value) == expected.replace("sources.file: " + path, "sources"), \
            (str(e.value), expected)


def test_bad_targets():
    src = rng_sources(4)
    with pytest.raises(ValueError, match=r"^targets: \(T,3\) expected, got \(3, 2\)"):
        simscope.field(src, np.zeros((3, 2)))
    with pytest.raises(ValueError, match="^targets: row 1: non-finite z value"):
        simscope.field(src, np.array([[0, 0, 0], [0, 0, np.inf]]))
    with pytest.raises(ValueError, match="^targets: dtype complex128 is not supported"):
        simscope.field(src, np.zeros((2, 3), complex))
    with pytest.raises(ValueError, match="^sources: dtype object is not supported"):
        simscope.field(object(), np.zeros((2, 3)))


def test_params_lists_the_schema(exe):
    import subprocess
    names = [p["name"] for p in simscope.params("field")]
    text = subprocess.run([exe, "--list-params", "field"], capture_output=True, text=True,
                          timeout=60).stdout
    for name in names:
        assert name in text
    spec = {p["name"]: p for p in simscope.params("field")}
    assert spec["grid.size"]["keyword"] == "grid_size"
    assert spec["grid.size"]["min"] == 2 and spec["grid.size"]["max"] == 4096
    assert spec["precision"]["choices"] == ["fp32", "fp64"]
    assert spec["eps"]["unit"] == "length"
    with pytest.raises(ValueError, match="unknown workload 'nope'"):
        simscope.params("nope")
    assert simscope.workloads() == ["field", "lsq", "oscillators"]


def test_targets_file_in_the_cli_equals_the_array_call(cli, tmp_path, exe):
    """targets.file (.npy (T, 3) or CSV x, y, z): (T,) outputs in the file's order, equal to
    simscope.field with the same points bit for bit and to numpy's float64 sums; outputs.csv
    holds them as a table; the plane's settings beside it are named as not used; the window's
    image refuses scattered points in one line; Python's targets array names the plane's
    settings as not used too."""
    src = rng_sources(400, seed=4).astype(np.float32)
    tg = np.random.default_rng(5).uniform(-2, 2, size=(37, 3))
    np.save(tmp_path / "src.npy", src)
    np.save(tmp_path / "pts.npy", tg)
    np.savetxt(tmp_path / "pts.csv", tg, delimiter=",", header="x,y,z", comments="",
               fmt="%.17g")
    r = simscope.field(src, tg, precision="fp64", backend="cpu")
    e, phi = reference(src, tg)
    np.testing.assert_allclose(r.potential, phi, rtol=1.2e-7)
    for f in ("pts.npy", "pts.csv"):
        sets = {"sources.file": tmp_path / "src.npy", "targets.file": tmp_path / f,
                "precision": "fp64", "grid.size": 64}
        outs, err = cli.run("field", sets, name="out_" + f)
        assert outs is not None, err
        assert "targets.file is set, so grid.size is not used" in err, err
        for name in r:
            assert outs[name].shape == (37,)
            same_array(outs[name], r[name])
        table = np.genfromtxt(tmp_path / ("out_" + f) / "outputs.csv", delimiter=",", names=True)
        assert table.dtype.names == tuple(r)
        for name in r:  # 9 digits: float32 exactly
            same_array(table[name].astype(np.float32), r[name])
    # Python: targets_file= as the CLI; a targets array names the plane's settings as unused.
    via_file = simscope.field(src, targets_file=tmp_path / "pts.npy", precision="fp64",
                              backend="cpu")
    same_array(via_file.magnitude, r.magnitude)
    w = simscope.field(src, tg, grid_size=64, plane="xz", backend="cpu").warnings
    assert any(x.startswith("targets are given as an array, so plane, grid_size are not used")
               for x in w), w
    err = cli.error("field", {"targets.file": tmp_path / "pts.npy", "view": "error"})
    assert err.startswith("view=error draws the tree's error on a plane or box, but "
                          "targets.file gives scattered points"), err
    err = cli.error("field", {"targets.file": tmp_path / "src.npy"})
    assert err == "targets.file: %s: (T,3) expected, got (400, 4) (columns x, y, z)" % (
        tmp_path / "src.npy"), err
