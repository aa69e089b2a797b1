"""Small API pieces public scripts use, against PyTorch: the alias functions and methods
(``subtract``, ``divide``, ``greater``...), ``select``, ``ndimension`` and friends,
``broadcast_tensors``, a ``range`` as an index, ``Size`` arithmetic."""
from __future__ import annotations

import pytest
import torch

import minigrad as mg


def _outs(L):
    x = L.tensor([[1.0, -2.0], [3.0, 4.0]], requires_grad=True)
    outs = [L.subtract(x, 1, alpha=2), x.subtract(x), L.multiply(x, 2), x.multiply(x),
            x.divide(2), L.divide(x, 3, rounding_mode="floor"), L.true_divide(x, 2),
            x.true_divide(x), L.absolute(x), x.absolute(), L.negative(x), x.negative(),
            L.positive(x), L.greater(x, 0), x.greater_equal(1), L.less(x, 1), x.less_equal(1),
            L.not_equal(x, 1), x.not_equal(x), L.ravel(x), x.t().ravel(), L.select(x, 1, -1),
            x.select(0, 1)]
    sum(o.float().sum() for o in outs if o.requires_grad).backward()
    info = (x.ndimension(), x.is_signed(), L.ones(2, dtype=L.uint8).is_signed(),
            x.is_complex(), x.is_same_size(x.t()), L.tensor([2]).is_nonzero(),
            x.select(0, 1).grad_fn.name(), L.subtract(x, 1).grad_fn.name())
    return [o.tolist() for o in outs] + [x.grad.tolist()], info


def test_aliases_match_torch():
    assert _outs(mg) == _outs(torch)


ERRS = [lambda L: L.ones(2, 2).select(0, 5), lambda L: L.ones(2).select(1, 0),
        lambda L: L.positive(L.ones(2, dtype=L.bool)), lambda L: L.zeros(0).is_nonzero(),
        lambda L: L.zeros(2).is_nonzero(),
        lambda L: L.broadcast_tensors(L.ones(2), L.ones(3)),
        lambda L: L.broadcast_tensors(L.ones(2), 3)]


@pytest.mark.parametrize("case", range(len(ERRS)))
def test_errors_match_torch(case):
    def err(L):
        try:
            ERRS[case](L)
        except Exception as e:      # noqa: BLE001 - the point is which exception
            return type(e), str(e).replace("torch.", "").replace("minigrad.", "")
        return None
    want = err(torch)
    assert want is not None and err(mg) == want


def test_broadcast_tensors_and_range_index():
    def run(L):
        x = L.ones(2, 1, requires_grad=True)
        a, b, c = L.broadcast_tensors(x, L.arange(3.0), L.ones(2, 3))
        (a * b * c).sum().backward()
        y = L.arange(12.0).reshape(3, 4)
        y[range(3), L.tensor([1, 0, 3])] = -1.0
        return (tuple(a.shape), a.grad_fn.name(), c.grad_fn, x.grad.tolist(), y.tolist(),
                y[range(2)].tolist(), y[:, range(1, 3)].tolist(), len(L.broadcast_tensors()))
    assert run(mg) == run(torch)


def test_size_arithmetic_is_a_size():
    s = mg.zeros(2, 3).shape
    for got, want in ((s + (4,), torch.Size([2, 3, 4])), ((1,) + s, torch.Size([1, 2, 3])),
                      (s * 2, torch.Size([2, 3, 2, 3]))):
        assert isinstance(got, mg.Size) and tuple(got) == tuple(want)
