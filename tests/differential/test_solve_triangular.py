"""``linalg.solve_triangular`` and ``cholesky_inverse`` against torch beyond their catalogue
specs: every triangle / side /
``unitriangular`` with broadcast batch dims (values and both gradients within a few ULPs of the
largest entry), the ignored triangle, and PyTorch's errors."""
from __future__ import annotations

import itertools

import numpy as np
import pytest
import torch

import minigrad as mg


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("upper,left,unit", list(itertools.product([False, True], repeat=3)))
def test_matches_torch(dt, upper, left, unit):
    rng = np.random.default_rng(0)
    eps = np.finfo(np.float32 if dt == "float32" else np.float64).eps
    for ash, bsh in [((3, 3), (3, 2)), ((2, 1, 4, 4), (3, 4, 2)), ((1, 1), (1, 5))]:
        n = ash[-1]
        a = rng.standard_normal(ash) + np.eye(n) * 3
        b = rng.standard_normal(bsh if left else bsh[:-2] + (bsh[-1], n))
        res = []
        for L in (torch, mg):
            A = L.tensor(a, dtype=getattr(L, dt), requires_grad=True)
            B = L.tensor(b, dtype=getattr(L, dt), requires_grad=True)
            X = L.linalg.solve_triangular(A, B, upper=upper, left=left, unitriangular=unit)
            (X * L.arange(X.numel(), dtype=X.dtype).reshape(X.shape)).sum().backward()
            res.append([t.detach().double().numpy() for t in (X, A.grad, B.grad)])
        for x, y in zip(*res):
            assert x.shape == y.shape
            assert np.abs(x - y).max() <= 32 * eps * np.abs(x).max()
        # the triangle that is not read gets no gradient
        ga = res[1][1]
        off = np.tril(ga, -1) if upper else np.triu(ga, 1)
        assert not off.any() and (not unit or not np.diagonal(ga, 0, -2, -1).any())


CALLS = [lambda L: L.linalg.solve_triangular(L.ones(3), L.ones(3, 2), upper=False),
         lambda L: L.linalg.solve_triangular(L.eye(3), L.ones(3), upper=False),
         lambda L: L.linalg.solve_triangular(L.ones(3, 2), L.ones(3, 2), upper=False),
         lambda L: L.linalg.solve_triangular(L.eye(3), L.ones(2, 2), upper=False),
         lambda L: L.linalg.solve_triangular(L.eye(3), L.ones(3, 2), upper=True, left=False),
         lambda L: L.linalg.solve_triangular(L.eye(3).half(), L.ones(3, 2).half(), upper=True),
         lambda L: L.linalg.solve_triangular(L.eye(3).long(), L.ones(3, 2).long(), upper=True),
         lambda L: L.linalg.solve_triangular(L.ones(2, 3, 3), L.ones(4, 3, 2), upper=False),
         lambda L: L.cholesky_inverse(L.ones(3)),
         lambda L: L.cholesky_inverse(L.ones(3, 2)),
         lambda L: L.cholesky_inverse(L.eye(3).half()),
         lambda L: L.cholesky_inverse(L.eye(3).long())]


@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_inverse_matches_torch(upper):
    rng = np.random.default_rng(2)
    a = np.tril(rng.standard_normal((2, 4, 4))) + np.eye(4) * 3
    a = np.swapaxes(a, -1, -2) if upper else a
    res = []
    for L in (torch, mg):
        x = L.tensor(a, requires_grad=True)
        y = L.cholesky_inverse(x, upper=upper)
        (y * L.arange(32.).reshape(2, 4, 4)).sum().backward()
        assert type(y.grad_fn).__name__ == "CholeskyInverseBackward0"
        res.append((y.detach().numpy(), x.grad.numpy()))
    for x, y in zip(*res):
        assert np.abs(x - y).max() <= 32 * 2.2e-16 * np.abs(x).max()


def test_errors_match_torch():
    out = []
    for L in (torch, mg):
        row = []
        for f in CALLS:
            try:
                f(L)
                row.append(None)
            except Exception as e:        # noqa: BLE001 - the point is which exception
                row.append((type(e).__name__, str(e)))
        out.append(row)
    assert out[0] == out[1]
