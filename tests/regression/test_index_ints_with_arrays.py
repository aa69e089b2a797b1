"""An index mixing ints and index arrays: PyTorch applies the ints first (``select``), then the
index arrays on that view, with NumPy's rule for where the indexed dims go counted without the
ints. NumPy counts an int as one more advanced index, so ``x[0, :, [0, 2]]`` of a (2, 3, 4)
tensor was (2, 3) in minigrad and (3, 2) in PyTorch (found by a new user's trial), and writes
and backward through such an index failed."""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import minigrad as mg  # noqa: E402

INDEXES = {
    "int slice list": lambda L: (0, slice(None), [0, 2]),
    "int slice mask": lambda L: (0, slice(None), L.tensor([True, False, True, False])),
    "4d slice int slice list": lambda L: (slice(None), 0, slice(None), [0, 1]),
    "int ellipsis list": lambda L: (0, Ellipsis, [1, 2]),
    "list int list (adjacent after select)": lambda L: (slice(None), [0, 1], 0, [0, 1]),
    "list int list": lambda L: ([0, 1], 0, [0, 1]),
    "list slice int list": lambda L: ([0, 1], slice(None), 1, [0, 1]),
    "None int list slice int": lambda L: (None, 0, [1], slice(None), 2),
    "int 2-d list slice list": lambda L: (1, [[0], [1]], slice(None), [2, 3]),
    "int mask": lambda L: (0, [True, False, True]),
    "int list int": lambda L: (1, [0, 2], 3),
    "0-d tensor slice list": lambda L: (L.tensor(1), slice(None), [0, 1]),
}


def _shape_of(name):
    return (2, 3, 4) if name in ("int slice list", "int slice mask", "int mask",
                                 "int list int", "0-d tensor slice list") else (2, 3, 4, 5)


@pytest.mark.parametrize("name", list(INDEXES))
def test_get_set_and_backward_as_torch(name):
    shape = _shape_of(name)
    n = int(np.prod(shape))
    out = {}
    for L in (torch, mg):
        idx = INDEXES[name](L)
        x = L.arange(float(n)).view(*shape).requires_grad_()
        y = x[idx]
        g = L.arange(float(y.numel())).view(*y.shape)
        (y * g).sum().backward()
        z = L.zeros(*shape)
        z[idx] = g                                   # a write through the same index
        out[L] = (tuple(y.shape), y.detach().numpy().copy(), x.grad.numpy().copy(),
                  z.numpy().copy())
    want, got = out[torch], out[mg]
    assert got[0] == want[0]
    for w, m in zip(want[1:], got[1:]):
        np.testing.assert_array_equal(m, w)
