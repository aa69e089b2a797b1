"""Bitwise/logical operators, isclose/allclose/equal, new_* factories, masked_fill/where and
split/chunk/unbind against PyTorch CPU: values, dtypes, errors (type and text) and gradients.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import minigrad as mg

INTS = ["bool", "uint8", "int8", "int16", "int32", "int64"]


def same(m, t):
    """Assert minigrad tensor ``m`` equals torch tensor ``t`` in shape, dtype and values."""
    assert isinstance(m, mg.Tensor), type(m)
    assert m.dtype.name == str(t.dtype).split(".")[1], (m.dtype, t.dtype)
    assert tuple(m.shape) == tuple(t.shape)
    mv = np.asarray(m.numpy(), dtype=np.float64) if m.dtype.is_floating_point else m.numpy()
    tv = t.detach().to(torch.float64).numpy() if t.dtype.is_floating_point else t.numpy()
    np.testing.assert_array_equal(mv, tv)


def pair(values, dtype):
    return (mg.tensor(values, dtype=getattr(mg, dtype)),
            torch.tensor(values, dtype=getattr(torch, dtype)))


def same_error(fm, ft):
    """Both callables raise the same exception type with the same message."""
    with pytest.raises(Exception) as et:
        ft()
    with pytest.raises(type(et.value)) as em:
        fm()
    assert str(em.value).split("\n")[0] == str(et.value).split("\n")[0]


# ---------------------------------------------------------------------------------- bitwise
@pytest.mark.parametrize("da", INTS)
@pytest.mark.parametrize("db", ["bool", "uint8", "int8", "int64"])
def test_bitwise_binary_dtypes(da, db):
    va = [0, 1, 1, 0] if da == "bool" else [0, 5, 12, 7]
    vb = [[1, 0, 1, 1]] if db == "bool" else [[3, 6, 1, 2]]
    a, ta = pair(va, da)
    b, tb = pair(vb, db)
    for mop, top in ((lambda x, y: x & y, lambda x, y: x & y),
                     (lambda x, y: x | y, lambda x, y: x | y),
                     (lambda x, y: x ^ y, lambda x, y: x ^ y),
                     (mg.bitwise_and, torch.bitwise_and), (mg.bitwise_or, torch.bitwise_or),
                     (mg.bitwise_xor, torch.bitwise_xor)):
        same(mop(a, b), top(ta, tb))


def test_bitwise_scalars_and_reflected():
    i, ti = pair([-3, 5, 12], "int64")
    b, tb = pair([True, False, True], "bool")
    u, tu = pair([200, 5, 255], "uint8")
    for s in (1, True, 6, -2):
        same(i & s, ti & s)
        same(s | i, s | ti)
        same(i ^ s, ti ^ s)
        same(b & s, tb & s)
        same(s ^ b, s ^ tb)
        same(u & s, tu & s)
    same(mg.bitwise_and(3, i), torch.bitwise_and(3, ti))
    same(~i, ~ti)
    same(~b, ~tb)
    same(~u, ~tu)
    same(mg.bitwise_not(i), torch.bitwise_not(ti))
    same(i.bitwise_not(), ti.bitwise_not())
    same(i.bitwise_xor(b), ti.bitwise_xor(tb))
    assert not (i & 1).requires_grad


def test_bitwise_float_errors():
    for dt in ("float32", "float64", "float16", "bfloat16"):
        f, tf = pair([1.0, 2.0], dt)
        same_error(lambda: f & f, lambda: tf & tf)
        same_error(lambda: f | 1, lambda: tf | 1)
        same_error(lambda: mg.bitwise_xor(f, f), lambda: torch.bitwise_xor(tf, tf))
        same_error(lambda: mg.bitwise_not(f), lambda: torch.bitwise_not(tf))
        same_error(lambda: ~f, lambda: ~tf)
        same_error(lambda: f << 1, lambda: tf << 1)
    i, ti = pair([3, 5], "int64")
    same_error(lambda: i & 1.5, lambda: ti & 1.5)
    same_error(lambda: mg.bitwise_and(i, mg.ones(3, dtype=mg.int64)),
               lambda: torch.bitwise_and(ti, torch.ones(3, dtype=torch.int64)))
    b, tb = pair([True], "bool")
    same_error(lambda: b << b, lambda: tb << tb)
    same_error(lambda: b >> b, lambda: tb >> tb)
    with pytest.raises(TypeError):
        i & "x"
    with pytest.raises(TypeError):
        "x" | i


@pytest.mark.parametrize("dt", ["uint8", "int8", "int16", "int32", "int64"])
def test_shifts(dt):
    v = [1, 3, 100, 7] if dt == "uint8" else [1, -8, 100, -1]
    a, ta = pair(v, dt)
    s, ts = pair([0, 1, 7, 3], dt)
    same(a << s, ta << ts)
    same(a >> s, ta >> ts)
    same(a << 2, ta << 2)
    same(a >> 1, ta >> 1)
    same(2 << s, 2 << ts)
    same(100 >> s, 100 >> ts)
    same(mg.bitwise_left_shift(a, s), torch.bitwise_left_shift(ta, ts))
    same(mg.bitwise_right_shift(a, s), torch.bitwise_right_shift(ta, ts))
    bits = {"uint8": 8, "int8": 8, "int16": 16, "int32": 32, "int64": 64}[dt]
    for k in (bits, bits + 5) + (() if dt == "uint8" else (-1,)):
        same(a << k, ta << k)
        same(a >> k, ta >> k)


def test_bitwise_inplace():
    for op in ("__iand__", "__ior__", "__ixor__", "__ilshift__", "__irshift__"):
        a, ta = pair([3, 5, 12], "int64")
        o, to = pair([1, 2, 1], "int64")
        v = a._version
        r = getattr(a, op)(o)
        getattr(ta, op)(to)
        assert r is a and a._version == v + 1
        same(a, ta)
    a, ta = pair([3, 5], "int64")
    a &= 6
    ta &= 6
    same(a, ta)
    a.bitwise_or_(8)
    ta.bitwise_or_(8)
    same(a, ta)
    a.bitwise_not_()
    ta.bitwise_not_()
    same(a, ta)
    b, tb = pair([True, False], "bool")
    b ^= True
    tb ^= True
    same(b, tb)
    b, tb = pair([True, False], "bool")
    i, ti = pair([2, 5], "int64")

    def fm():
        b.__ior__(i)

    def ft():
        tb.__ior__(ti)
    same_error(fm, ft)


def test_logical_methods_and_sign():
    a, ta = pair([0.0, -2.5, 3.0, float("nan")], "float32")
    b, tb = pair([1, 0, 2, 0], "int64")
    same(a.logical_and(b), ta.logical_and(tb))
    same(a.logical_or(b), ta.logical_or(tb))
    same(a.logical_xor(b), ta.logical_xor(tb))
    same(mg.logical_xor(a, b), torch.logical_xor(ta, tb))
    same(a.logical_not(), ta.logical_not())
    same(a.sign(), ta.sign())
    same(b.sign(), tb.sign())
    same(a.reciprocal(), ta.reciprocal())
    same_error(lambda: mg.logical_xor(a, 0), lambda: torch.logical_xor(ta, 0))


# ---------------------------------------------------------------------------------- closeness
def test_isclose_allclose():
    nan, inf = float("nan"), float("inf")
    va, vb = [1.0, nan, inf, -inf, 1.0, 100.0], [1.0 + 1e-9, nan, inf, inf, 1.001, 100.0005]
    for dt in ("float32", "float64", "float16", "bfloat16"):
        a, ta = pair(va, dt)
        b, tb = pair(vb, dt)
        for kw in ({}, {"equal_nan": True}, {"rtol": 0, "atol": 0}, {"rtol": 1e-2},
                   {"atol": 0.5, "rtol": 0}):
            same(mg.isclose(a, b, **kw), torch.isclose(ta, tb, **kw))
            same(a.isclose(b, **kw), ta.isclose(tb, **kw))
            assert mg.allclose(a, b, **kw) == torch.allclose(ta, tb, **kw)
            assert a.allclose(b, **kw) is torch.allclose(ta, tb, **kw)
    i, ti = pair([1, 2, 10], "int64")
    j, tj = pair([1, 3, 11], "int64")
    same(mg.isclose(i, j, rtol=0.5, atol=0), torch.isclose(ti, tj, rtol=0.5, atol=0))
    same(mg.isclose(i, j), torch.isclose(ti, tj))
    b, tb = pair([True, False], "bool")
    same(mg.isclose(b, b), torch.isclose(tb, tb))
    x, tx = pair([1.0, 2.0], "float32")
    assert mg.allclose(x, x + 1e-7) and torch.allclose(tx, tx + 1e-7)
    same_error(lambda: mg.isclose(x, i[:2]), lambda: torch.isclose(tx, ti[:2]))
    same_error(lambda: mg.isclose(x, x, rtol=-1), lambda: torch.isclose(tx, tx, rtol=-1))
    same_error(lambda: mg.isclose(x, x, atol=-1), lambda: torch.isclose(tx, tx, atol=-1))
    same_error(lambda: mg.isclose(x, 1.0), lambda: torch.isclose(tx, 1.0))
    same_error(lambda: mg.allclose(x, mg.ones(3)), lambda: torch.allclose(tx, torch.ones(3)))


def test_equal_is_tensor_numel():
    i, ti = pair([3, 5], "int64")
    f, tf = pair([3.0, 5.0], "float32")
    n, tn = pair([1.0, float("nan")], "float32")
    cases = [(i, f, ti, tf), (i, i, ti, ti), (n, n, tn, tn), (f, f + 1, tf, tf + 1),
             (mg.ones(2, 1), mg.ones(2), torch.ones(2, 1), torch.ones(2)),
             (mg.ones(1), mg.ones(2), torch.ones(1), torch.ones(2))]
    for a, b, ta, tb in cases:
        assert mg.equal(a, b) is torch.equal(ta, tb)
        assert a.equal(b) is ta.equal(tb)
    same_error(lambda: mg.equal(i, 3), lambda: torch.equal(ti, 3))
    assert mg.is_tensor(i) and not mg.is_tensor(3) and not mg.is_tensor(np.ones(2))
    assert mg.numel(mg.zeros(2, 3)) == torch.numel(torch.zeros(2, 3)) == 6
    same_error(lambda: mg.numel(3), lambda: torch.numel(3))


# ---------------------------------------------------------------------------------- new_*
@pytest.mark.parametrize("dt", ["float16", "bfloat16", "float32", "int32", "bool"])
def test_new_factories(dt):
    x, tx = pair([1, 0], dt)
    same(x.new_zeros(2, 3), tx.new_zeros(2, 3))
    same(x.new_zeros((2,)), tx.new_zeros((2,)))
    same(x.new_ones([3]), tx.new_ones([3]))
    assert tuple(x.new_empty(2, 2).shape) == (2, 2) and x.new_empty(1).dtype == x.dtype
    same(x.new_full((2,), 3), tx.new_full((2,), 3))
    same(x.new_full([1, 2], 2.7), tx.new_full([1, 2], 2.7))
    same(x.new_tensor([1, 2]), tx.new_tensor([1, 2]))
    same(x.new_tensor([1.5, 0.0]), tx.new_tensor([1.5, 0.0]))
    same(x.new_zeros(2, dtype=mg.int64), tx.new_zeros(2, dtype=torch.int64))
    same(x.new_ones(2, dtype=mg.float64), tx.new_ones(2, dtype=torch.float64))
    same_error(lambda: x.new_full(2, 1), lambda: tx.new_full(2, 1))


def test_new_tensor_from_tensor_and_requires_grad():
    x = mg.ones(2, dtype=mg.float16, requires_grad=True)
    tx = torch.ones(2, dtype=torch.float16, requires_grad=True)
    assert x.new_zeros(2).requires_grad is tx.new_zeros(2).requires_grad is False
    assert x.new_ones(2, requires_grad=True).requires_grad
    src, tsrc = pair([1, 2], "int64")
    with pytest.warns(UserWarning, match="detach\\(\\).clone\\(\\)"):
        r = x.new_tensor(src)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tr = tx.new_tensor(tsrc)
    same(r, tr)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r2 = src.new_tensor(x)
    assert r2.grad_fn is None and not r2.requires_grad and r2.dtype is mg.int64


# ---------------------------------------------------------------------------------- masking
def test_masked_fill_and_where_method():
    y, ty = pair([1.0, 2.0, 3.0], "float32")
    m, tm = pair([True, False, True], "bool")
    same(y.masked_fill(m, 5), ty.masked_fill(tm, 5))
    same(mg.masked_fill(y, m, -1.5), torch.masked_fill(ty, tm, -1.5))
    same(y.masked_fill(m, mg.tensor(7.0)), ty.masked_fill(tm, torch.tensor(7.0)))
    i, ti = pair([3, 5, 7], "int64")
    same(i.masked_fill(m, 2.5), ti.masked_fill(tm, 2.5))
    same(i.masked_fill(m, mg.tensor(2.5)), ti.masked_fill(tm, torch.tensor(2.5)))
    h, th = pair([[1.0], [2.0]], "float16")
    same(h.masked_fill(m, mg.tensor(0.1)), th.masked_fill(tm, torch.tensor(0.1)))
    same_error(lambda: y.masked_fill(m, mg.tensor([5.0])),
               lambda: ty.masked_fill(tm, torch.tensor([5.0])))
    same_error(lambda: y.masked_fill(mg.tensor([1, 0, 1]), 5),
               lambda: ty.masked_fill(torch.tensor([1, 0, 1]), 5))
    same_error(lambda: y.masked_fill(mg.tensor([1, 0, 1]), mg.tensor(5.0)),
               lambda: ty.masked_fill(torch.tensor([1, 0, 1]), torch.tensor(5.0)))
    same(y.where(m, 0.0), ty.where(tm, 0.0))
    same(y.where(m, mg.tensor([7, 8, 9])), ty.where(tm, torch.tensor([7, 8, 9])))


def test_masked_fill_grads():
    m, tm = pair([[True, False, True]], "bool")
    for dt in ("float32", "float16"):
        y = mg.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=getattr(mg, dt),
                      requires_grad=True)
        ty = torch.tensor(y.tolist(), dtype=getattr(torch, dt), requires_grad=True)
        v, tv = mg.tensor(3.0, requires_grad=True), torch.tensor(3.0, requires_grad=True)
        w = mg.tensor([[1.0, 2.0, 3.0], [0.5, 0.25, 2.0]], dtype=y.dtype)
        tw = torch.tensor(w.tolist(), dtype=ty.dtype)
        (y.masked_fill(m, v) * w).sum().backward()
        (ty.masked_fill(tm, tv) * tw).sum().backward()
        same(y.grad, ty.grad)
        same(v.grad, tv.grad)
        y.grad = None
        ty.grad = None
        (y.masked_fill(m, 2) * w).sum().backward()
        (ty.masked_fill(tm, 2) * tw).sum().backward()
        same(y.grad, ty.grad)
        c = mg.tensor([True, False])
        a = mg.tensor([1.0, 2.0], requires_grad=True)
        ta = torch.tensor([1.0, 2.0], requires_grad=True)
        a.where(c, 0.0).sum().backward()
        ta.where(torch.tensor([True, False]), 0.0).sum().backward()
        same(a.grad, ta.grad)


# ---------------------------------------------------------------------------------- split
def _same_tuple(ms, ts):
    assert isinstance(ms, tuple) and isinstance(ts, tuple) and len(ms) == len(ts)
    for m, t in zip(ms, ts):
        same(m, t)


def test_split_chunk_unbind_forward():
    x = mg.arange(30.0).reshape(5, 6)
    tx = torch.arange(30.0).reshape(5, 6)
    for s in (1, 2, 4, 5, 7):
        _same_tuple(x.split(s), tx.split(s))
        _same_tuple(mg.split(x, s, 1), torch.split(tx, s, 1))
        _same_tuple(x.split(s, dim=-1), tx.split(s, dim=-1))
    for sizes in ([1, 4], [0, 5], (2, 2, 1)):
        _same_tuple(x.split(sizes), tx.split(sizes))
    _same_tuple(x.split([3, 3], 1), tx.split([3, 3], 1))
    for c in (1, 2, 3, 4, 5, 6, 9):
        _same_tuple(x.chunk(c), tx.chunk(c))
        _same_tuple(mg.chunk(x, c, dim=1), torch.chunk(tx, c, dim=1))
    _same_tuple(mg.zeros(0).chunk(3), torch.zeros(0).chunk(3))
    _same_tuple(mg.zeros(0).split(2), torch.zeros(0).split(2))
    _same_tuple(mg.zeros(0).split(0), torch.zeros(0).split(0))
    for d in (0, 1, -1):
        _same_tuple(x.unbind(d), tx.unbind(d))
        _same_tuple(mg.unbind(x, d), torch.unbind(tx, d))
    h = mg.ones(4, dtype=mg.bfloat16)
    assert all(p.dtype is mg.bfloat16 for p in h.chunk(2))


def test_split_chunk_unbind_errors():
    x, tx = mg.arange(10.0), torch.arange(10.0)
    same_error(lambda: x.chunk(0), lambda: tx.chunk(0))
    same_error(lambda: x.chunk(3, dim=1), lambda: tx.chunk(3, dim=1))
    same_error(lambda: x.split([3, 6]), lambda: tx.split([3, 6]))
    same_error(lambda: x.split([3, -3, 10]), lambda: tx.split([3, -3, 10]))
    same_error(lambda: x.split(0), lambda: tx.split(0))
    same_error(lambda: x.split(-1), lambda: tx.split(-1))
    same_error(lambda: x.unbind(2), lambda: tx.unbind(2))
    same_error(lambda: mg.tensor(1.0).unbind(), lambda: torch.tensor(1.0).unbind())
    same_error(lambda: mg.tensor(1.0).chunk(2), lambda: torch.tensor(1.0).chunk(2))


def test_split_chunk_unbind_grads():
    w = np.arange(1.0, 13.0).reshape(3, 4)
    for dt in ("float32", "float16", "bfloat16"):
        x = mg.tensor(w, dtype=getattr(mg, dt), requires_grad=True)
        tx = torch.tensor(w, dtype=getattr(torch, dt), requires_grad=True)
        a, b = x.split([1, 3], dim=1)
        ta, tb = tx.split([1, 3], dim=1)
        c = x.chunk(2)[1]
        tc = tx.chunk(2)[1]
        u = x.unbind(0)[2]
        tu = tx.unbind(0)[2]
        ((a * 2).sum() + (b * b).sum() + (c * 3).sum() + (u * u).sum()).backward()
        ((ta * 2).sum() + (tb * tb).sum() + (tc * 3).sum() + (tu * tu).sum()).backward()
        same(x.grad, tx.grad)
        assert a._base is not None or a.grad_fn is not None


@pytest.mark.parametrize("dt", ["float64", "float32", "float16", "bfloat16", "int64", "int32",
                                "int16", "int8", "uint8", "bool"])
def test_type_strings_match_torch(dt):
    import torch
    t = torch.ones(2).to(getattr(torch, dt))
    m = mg.ones(2).to(getattr(mg, dt))
    assert m.type() == t.type()
    assert m.cuda().type() == t.type().replace("torch.", "torch.cuda.")
    back = mg.ones(2).type(t.type())
    assert back.dtype is m.dtype
    with pytest.raises(ValueError, match="invalid type: 'torch.Foo'"):
        m.type("torch.Foo")
