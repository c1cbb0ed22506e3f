"""PyTorch tensors (Debian's python3-torch, CPU) through DLPack: read in place (the same data
pointer, no copy), accepted by all three workloads, and the results handed back as torch
tensors on the caller's device, equal to the numpy calls' and to independent numpy references.
CUDA tensors: test_cuda_dlpack.py (Debian's torch has no CUDA)."""

import numpy as np
import pytest

import simscope
from test_field import reference, rng_sources
from test_oscillators import PARAMS, initial, ring_laplacian, rk4_reference

torch = pytest.importorskip("torch", reason="python3-torch (packages.txt) is not installed")


def test_cpu_tensor_round_trips_with_the_same_data_pointer():
    t = torch.rand(10, 4, dtype=torch.float64)
    # The module's view of the tensor is the tensor's memory.
    assert np.from_dlpack(t).ctypes.data == t.data_ptr()
    r = simscope.field(t, torch.zeros(2, 3, dtype=torch.float64) + 3, backend="cpu")
    assert isinstance(r.potential, torch.Tensor) and tuple(r.potential.shape) == (2,)
    assert r.potential.device == t.device and r.potential.dtype == torch.float32
    # The result tensor is the C++ result's memory (no copy on the way back).
    assert np.from_dlpack(r.potential).ctypes.data == r.potential.data_ptr()
    # The sources were converted once, straight from the tensor's memory.
    assert r.stats["sources_conversions"] == 1 and r.stats["targets_conversions"] == 1


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_field_on_tensors_against_numpy(dtype):
    src = rng_sources(400, seed=3)
    tg = np.random.default_rng(4).uniform(-1.5, 1.5, size=(50, 3))
    ts, tt = torch.tensor(src, dtype=dtype), torch.tensor(tg, dtype=dtype)
    # A transposed (column-major) view of the sources: read through its strides, no copy.
    ts_t = ts.t().contiguous().t()
    assert not ts_t.is_contiguous()
    for sources in (ts, ts_t):
        r = simscope.field(sources, tt, backend="cpu", precision="fp64")
        assert all(isinstance(r[n], torch.Tensor) for n in r)
        assert r.stats["sources_conversions"] == 1
        e, phi = reference(ts.numpy(), tt.numpy().astype(np.float64))
        np.testing.assert_allclose(r.potential.numpy(), phi, rtol=2e-7)
        np.testing.assert_allclose(r.ex.numpy(), e[:, 0], rtol=2e-7, atol=1e-6 * abs(e).max())
        base = simscope.field(src.astype(ts.numpy().dtype), tg.astype(tt.numpy().dtype),
                              backend="cpu", precision="fp64")
        np.testing.assert_array_equal(r.magnitude.numpy(), base.magnitude)


def test_lsq_on_tensors_against_numpy_lstsq():
    rng = np.random.default_rng(5)
    a = rng.normal(size=(20, 3))
    b = rng.normal(size=(20, 4, 5))
    b[rng.uniform(size=b.shape) < 0.2] = np.nan
    r = simscope.lsq(torch.from_numpy(b), torch.from_numpy(a), backend="cpu")
    assert isinstance(r.solution, torch.Tensor) and isinstance(r.status, torch.Tensor)
    assert tuple(r.solution.shape) == (3, 4, 5) and r.solution.dtype == torch.float64
    assert r.count.dtype == torch.int32 and r.status.dtype == torch.uint8
    # The C-order float64 cube was solved in place (borrowed, not copied).
    assert r.stats["cube_copied_bytes"] == 0
    for i in range(4):
        for j in range(5):
            ok = ~np.isnan(b[:, i, j])
            x = np.linalg.lstsq(a[ok], b[ok, i, j], rcond=None)[0]
            np.testing.assert_allclose(r.solution[:, i, j].numpy(), x, rtol=1e-9, atol=1e-12)


def test_oscillators_on_tensors_against_numpy_rk4():
    init = initial()
    r = simscope.oscillators.study(torch.from_numpy(init), backend="cpu", **PARAMS)
    assert all(isinstance(r[n], torch.Tensor) for n in r)
    state, msd, msd_t, _ = rk4_reference(init, ring_laplacian(12, 4), 1.3, 0.7, 0.4, 0.02,
                                         150, 50, 10)
    np.testing.assert_allclose(r.state.numpy(), state, rtol=0, atol=1e-11)
    np.testing.assert_allclose(r.msd.numpy(), msd, rtol=1e-10)
    np.testing.assert_allclose(r.phases.numpy(), np.arctan2(state[..., 1], state[..., 0]),
                               atol=1e-10)
    # The stepping ensemble takes a tensor too, and reaches the same state.
    e = simscope.oscillators.Ensemble(torch.from_numpy(init), backend="cpu", **PARAMS)
    e.advance(150)
    assert isinstance(e.state, torch.Tensor) and isinstance(e.phases, torch.Tensor)
    np.testing.assert_array_equal(e.state.numpy(), r.state.numpy())


def test_bad_tensors_have_the_loaders_messages():
    with pytest.raises(ValueError, match=r"^sources: \(P,4\) or \(P,3\) expected, got \(5, 2\)"):
        simscope.field(torch.zeros(5, 2), torch.zeros(1, 3), backend="cpu")
    bad = torch.zeros(3, 4, dtype=torch.float64)
    bad[1, 2] = float("nan")
    with pytest.raises(ValueError, match="^sources: row 1: non-finite z value"):
        simscope.field(bad, torch.zeros(1, 3), backend="cpu")
    with pytest.raises(ValueError, match="^sources: dtype int32 is not supported"):
        simscope.field(torch.zeros(3, 4, dtype=torch.int32), torch.zeros(1, 3), backend="cpu")
