"""simscope.Sources (a source set kept with its tree across field calls) and charges= beside
(P,3) positions: each kept-tree call equals a fresh simscope.field call bit for bit, the stats
say whether the tree was built or kept (never timing), and the error messages."""

import threading

import numpy as np
import pytest

import simscope

P = 20000


def positions_charges(p=P, seed=0):
    rng = np.random.default_rng(seed)
    return rng.uniform(-1, 1, (p, 3)), rng.uniform(0.5, 1.5, p)


def same(a, b):
    """The same outputs (names, dtypes, shapes, values bit for bit)."""
    assert sorted(a) == sorted(b)
    for k in a:
        assert a[k].dtype == b[k].dtype and a[k].shape == b[k].shape, k
        assert np.array_equal(a[k], b[k]) and a[k].tobytes() == b[k].tobytes(), k


def same_tree_stats(a, b):
    """The tree's settings and measured error of two results agree (times aside)."""
    for k in ("method", "tree_order", "tree_theta", "error_samples", "rms_rel_error",
              "max_rel_error", "tolerance_met"):
        assert a.stats.get(k) == b.stats.get(k), k


def test_kept_tree_equals_fresh_calls_on_targets_and_planes():
    pos, q = positions_charges()
    sources = np.c_[pos, q]
    src = simscope.Sources(pos, charges=q, method="tree", backend="cpu")
    assert len(src) == P
    rng = np.random.default_rng(1)
    calls = [dict(targets=rng.uniform(-2, 2, (3000, 3))),
             dict(targets=rng.uniform(-0.5, 0.5, (1000, 3))),   # another target set
             dict(plane="xy", plane_offset=0.0, grid_size=64),   # plane moves
             dict(plane="xy", plane_offset=0.5, grid_size=64),
             dict(plane="xz", plane_offset=-1.5, grid_size=48),
             dict(plane="box", grid_size=16)]
    for i, c in enumerate(calls):
        kept = src.field(**c)
        fresh = simscope.field(sources, method="tree", backend="cpu", **c)
        same(kept, fresh)
        same_tree_stats(kept, fresh)
        assert kept.stats["method"] == "tree"
        assert fresh.stats["tree_kept"] == 0  # simscope.field builds its tree every call
        if i == 0:
            assert kept.stats["tree_kept"] == 0
            assert kept.stats["tree_build_seconds"] > 0
        else:  # the first call's tree served: nothing built
            assert kept.stats["tree_kept"] == 1
            assert kept.stats["tree_build_seconds"] == 0
        assert kept.stats["sources_conversions"] == 0  # read once, by the constructor
        assert kept.warnings == fresh.warnings


def test_settings_changes_keep_or_rebuild_and_equal_fresh_calls():
    pos, q = positions_charges(seed=2)
    sources = np.c_[pos, q]
    tg = np.random.default_rng(3).uniform(-2, 2, (2000, 3))
    src = simscope.Sources(pos, charges=q, backend="cpu", method="tree", tree_tolerance=1e-5)
    # (keywords of the call, the stat tree_kept wanted; None: no tree ran)
    steps = [({}, 0),
             ({"tree_tolerance": 1e-4}, 1),          # another order: multipoles again
             ({"precision": "fp64"}, 1),
             ({"k": -2.5, "eps": 0.01}, 1),
             ({"method": "direct"}, None),            # another method: another evaluator
             ({}, 0),                                 # so the tree is built again
             ({"method": "auto"}, None),              # 4e7 pairs: auto resolves to direct
             ({"method": "auto", "plane": "xy", "grid_size": 224}, 0),  # 1.0e9 pairs: tree
             ({"method": "auto", "plane": "yz", "grid_size": 224}, 1)]
    for kw, kept_flag in steps:
        args = {} if "plane" in kw else {"targets": tg}
        r = src.field(**args, **kw)
        settings = {"method": "tree", "tree_tolerance": 1e-5, **kw}
        fresh = simscope.field(sources, backend="cpu", **args, **settings)
        same(r, fresh)
        assert r.stats["method"] == fresh.stats["method"]
        if kept_flag is None:
            assert r.stats["method"] == "direct" and "tree_kept" not in r.stats, kw
        else:
            assert r.stats["method"] == "tree", kw
            assert r.stats["tree_kept"] == kept_flag, kw
            same_tree_stats(r, fresh)


def test_release_frees_the_tree():
    pos, q = positions_charges(5000)
    src = simscope.Sources(pos, charges=q, method="tree", backend="cpu")
    tg = np.zeros((10, 3)) + 2
    assert src.field(tg).stats["tree_kept"] == 0
    assert src.field(tg).stats["tree_kept"] == 1
    src.release()
    assert src.field(tg).stats["tree_kept"] == 0


def test_constructor_keywords_are_defaults_and_calls_override_them():
    pos, q = positions_charges(3000)
    tg = np.random.default_rng(4).uniform(-2, 2, (50, 3))
    src = simscope.Sources(pos, charges=q, k=3.0, eps=0.05, precision="fp64", backend="cpu")
    same(src.field(tg), simscope.field(pos, tg, charges=q, k=3.0, eps=0.05, precision="fp64"))
    same(src.field(tg, params={"k": 1.5}),
         simscope.field(pos, tg, charges=q, k=1.5, eps=0.05, precision="fp64"))
    r = src.field(tg, outputs="potential")
    assert list(r) == ["potential"]
    # The generator's settings are not used: the sources are the array's.
    r = simscope.Sources(pos, sources_count=5).field(tg)
    assert any("sources_count is not used" in w for w in r.warnings), r.warnings


