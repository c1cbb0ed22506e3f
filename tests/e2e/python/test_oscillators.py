"""simscope.oscillators against an independent numpy RK4, against the CLI's .npy outputs, the
stepping Ensemble against one study, and bad inputs."""

import numpy as np
import pytest

import simscope
from conftest import same_array


def ring_laplacian(n, k):
    g = np.zeros((n, n))
    for i in range(n):
        for j in range(1, k // 2 + 1):
            g[i, (i + j) % n] = g[(i + j) % n, i] = 1
    return g


def rhs(x, y, g, w, c, e):
    r2 = x * x + y * y
    lap = x @ g.T - g.sum(1) * x  # sum_j G_ij (x_j - x_i), per member (rows)
    return (x - w * y - (x + c * y) * r2 + 0.5 * e * lap,
            y + w * x - (y - c * x) * r2)


def rk4_reference(state, g, w, c, e, dt, steps, transient, every, f=None):
    """The classic RK4 in float64 numpy, with msd / R recorded as model.hpp defines them;
    f: the right-hand side (default rhs, the Laplacian coupling)."""
    f = f or rhs
    x, y = state[..., 0].copy(), state[..., 1].copy()
    msd_sum = np.zeros(len(x))
    msd_t, order_t = [], []
    for step in range(1, steps + 1):
        k1 = f(x, y, g, w, c, e)
        k2 = f(x + 0.5 * dt * k1[0], y + 0.5 * dt * k1[1], g, w, c, e)
        k3 = f(x + 0.5 * dt * k2[0], y + 0.5 * dt * k2[1], g, w, c, e)
        k4 = f(x + dt * k3[0], y + dt * k3[1], g, w, c, e)
        x = x + dt / 6 * (k1[0] + 2 * k2[0] + 2 * k3[0] + k4[0])
        y = y + dt / 6 * (k1[1] + 2 * k2[1] + 2 * k3[1] + k4[1])
        msd = ((x - x.mean(1, keepdims=True)) ** 2).mean(1)
        if step > transient:
            msd_sum += msd
        if step % every == 0:
            msd_t.append(msd.mean())
            order_t.append(np.abs(np.exp(1j * np.arctan2(y, x)).mean(1)).mean())
    return np.stack([x, y], -1), msd_sum / (steps - transient), np.array(msd_t), np.array(order_t)


PARAMS = dict(network_nodes=12, network_topology="ring", network_k=4, ensemble_size=3,
              model_omega=1.3, model_c=0.7, model_coupling=0.4, integrator_dt=0.02,
              integrator_steps=150, integrator_transient=50, record_every=10)


def initial(k=3, n=12, seed=2):
    return np.random.default_rng(seed).normal(size=(k, n, 2))


def test_study_against_numpy_rk4():
    init = initial()
    r = simscope.oscillators.study(init, backend="cpu", **PARAMS)
    state, msd, msd_t, order_t = rk4_reference(init, ring_laplacian(12, 4), 1.3, 0.7, 0.4, 0.02,
                                               150, 50, 10)
    np.testing.assert_allclose(r.state, state, rtol=0, atol=1e-11)
    np.testing.assert_allclose(r.phases, np.arctan2(state[..., 1], state[..., 0]), atol=1e-10)
    np.testing.assert_allclose(r.msd, msd, rtol=1e-10)
    np.testing.assert_allclose(r.msd_t, msd_t, rtol=1e-10)
    np.testing.assert_allclose(r.order_t, order_t, rtol=1e-10)
    assert r.state.dtype == np.float64 and r.msd_t.shape == (15,)


def test_one_initial_state_for_every_member():
    init = initial(k=1)[0]  # (N, 2)
    r = simscope.oscillators.study(init, backend="cpu", **PARAMS)
    np.testing.assert_array_equal(r.state[0], r.state[1])


def test_study_equals_cli(cli, tmp_path):
    sets = {"network.nodes": 20, "ensemble.size": 5, "integrator.steps": 300,
            "integrator.transient": 100, "record.every": 20, "network.topology": "erdos_renyi",
            "network.p": 0.2}
    outs, err = cli.run("oscillators", sets)
    assert outs is not None, err
    r = simscope.oscillators.study(params=sets, backend="cpu")
    assert sorted(r) == sorted(outs)
    for name in outs:
        same_array(r[name], outs[name])
    # and from the CLI's own state.npy as an initial state (init=file) vs the array
    np.save(tmp_path / "init.npy", outs["state"])
    sets2 = dict(sets, init="file", **{"init.file": tmp_path / "init.npy"})
    outs2, err = cli.run("oscillators", sets2, name="cli2")
    assert outs2 is not None, err
    r2 = simscope.oscillators.study(outs["state"], params=sets, backend="cpu")
    for name in outs2:
        same_array(r2[name], outs2[name])


def test_ensemble_steps_equal_one_study():
    init = initial()
    study = simscope.oscillators.study(init, backend="cpu", **PARAMS)
    e = simscope.oscillators.Ensemble(init, backend="cpu", **PARAMS)
    assert (e.members, e.nodes, e.step) == (3, 12, 0)
    parts = [e.advance(n) for n in (37, 0, 63, 50)]
    assert e.step == 150
    np.testing.assert_array_equal(e.state, study.state)
    np.testing.assert_array_equal(e.phases, study.phases)
    np.testing.assert_array_equal(e.msd_mean, study.msd)
    steps = np.concatenate([p["step"] for p in parts])
    np.testing.assert_array_equal(steps, np.arange(10, 151, 10))
    np.testing.assert_allclose(np.concatenate([p["msd"] for p in parts]), study.msd_t,
                               rtol=1e-14)
    assert (np.concatenate([p["finite"] for p in parts]) == 3).all()
    assert e.failed.tolist() == [0, 0, 0]
    with pytest.raises(ValueError, match="steps must be >= 0"):
        e.advance(-1)


def test_bad_inputs(cli, tmp_path):
    bad = initial(k=2)
    np.save(tmp_path / "bad.npy", bad)
    sets = {"network.nodes": 12, "ensemble.size": 3, "init": "file",
            "init.file": tmp_path / "bad.npy"}
    expected = cli.error("oscillators", sets)
    with pytest.raises(ValueError) as e:
        simscope.oscillators.study(bad, network_nodes=12, ensemble_size=3)
    # The CLI's message in the caller's words: the array argument for init.file, the keywords.
    assert "init.file" in expected and "network.nodes = 12" in expected
    assert str(e.value) == expected.replace(str(tmp_path / "bad.npy"), "initial").replace(
        "init.file", "initial").replace("network.nodes", "network_nodes").replace(
        "ensemble.size", "ensemble_size")
    nan = initial()
    nan[1, 4, 1] = np.nan
    with pytest.raises(ValueError, match=r"^initial: initial value nan at \[1, 4, 1\] is not"):
        simscope.oscillators.Ensemble(nan, network_nodes=12, ensemble_size=3)
    for kwargs, sets in [({"network_k": 3}, {"network.k": 3}),
                         ({"integrator_dt": 0.0}, {"integrator.dt": 0}),
                         ({"network_topology": "star"}, {"network.topology": "star"})]:
        expected = cli.error("oscillators", sets)
        (keyword, name), = zip(kwargs, sets)
        assert name in expected
        with pytest.raises(ValueError) as e:
            simscope.oscillators.study(**kwargs)
        assert str(e.value) == expected.replace(name, keyword)


def literal_rhs(d):
    """The reference script's coupling (G.X - d X) e/2, written as the user wrote it."""
    def f(x, y, g, w, c, e):
        r2 = x * x + y * y
        return (x - w * y - (x + c * y) * r2 + 0.5 * e * (x @ g.T - d * x),
                y + w * x - (y - c * x) * r2)
    return f


def test_literal_coupling_against_numpy_rk4(tmp_path):
    """model_coupling_form="literal": (G.X - d X) e/2 on a network whose degrees are not all d
    equals a numpy RK4 of that equation to 1e-12, differs from the Laplacian run, and warns."""
    n = 12
    g = ring_laplacian(n, 2)
    for i, j in [(0, 5), (3, 9), (0, 7)]:  # chords: degrees 2 to 4
        g[i, j] = g[j, i] = 1
    edges = tmp_path / "net.txt"
    edges.write_text("".join("%d %d\n" % (i, j) for i in range(n) for j in range(i + 1, n)
                             if g[i, j]))
    init = initial()
    common = dict(PARAMS, network_topology="file", network_file=str(edges))
    del common["network_k"]
    r = simscope.oscillators.study(init, backend="cpu", model_coupling_form="literal",
                                   model_coupling_degree=2.0, **common)
    state, msd, msd_t, order_t = rk4_reference(init, g, 1.3, 0.7, 0.4, 0.02, 150, 50, 10,
                                               literal_rhs(2.0))
    np.testing.assert_allclose(r.state, state, rtol=0, atol=1e-12)
    np.testing.assert_allclose(r.msd, msd, rtol=1e-12)
    np.testing.assert_allclose(r.msd_t, msd_t, rtol=1e-12)
    assert any(w.startswith('model_coupling_form="literal" subtracts d x_i = 2 x_i at every '
                            "node, but the network's node degrees range from 2 to 4")
               for w in r.warnings), r.warnings
    lap = simscope.oscillators.study(init, backend="cpu", **common)
    assert np.abs(lap.state - r.state).max() > 1e-6  # the forms differ on this graph
    assert not any("coupling_form" in w for w in lap.warnings)


def test_literal_coupling_equals_the_laplacian_on_a_ring():
    """On a ring of degree d the two forms are the same equation: bit for bit, no warning."""
    init = initial()
    lap = simscope.oscillators.study(init, backend="cpu", **PARAMS)
    lit = simscope.oscillators.study(init, backend="cpu", model_coupling_form="literal",
                                     model_coupling_degree=4, **PARAMS)
    same_array(lit.state, lap.state)
    same_array(lit.msd, lap.msd)
    assert not any("coupling_form" in w for w in lit.warnings)
    # d unused with the Laplacian form: the unused-setting warning.
    r = simscope.oscillators.study(init, backend="cpu", model_coupling_degree=3, **PARAMS)
    assert any("model_coupling_degree" in w and "not used" in w for w in r.warnings), r.warnings


def member_rhs(x, y, g, w, c, e):
    """rhs with member k's own network g[k] (K, N, N)."""
    r2 = x * x + y * y
    lap = np.einsum("kij,kj->ki", g, x) - g.sum(2) * x
    return (x - w * y - (x + c * y) * r2 + 0.5 * e * lap,
            y + w * x - (y - c * x) * r2)


def own_networks(k=4, n=12, seed=5):
    """k different symmetric weighted networks with zero diagonals, one with negative weights
    and one with isolated nodes."""
    rng = np.random.default_rng(seed)
    g = np.zeros((k, n, n))
    for m in range(k):
        a = np.triu((rng.random((n, n)) < 0.35) * rng.uniform(0.5, 2.0, (n, n)), 1)
        if m == 1:
            a *= -0.3
        if m == 2:
            a[:, n // 2:] = 0
        g[m] = a + a.T
    return g


def test_own_networks_against_numpy_rk4():
    """networks=(K, N, N): each member integrates its own G; equal to a numpy RK4 with each
    member's G to 1e-11, and the ensemble statistics are over the K members (numpy's mean and
    standard error)."""
    g = own_networks()
    init = initial(k=4)
    common = {k: v for k, v in PARAMS.items()
              if k not in ("network_nodes", "network_topology", "network_k", "ensemble_size")}
    r = simscope.oscillators.study(init, networks=g, backend="cpu", **common)
    state, msd, msd_t, order_t = rk4_reference(init, g, 1.3, 0.7, 0.4, 0.02, 150, 50, 10,
                                               member_rhs)
    np.testing.assert_allclose(r.state, state, rtol=0, atol=1e-11)
    np.testing.assert_allclose(r.msd, msd, rtol=1e-10)
    np.testing.assert_allclose(r.msd_t, msd_t, rtol=1e-10)
    np.testing.assert_allclose(r.order_t, order_t, rtol=1e-10)
    assert r.stats["msd_mean"] == pytest.approx(msd.mean(), rel=1e-10)
    assert r.stats["msd_sem"] == pytest.approx(msd.std(ddof=1) / 2, rel=1e-9)
    assert r.params["ensemble.size"] == 4 and r.params["network.nodes"] == 12
    assert r.warnings == []
    # Every way of giving the same networks gives the same study, bit for bit.
    scipy_sparse = pytest.importorskip("scipy.sparse")
    torch = pytest.importorskip("torch")
    edges = [np.column_stack([*np.nonzero(np.triu(m)), m[np.triu(m) != 0]]) for m in g]
    for given, extra in [(list(g), {}), ([scipy_sparse.csr_matrix(m) for m in g], {}),
                         (torch.tensor(g), {}), ([torch.tensor(m).to_sparse() for m in g], {}),
                         (edges, {"network_nodes": 12}),
                         ([g[0], scipy_sparse.coo_matrix(g[1]), edges[2], g[3]],
                          {"network_nodes": 12})]:
        other = simscope.oscillators.study(init, networks=given, backend="cpu", **common,
                                           **extra)
        same_array(np.asarray(other.state), r.state)
        same_array(np.asarray(other.msd), r.msd)
    # One matrix for every member: as the generated ring.
    ring = simscope.oscillators.study(init, networks=ring_laplacian(12, 4), backend="cpu",
                                      **common)
    generated = simscope.oscillators.study(init, backend="cpu", **dict(PARAMS, ensemble_size=4))
    same_array(ring.state, generated.state)
    # The stepping Ensemble takes them too.
    e = simscope.oscillators.Ensemble(init, networks=g, backend="cpu", **common)
    e.advance(150)
    same_array(e.state, r.state)


def test_own_networks_equal_the_cli_folder_and_stack(cli, tmp_path):
    """The CLI's network.file as a (K, N, N) stack and as a folder of per-member files (natural
    order, .npy and edge lists mixed) gives the Python study's outputs bit for bit."""
    g = own_networks(k=5, n=10)
    init = initial(k=5, n=10)
    np.save(tmp_path / "init.npy", init)
    np.save(tmp_path / "stack.npy", g)
    folder = tmp_path / "nets"
    folder.mkdir()
    for k, name in enumerate(["g1.npy", "g2.txt", "g3.npy", "g9.npy", "g10.txt"]):
        if name.endswith(".txt"):
            i, j = np.nonzero(np.triu(g[k]))
            (folder / name).write_text("".join("%d %d %r\n" % (a, b, g[k][a, b])
                                               for a, b in zip(i, j)))
        else:
            np.save(folder / name, g[k])
    sets = {"network.nodes": 10, "ensemble.size": 5, "network.topology": "file",
            "init": "file", "init.file": tmp_path / "init.npy", "integrator.steps": 200,
            "integrator.transient": 50, "record.every": 20}
    r = simscope.oscillators.study(init, networks=g, backend="cpu", integrator_steps=200,
                                   integrator_transient=50, record_every=20)
    for path, name in [(tmp_path / "stack.npy", "stack"), (folder, "folder")]:
        outs, err = cli.run("oscillators", dict(sets, **{"network.file": path}), name=name)
        assert outs is not None, err
        for out in outs:
            same_array(r[out], outs[out])
    err = cli.error("oscillators", dict(sets, **{"network.file": folder, "ensemble.size": 4}))
    assert "holds 5 network files, one per member, but ensemble.size is 4: set " \
           "ensemble.size=5" in err, err


def test_own_networks_refused_with_one_line():
    g = own_networks()
    cases = [
        (dict(networks=g, ensemble_size=3),
         "networks: 4 networks, one per member, but ensemble_size=3 (leave ensemble_size out"),
        (dict(networks=[np.array([[0, 1], [1, 2], [2, 3]])] * 2),
         "networks: edge lists do not say how many nodes there are; pass network_nodes=N"),
        (dict(networks=g + np.eye(12)), "networks[0]: G[0, 0] = 1 on the diagonal"),
        (dict(networks=np.triu(g)), "networks[0]: G is not symmetric: G["),
        (dict(networks=[g[0], g[1][:11, :11]]), "networks[1]: an adjacency matrix of 11 nodes, but the networks before it have 12"),
        (dict(networks=np.zeros((2, 3, 4))), "networks: a stack of adjacency matrices has shape"),
        (dict(networks=[np.array([[0, 12]])], network_nodes=12),
         "networks[0]: node 12 is out of range: network_nodes = 12 allows 0..11"),
    ]
    for kwargs, start in cases:
        with pytest.raises(ValueError) as e:
            simscope.oscillators.study(integrator_steps=20, integrator_transient=5, **kwargs)
        assert str(e.value).startswith(start), (start, str(e.value))
        assert "\n" not in str(e.value)
    # Settings of generated networks beside networks= are named as not used.
    r = simscope.oscillators.study(networks=g, network_k=6, integrator_steps=20,
                                   integrator_transient=5, backend="cpu")
    assert r.warnings == ["networks are given, so network_k is not used"], r.warnings


def test_initial_state_sets_the_sizes():
    """An initial state (K, N, 2) sets ensemble_size and network_nodes when not given."""
    init = initial(k=6, n=9)
    r = simscope.oscillators.study(init, network_topology="ring", network_k=2,
                                   integrator_steps=30, integrator_transient=10, backend="cpu")
    assert r.state.shape == (6, 9, 2)
    assert r.params["ensemble.size"] == 6 and r.params["network.nodes"] == 9


def test_default_transient_follows_a_short_study():
    """integrator_transient left at its default (5000) with 1000 steps: a quarter (250) is left
    out, as a numpy RK4 of the same study averages it, and a warning says so; a transient the
    caller set is refused as before."""
    init = initial()
    common = {k: v for k, v in PARAMS.items() if k not in ("integrator_steps",
                                                           "integrator_transient")}
    r = simscope.oscillators.study(init, backend="cpu", integrator_steps=1000, **common)
    _, msd, _, _ = rk4_reference(init, ring_laplacian(12, 4), 1.3, 0.7, 0.4, 0.02, 1000, 250, 10)
    np.testing.assert_allclose(r.msd, msd, rtol=1e-10)
    assert r.stats["transient"] == 250 and r.stats["averaged_steps"] == 750
    assert ("integrator_transient: its default 5000 is not below integrator_steps = 1000, so "
            "the time-averaged msd leaves out the first quarter, 250 steps; set "
            "integrator_transient to choose") in r.warnings, r.warnings
    with pytest.raises(ValueError, match="integrator_transient"):
        simscope.oscillators.study(init, backend="cpu", integrator_steps=1000,
                                   integrator_transient=1000, **common)


def test_own_networks_in_one_call_equal_single_calls():
    """The study of K own networks in one call gives each member the bits of its own single
    call (K = 1), as the README's bit-identity statement says (lane groups or one by one)."""
    g = own_networks(k=11, n=12, seed=9)
    init = initial(k=11)
    common = dict(integrator_steps=120, integrator_transient=40, record_every=10,
                  model_coupling=0.6, backend="cpu")
    r = simscope.oscillators.study(init, networks=g, **common)
    for k in range(11):
        one = simscope.oscillators.study(init[k:k + 1], networks=g[k:k + 1], **common)
        same_array(one.state[0], r.state[k])
        same_array(one.msd[0], r.msd[k])
