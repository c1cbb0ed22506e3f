"""The networks= argument of simscope.oscillators: the caller's own graphs as the entries the
C++ side builds its networks from (compute/oscillators/given_networks.hpp, which checks them:
symmetry, zero diagonal, finite weights, node range)."""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ._arrays import refuse_grad


def _is_scipy_sparse(a: Any) -> bool:
    return hasattr(a, "tocoo") and hasattr(a, "nnz")


def _is_torch(a: Any) -> bool:
    return type(a).__module__.split(".")[0] == "torch"


def _numpy(a: Any, where: str) -> np.ndarray:
    """A dense array (numpy, torch on any device, nested lists) as numpy."""
    if _is_torch(a):
        refuse_grad(a, where)
        a = a.detach()
        if a.layout != __import__("torch").strided:
            a = a.to_dense()
        a = a.cpu().numpy()
    try:
        out = np.asarray(a)
    except (TypeError, ValueError) as e:
        raise ValueError("%s: expected an adjacency matrix (N, N), a stack (K, N, N) or an edge "
                         "list (E, 2) / (E, 3), got %s (%s)" % (where, type(a).__name__, e)) \
            from None
    if out.dtype == object or not (np.issubdtype(out.dtype, np.number) or out.dtype == bool):
        raise ValueError("%s: expected numbers, got dtype %s" % (where, out.dtype))
    return out


def _sparse_entries(a: Any, where: str):
    """(n, i, j, w) of a scipy.sparse or torch sparse matrix: its stored nonzero entries."""
    if _is_torch(a):
        refuse_grad(a, where)
        c = a.detach().cpu().coalesce()
        idx = c.indices().numpy()
        n0, n1 = c.shape
        i, j, w = idx[0], idx[1], c.values().numpy().astype(np.float64)
    else:
        c = a.tocoo()
        c.sum_duplicates()
        (n0, n1), i, j, w = c.shape, c.row, c.col, np.asarray(c.data, dtype=np.float64)
    if n0 != n1:
        raise ValueError("%s: an adjacency matrix must be square, got shape (%d, %d)"
                         % (where, n0, n1))
    return int(n0), i, j, w


def _is_sparse(a: Any) -> bool:
    return _is_scipy_sparse(a) or (_is_torch(a) and
                                   a.layout != __import__("torch").strided)


def _one(a: Any, where: str, nodes: Optional[int]):
    """(n or None, i, j, w or None, matrix) of one network: an adjacency matrix (dense or
    sparse) or an edge list (E, 2) / (E, 3) of i, j[, weight]. n is None for an edge list."""
    if _is_sparse(a):
        n, i, j, w = _sparse_entries(a, where)
        return n, i, j, w, True
    g = _numpy(a, where)
    square = g.ndim == 2 and g.shape[0] == g.shape[1]
    edges = g.ndim == 2 and g.shape[1] in (2, 3)
    if square and (not edges or nodes is None or g.shape[0] == nodes):
        i, j = np.nonzero(g)
        return g.shape[0], i, j, g[i, j].astype(np.float64), True
    if edges:
        ij = g[:, :2].astype(np.float64)
        if not (np.all(np.isfinite(ij)) and np.all(ij == np.round(ij))):
            raise ValueError("%s: an edge list's first two columns are 0-based node indices "
                             "(integers)" % where)
        ij = np.clip(ij, -1, 2**31 - 1)  # out of range either way; the C++ check names it
        w = g[:, 2].astype(np.float64) if g.shape[1] == 3 else None
        return None, ij[:, 0], ij[:, 1], w, False
    raise ValueError("%s: expected an adjacency matrix (N, N) or an edge list (E, 2) / (E, 3), "
                     "got shape %s" % (where, g.shape))


def entries(networks: Any, nodes: Optional[int]):
    """(N or None, K or None, payload) of `networks` for simscope._core: K None means one
    network for every member (a single matrix or edge list); N None means only edge lists were
    given (network_nodes says N). payload: (offsets (G+1,) int64, i, j int32, w float64 or
    None, matrix (G,) uint8, shared)."""
    if networks is None:
        return None, None, None
    if not _is_sparse(networks) and not isinstance(networks, (list, tuple)):
        g = _numpy(networks, "networks")
        if g.ndim == 3:
            if g.shape[1] != g.shape[2]:
                raise ValueError("networks: a stack of adjacency matrices has shape (K, N, N), "
                                 "got %s" % (g.shape,))
            k, i, j = np.nonzero(g)
            off = np.searchsorted(k, np.arange(g.shape[0] + 1)).astype(np.int64)
            payload = (off, i.astype(np.int32), j.astype(np.int32),
                       g[k, i, j].astype(np.float64), np.ones(g.shape[0], np.uint8), False)
            return g.shape[1], g.shape[0], payload
        networks = g
    shared = not isinstance(networks, (list, tuple))
    items = [networks] if shared else list(networks)
    if not items:
        raise ValueError("networks: an empty list; give one network per member")
    n, parts = None, []
    for k, a in enumerate(items):
        where = "networks" if shared else "networks[%d]" % k
        m, i, j, w, matrix = _one(a, where, nodes if n is None else n)
        if m is not None:
            if n is not None and m != n:
                raise ValueError("%s: an adjacency matrix of %d nodes, but the networks "
                                 "before it have %d" % (where, m, n))
            n = m
        parts.append((i, j, w, matrix))
    sizes = [len(p[0]) for p in parts]
    off = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    weighted = any(p[2] is not None for p in parts)
    w = (np.concatenate([p[2] if p[2] is not None else np.ones(len(p[0])) for p in parts])
         if weighted else None)
    payload = (off, np.concatenate([np.asarray(p[0]) for p in parts]).astype(np.int32),
               np.concatenate([np.asarray(p[1]) for p in parts]).astype(np.int32), w,
               np.array([p[3] for p in parts], np.uint8), shared)
    return n, None if shared else len(items), payload
