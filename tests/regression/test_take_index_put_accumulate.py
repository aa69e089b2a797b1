"""``torch.take`` / ``Tensor.take``, ``index_put(_)(..., accumulate=True)`` and the out-of-place
``index_put`` against torch (a new user's trial: ``accumulate=True`` raised
NotImplementedError, ``take`` and ``Tensor.index_put`` were missing)."""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import minigrad as mg  # noqa: E402
from tests.regression._oracle import assert_same_as_torch  # noqa: E402

CALLS = {
    "take 2-d index": lambda L: L.take(L.arange(6.).view(2, 3), L.tensor([[0, 5], [-1, 2]])),
    "Tensor.take": lambda L: L.arange(6.).view(2, 3).take(L.tensor([1])),
    "take empty": lambda L: L.take(L.zeros(0), L.tensor([], dtype=L.int64)),
    "take out of range": lambda L: L.take(L.zeros(6), L.tensor([0, 6])),
    "take negative out of range": lambda L: L.take(L.zeros(6), L.tensor([-7])),
    "take int32 index": lambda L: L.take(L.zeros(6), L.tensor([0], dtype=L.int32)),
    "take from empty": lambda L: L.take(L.zeros(0), L.tensor([0])),
    "take list index": lambda L: L.take(L.zeros(6), [0]),
    "accumulate": lambda L: L.zeros(3).index_put_((L.tensor([0, 0, 2]),),
                                                  L.tensor([1., 2., 3.]), accumulate=True),
    "accumulate broadcast scalar": lambda L: L.index_put(L.zeros(3), (L.tensor([1, 1]),),
                                                         L.tensor(5.), accumulate=True),
    "accumulate rows": lambda L: L.zeros(2, 3).index_put_((L.tensor([1, 1]),),
                                                          L.tensor([1., 2., 3.]),
                                                          accumulate=True),
    "accumulate fp16 in order": lambda L: L.zeros(4, dtype=L.float16).index_put_(
        (L.tensor([0] * 5),), L.tensor([0.1] * 5, dtype=L.float16), accumulate=True),
    "accumulate dtype mismatch": lambda L: L.zeros(3).index_put_(
        (L.tensor([0]),), L.tensor([1.], dtype=L.float64), accumulate=True),
    "index_put out of place": lambda L: L.zeros(2, 3).index_put(
        (L.tensor([0, 1]), L.tensor([2, 2])), L.tensor([7., 8.])),
}


@pytest.mark.parametrize("name", list(CALLS))
def test_values_and_errors_as_torch(name):
    assert_same_as_torch(CALLS[name], torch, mg)


def test_gradients_as_torch():
    out = {}
    for L in (torch, mg):
        w = L.arange(6.).view(2, 3).requires_grad_()
        y = L.take(w, L.tensor([0, 0, 4]))
        (y * L.tensor([1., 2., 3.])).sum().backward()
        a = L.zeros(2, 3, requires_grad=True)
        v = L.tensor([1., 2.], requires_grad=True)
        b = a.index_put((L.tensor([0, 0]), L.tensor([1, 1])), v, accumulate=True)
        (b * L.arange(6.).view(2, 3)).sum().backward()
        out[L] = (y.grad_fn.name(), b.grad_fn.name(), w.grad.numpy(), a.grad.numpy(),
                  v.grad.numpy())
    assert out[mg][:2] == out[torch][:2]
    for g, w in zip(out[mg][2:], out[torch][2:]):
        np.testing.assert_array_equal(g, w)
