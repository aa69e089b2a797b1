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


PADS = [("ReflectionPad1d", (2,), 3), ("ReflectionPad2d", ((1, 2, 0, 1),), 4),
        ("ReplicationPad1d", ((1, 3),), 3), ("ReplicationPad2d", (2,), 4),
        ("ConstantPad1d", (2, 3.5), 2), ("ConstantPad2d", ((1, 0, 2, 1), -1.0), 4),
        ("ZeroPad1d", ((0, 2),), 3), ("ZeroPad2d", (1,), 3),
        ("CircularPad1d", (1,), 3), ("CircularPad2d", ((1, 1, 2, 0),), 4)]


@pytest.mark.parametrize("name,args,ndim", PADS)
def test_padding_modules_match_torch(name, args, ndim):
    """fast_neural_style's TransformerNet builds ``ReflectionPad2d``; each padding module's
    output, gradient and repr against PyTorch's."""
    import numpy as np
    x = np.random.default_rng(0).normal(size=(2, 3, 4, 5)[-ndim:]).astype(np.float32)
    res = []
    for L in (torch, mg):
        m = getattr(L.nn, name)(*args)
        t = L.tensor(x, requires_grad=True)
        y = m(t)
        (y * L.arange(y.numel(), dtype=L.float32).reshape(y.shape)).sum().backward()
        res.append((repr(m), y.tolist(), t.grad.tolist()))
    assert res[0] == res[1]


def test_circular_pad_rank_error_matches_torch():
    msgs = []
    for L in (torch, mg):
        with pytest.raises(ValueError) as e:
            L.nn.CircularPad2d(1)(L.ones(2, 2))
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]


def test_size_keyword_of_the_factories():
    """gat builds its weights with ``torch.empty(size=(...))``."""
    def run(L):
        L.manual_seed(0)
        out = [tuple(L.empty(size=(2, 3)).shape), tuple(L.zeros(size=[2]).shape),
               L.ones(size=(1, 2)).tolist(), L.rand(size=(2,)).tolist(),
               L.randn(size=(2,), dtype=L.float64).tolist()]
        try:
            L.zeros(2, size=(2,))
        except TypeError as e:
            out.append(str(e))
        return out
    assert run(mg) == run(torch)
