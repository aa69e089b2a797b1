"""``minigrad.sparse`` (COO tensors emulated on dense storage) against PyTorch: construction,
coalescing, indices/values/nnz, repr, and the dense results of the ops pytorch/examples' gcn
and gat use (``sparse @ dense``, ``dense + sparse``, ``spmm`` with its gradient)."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import minigrad as mg


def _strip(x):
    return str(x).replace("torch.", "").replace("minigrad.", "")


def _run(L):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")          # torch's "Sparse invariant checks" warning
        s = L.sparse_coo_tensor(L.tensor([[0, 0, 1], [1, 1, 2]]), L.tensor([1.0, 2.0, 0.5]),
                                (2, 3))
        c = s.coalesce()
        d = L.diag(L.tensor([1.0, 2.0, 0.0])).to_sparse()
        a = L.sparse_coo_tensor(L.tensor([[0, 2, 1], [1, 0, 1]]), L.ones(3), (3, 3),
                                dtype=L.int64)
        adj = L.eye(3) + a                          # gcn's self-loops: a dense float result
        x = L.tensor([[1.0, -1.0], [0.5, 2.0], [3.0, 0.0]], requires_grad=True)
        y = L.spmm(d, x) + d @ x + L.sparse.mm(d, x) + L.mm(d, x)
        y.sum().backward()
        z = L.zeros(2, 2).to_sparse()
    return dict(
        s=(_strip(s), s.layout == L.sparse_coo, s.is_sparse, s._nnz(), s.is_coalesced(),
           s.to_dense().tolist(), tuple(s.shape), _strip(s.dtype)),
        c=(_strip(c), c.indices().tolist(), c.values().tolist(), c._nnz(), c.is_coalesced()),
        d=(_strip(d), d._nnz(), _strip(z)),
        adj=(adj.tolist(), _strip(adj.dtype), adj.layout == L.strided, adj.is_sparse),
        y=(y.tolist(), y.layout == L.strided, y.grad_fn.name(), x.grad.tolist()),
        strided=_strip(L.strided), dense_todense=L.ones(2).to_dense().tolist())


def test_sparse_coo_matches_torch():
    assert _run(mg) == _run(torch)


def test_uncoalesced_indices_error_matches_torch():
    msgs = []
    for L in (torch, mg):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            s = L.sparse_coo_tensor(L.tensor([[0, 0]]), L.tensor([1.0, 2.0]), (2,))
        with pytest.raises(RuntimeError) as e:
            s.indices()
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]


def test_to_sparse_of_a_grad_tensor_is_refused():
    """The emulation has no ToSparseBackward: refused rather than silently detached."""
    with pytest.raises(NotImplementedError):
        mg.ones(2, requires_grad=True).to_sparse()
    with mg.no_grad():
        assert np.array_equal(mg.ones(2, requires_grad=True).to_sparse().to_dense().numpy(),
                              np.ones(2))