@pytest.mark.parametrize("pdtype,qdtype", [(np.float64, np.float64), (np.float32, np.float64),
                                            (np.float32, np.float32), (np.float64, np.float32)])
def test_charges_equal_the_p4_form(pdtype, qdtype):
    pos, q = positions_charges(4000, seed=6)
    pos, q = pos.astype(pdtype), q.astype(qdtype)
    p4 = np.c_[pos.astype(np.float64), q.astype(np.float64)]  # the same values, one array
    tg = np.random.default_rng(7).uniform(-2, 2, (300, 3))
    for method in ("direct", "tree"):
        a = simscope.field(pos, tg, charges=q, method=method, backend="cpu")
        b = simscope.field(p4, tg, method=method, backend="cpu")
        same(a, b)
        same(simscope.Sources(pos, charges=q, method=method).field(tg), b)
    src = simscope.Sources(pos, charges=q)
    assert src.charges.dtype == np.float32 and np.array_equal(src.charges, q.astype(np.float32))
    assert np.array_equal(src.positions, pos.astype(np.float32))
    # Strided charges (a column of another array) are read in place.
    same(simscope.field(pos, tg, charges=p4[:, 3]), simscope.field(p4, tg))
    # A list of charges.
    same(simscope.field(pos[:5], tg, charges=list(q[:5])), simscope.field(p4[:5], tg))


def test_charges_as_torch_tensors():
    torch = pytest.importorskip("torch", reason="python3-torch (packages.txt) is not installed")
    pos, q = positions_charges(2000, seed=8)
    tg = np.random.default_rng(9).uniform(-2, 2, (100, 3))
    want = simscope.field(np.c_[pos, q], tg)
    r = simscope.field(torch.from_numpy(pos), torch.from_numpy(tg), charges=torch.from_numpy(q))
    assert isinstance(r.magnitude, torch.Tensor)
    assert np.array_equal(r.magnitude.numpy(), want.magnitude)
    r = simscope.Sources(torch.from_numpy(pos), charges=torch.from_numpy(q)).field(tg)
    assert isinstance(r.potential, torch.Tensor)  # the sources' type, as simscope.field
    assert np.array_equal(r.potential.numpy(), want.potential)


def test_charges_messages():
    pos, q = positions_charges(1000)
    tg = np.zeros((4, 3)) + 2
    # positions and charges passed as sources and targets: pointed to charges=.
    with pytest.raises(ValueError, match=r"^targets: \(T,3\) points expected, got \(1000,\); "
                                         r"charges go beside \(P,3\) positions as charges="):
        simscope.field(pos, q)
    with pytest.raises(ValueError, match=r"^targets: \(T,3\) points expected, got \(1000,\)"):
        simscope.Sources(pos).field(q)
    for make in (lambda c: simscope.field(pos, tg, charges=c),
                 lambda c: simscope.Sources(pos, charges=c)):
        with pytest.raises(ValueError) as e:
            make(q[:-1])
        assert str(e.value) == "charges: expected (P,) = (1000,), got (999,)"
        with pytest.raises(ValueError, match=r"^charges: expected \(P,\) = \(1000,\), "
                                             r"got \(2, 500\)$"):
            make(q.reshape(2, 500))
        with pytest.raises(ValueError, match="^charges: dtype int64 is not supported; "
                                             "expected float32 or float64"):
            make(np.arange(1000))
        bad = q.copy()
        bad[17] = np.nan
        with pytest.raises(ValueError, match="^charges: row 17: non-finite q value"):
            make(bad)
        bad[17] = 1e300
        with pytest.raises(ValueError, match="^charges: row 17: q value .* does not fit in "
                                             "float32"):
            make(bad)
    # (P,4) holds q: charges= as well is refused, naming both.
    for make in (lambda: simscope.field(np.c_[pos, q], tg, charges=q),
                 lambda: simscope.Sources(np.c_[pos, q], charges=q)):
        with pytest.raises(ValueError, match=r"^sources: a \(P,4\) array holds the charges in "
                                             r"its column q, and charges= gives them too"):
            make()
    with pytest.raises(ValueError, match="^charges: given without sources"):
        simscope.field(None, tg, charges=q)
    with pytest.raises(ValueError, match=r"^sources: expected an array"):
        simscope.Sources(None)
    with pytest.raises(ValueError, match=r"^sources: \(P,4\) or \(P,3\) expected"):
        simscope.Sources(np.zeros((5, 2)))
    with pytest.raises(ValueError, match="unknown parameter 'tolerence'"):
        simscope.Sources(pos, tolerence=1e-5)
    with pytest.raises(ValueError, match="^parameter tree_tolerance: "):
        simscope.Sources(pos, tree_tolerance=5).field(tg)


def test_one_call_at_a_time():
    pos, q = positions_charges(2000)
    src = simscope.Sources(pos, charges=q, backend="cpu")
    tg = np.zeros((8, 3)) + 2
    started, tried = threading.Event(), threading.Event()
    errors = []

    def progress(fraction):  # called with the object's call running (at the latest with 1.0)
        started.set()
        tried.wait(30)

    def other():
        started.wait(30)
        try:
            src.field(tg)
        except RuntimeError as e:
            errors.append(str(e))
        finally:
            tried.set()

    t = threading.Thread(target=other)
    t.start()
    r = src.field(tg, progress=progress)
    t.join(30)
    assert errors == ["Sources: another thread is evaluating its field"]
    same(src.field(tg), r)  # usable afterwards
