"""Reductions (mean, max/min, amax/amin, argmax/argmin) and in-place ops (add_, sub_, mul_,
div_, clamp_, zero_, fill_, copy_) against PyTorch CPU: values, dtypes, namedtuple results,
versions, leaf/no_grad semantics and the rebasing of a non-leaf's history.
"""
from __future__ import annotations

import pytest
import torch

import minigrad as mg
from minigrad.testing import to_torch
from tests.unit.test_elementwise_ops import FLOATS, LOW, check, make


# ---------------------------------------------------------------------------------- reductions
@pytest.mark.parametrize("dtype", FLOATS)
def test_reductions_forward(dtype):
    a, ta = make((6, 7, 5), dtype, seed=15)
    ulp = 0 if dtype in LOW else 4
    tol = {"float32": 1e-6, "float64": 1e-14}.get(dtype, 0.0)   # summation order
    check(a.mean(), ta.mean(), ulp, tol)
    check(a.mean(1), ta.mean(1), ulp, tol)
    check(a.mean((0, 2), keepdim=True), ta.mean((0, 2), keepdim=True), ulp, tol)
    check(a.max(), ta.max())
    check(a.min(), ta.min())
    for dim in (0, -1):
        for keep in (False, True):
            v, i = a.max(dim, keep)
            tv, ti = ta.max(dim, keep)
            check(v, tv)
            check(i, ti)
            r = a.min(dim, keepdim=keep)
            tr = ta.min(dim, keepdim=keep)
            check(r.values, tr.values)
            check(r.indices, tr.indices)
            check(a.argmax(dim, keep), ta.argmax(dim, keep))
            check(a.argmin(dim, keep), ta.argmin(dim, keep))
    check(a.amax((0, 2)), ta.amax((0, 2)))
    check(a.amin(1, keepdim=True), ta.amin(1, keepdim=True))
    check(a.amax(), ta.amax())
    check(a.argmax(), ta.argmax())
    check(a.argmax(keepdim=True), ta.argmax(keepdim=True))


def test_reduction_ties_nan_and_dtypes():
    x = mg.tensor([1.0, 3.0, float("nan"), 3.0, float("nan")])
    tx = to_torch(x)
    check(x.max(), tx.max())
    v, i = x.max(0)
    check(i, tx.max(0).indices)
    check(x.argmax(), tx.argmax())
    check(x.argmin(), tx.argmin())
    y = mg.tensor([[1, 5, 5], [7, 2, 7]])
    ty = to_torch(y)
    check(y.max(1).indices, ty.max(1).indices)
    check(y.max(), ty.max())
    check(mg.tensor([True, False]).max(), torch.tensor([True, False]).max())
    check(y.mean(dtype=mg.float64), ty.mean(dtype=torch.float64))
    h = mg.tensor([1.0, 2.0], dtype=mg.float16)
    check(h.mean(dtype=mg.float32), to_torch(h).mean(dtype=torch.float32))
    z = mg.zeros(0)
    check(z.mean(), torch.zeros(0).mean())
    check(mg.zeros(0, 3).max(1).values, torch.zeros(0, 3).max(1).values)


def test_max_namedtuple():
    a, _ = make((3, 4), "float32", seed=16)
    r = a.max(1)
    v, i = r
    assert r.values is v and r.indices is i
    assert i.dtype is mg.int64 and not i.requires_grad


# ---------------------------------------------------------------------------------- in-place
def test_inplace_values_and_versions():
    for dtype in FLOATS:
        a, ta = make((3, 4), dtype, seed=24)
        b, tb = make((4,), dtype, lo=0.5, hi=2, seed=25)
        v0 = a._version
        for f in (lambda x, y: x.sub_(y, alpha=0.5), lambda x, y: x.div_(y),
                  lambda x, y: x.mul_(y), lambda x, y: x.add_(y), lambda x, y: x.clamp_(-1, 1),
                  lambda x, y: x.clamp_(min=y), lambda x, y: x.fill_(0.1),
                  lambda x, y: x.copy_(y * 3), lambda x, y: x.zero_()):
            assert f(a, b) is a
            f(ta, tb)
            check(a, ta)
        assert a._version == v0 + 9
    i = mg.tensor([1, 2, 3])
    i.copy_(mg.tensor([1.7, -2.7, 3.0]))
    check(i, torch.tensor([1, 2, 3]).copy_(torch.tensor([1.7, -2.7, 3.0])))
    i.fill_(2.7)
    assert i.tolist() == [2, 2, 2]


def test_inplace_through_view_updates_base():
    a = mg.zeros(2, 3)
    v = a.reshape(6)
    v.add_(1.0)
    assert a.tolist() == [[1.0] * 3] * 2 and a._version == v._version == 1


def test_inplace_under_no_grad_on_leaf():
    w = mg.ones(3, requires_grad=True)
    with mg.no_grad():
        w.sub_(mg.tensor([0.5, 1.0, 1.5]), alpha=2)
        w.mul_(2).clamp_(-1, 1).div_(2)
    assert w.is_leaf and w.grad_fn is None and w.requires_grad
    assert w._version == 4
    assert w.tolist() == [0.0, -0.5, -0.5]


def test_inplace_recorded_on_non_leaf():
    """PyTorch rebases self's history onto the in-place op's node."""
    for ops in ((lambda y, o: y.mul_(o)), (lambda y, o: y.sub_(o, alpha=2)),
                (lambda y, o: y.div_(o)), (lambda y, o: y.clamp_(-0.3, 0.3)),
                (lambda y, o: y.copy_(o)), (lambda y, o: y.fill_(1.0))):
        x, tx = make((3, 4), "float64", seed=26, requires_grad=True)
        o, to = make((4,), "float64", lo=0.5, hi=2, seed=27, requires_grad=True)
        y, ty = x * 2, tx * 2
        ops(y, o)
        ops(ty, to)
        assert y.grad_fn.name().split("::")[-1] == ty.grad_fn.name().split("::")[-1]
        (y * y).sum().backward()
        (ty * ty).sum().backward()
        check(x.grad, tx.grad, 2)
        if to.grad is not None:
            check(o.grad, to.grad, 2)


def test_inplace_makes_plain_tensor_require_grad():
    w, tw = make((3,), "float32", seed=28, requires_grad=True)
    buf, tbuf = mg.zeros(3), torch.zeros(3)
    buf.add_(w * 3)
    tbuf.add_(tw * 3)
    assert buf.requires_grad and not buf.is_leaf
    buf.sum().backward()
    tbuf.sum().backward()
    check(w.grad, tw.grad)


def test_saved_tensor_modified_in_place_is_detected():
    x = mg.ones(3, requires_grad=True)
    y = x * 2
    z = y * y
    y.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()
