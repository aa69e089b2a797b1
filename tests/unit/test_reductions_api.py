"""Reductions, scans and order statistics of issue 7 against torch: errors and warnings (type
and message), graph node names, return types, result dtypes and the argument forms the
catalogue's samples do not reach (legacy ``unbiased``, ``sort(stable=...)``, ``torch.norm``)."""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import torch

import minigrad as mg
from minigrad.testing import from_torch


def _both(fn, x):
    """(torch result or exception, minigrad result or exception) of ``fn(lib, x)``."""
    out = []
    for lib, t in ((torch, x), (mg, from_torch(x))):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                out.append(fn(lib, t))
            except Exception as e:  # noqa: BLE001 - compared below
                out.append(e)
    return out


X = torch.arange(12.0).reshape(3, 4)
ERRORS = [
    ("var int", lambda L, x: L.var(x.long()), X),
    ("var dim", lambda L, x: L.var(x, 5), X),
    ("logsumexp dim", lambda L, x: L.logsumexp(x, 2), X),
    ("cumsum dim", lambda L, x: L.cumsum(x, 2), X),
    ("prod dim", lambda L, x: L.prod(x, -3), X),
    ("topk k", lambda L, x: L.topk(x, 5), X),
    ("topk negative k", lambda L, x: L.topk(x, -1), X),
    ("topk bool", lambda L, x: L.topk(x > 3, 1), X),
    ("kthvalue k", lambda L, x: L.kthvalue(x, 5), X),
    ("kthvalue 0", lambda L, x: L.kthvalue(x, 0), X),
    ("median empty dim", lambda L, x: L.median(x[:0], 0), X),
    ("median bool", lambda L, x: L.median(x > 3), X),
    ("max empty", lambda L, x: L.max(x[:0]), X),
    ("max empty dim", lambda L, x: L.max(x[:0], 0), X),
    ("count_nonzero repeated", lambda L, x: L.count_nonzero(x, (0, 0)), X),
    ("sort stable positional", lambda L, x: L.sort(x, 0, stable=True), X),
    ("argsort stable positional", lambda L, x: L.argsort(x, 0, stable=True), X),
    ("matrix_norm 1-D", lambda L, x: L.linalg.matrix_norm(x[0]), X),
    ("matrix_norm order", lambda L, x: L.linalg.matrix_norm(x, 3), X),
    ("matrix_norm str order", lambda L, x: L.linalg.matrix_norm(x, "nuc2"), X),
    ("matrix_norm int", lambda L, x: L.linalg.matrix_norm(x.long()), X),
    ("matrix_norm same dims", lambda L, x: L.linalg.matrix_norm(x, dim=(0, 0)), X),
    ("vector_norm inf empty dim", lambda L, x: L.linalg.vector_norm(x[:0], math.inf, dim=0),
     X),
    ("vector_norm repeated dim", lambda L, x: L.linalg.vector_norm(x, dim=(0, 0)), X),
]


@pytest.mark.parametrize("name,fn,x", ERRORS, ids=[e[0] for e in ERRORS])
def test_errors_match_torch(name, fn, x):
    t, m = _both(fn, x)
    assert isinstance(t, Exception), f"torch did not raise: {t}"
    assert type(m) is type(t), f"{name}: minigrad gave {m!r}, torch raised {t!r}"
    if not isinstance(t, TypeError):        # the TypeError text is torch's argument parser's
        assert str(m) == str(t).split(" (Triggered internally")[0]


@pytest.mark.parametrize("fn", [
    lambda L, x: L.var(x[0, :1]), lambda L, x: L.std(x, correction=12),
    lambda L, x: L.var(x[:0], 0), lambda L, x: L.var_mean(x[0], correction=4)])
def test_degrees_of_freedom_warning(fn):
    msgs = []
    for lib, x in ((torch, X), (mg, from_torch(X))):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            r = fn(lib, x)
        msgs.append([str(x.message).split(" (Triggered internally")[0] for x in w])
        r = r[0] if isinstance(r, tuple) else r
        msgs.append(np.asarray(r.detach().to(lib.float64).tolist()).tolist())
    assert msgs[0] == msgs[2] and len(msgs[0]) == 1
    assert np.array_equal(np.asarray(msgs[1]), np.asarray(msgs[3]), equal_nan=True)


NODES = [
    lambda L, x: L.var(x), lambda L, x: x.var(1), lambda L, x: L.std(x, 0),
    lambda L, x: L.var_mean(x, 1)[0], lambda L, x: L.std_mean(x)[1],
    lambda L, x: L.logsumexp(x, 1), lambda L, x: x.cumsum(0), lambda L, x: L.cumprod(x, 1),
    lambda L, x: x.prod(), lambda L, x: L.prod(x, 1), lambda L, x: L.sort(x)[0],
    lambda L, x: L.sort(x, stable=True)[0], lambda L, x: x.topk(2)[0],
    lambda L, x: L.kthvalue(x, 2, 1)[0], lambda L, x: L.median(x), lambda L, x: x.median(1)[0],
    lambda L, x: L.linalg.vector_norm(x, dim=1), lambda L, x: L.linalg.matrix_norm(x),
    lambda L, x: L.linalg.matrix_norm(x, 1), lambda L, x: L.linalg.matrix_norm(x, -math.inf),
    lambda L, x: L.norm(x, dim=1), lambda L, x: x.norm(p=1), lambda L, x: L.max(x, 1)[0],
]


@pytest.mark.parametrize("i", range(len(NODES)))
def test_graph_node_names(i):
    t = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
    m = from_torch(t.detach()).requires_grad_()
    tn, mn = NODES[i](torch, t).grad_fn, NODES[i](mg, m).grad_fn
    assert mn.name() == tn.name()
    nxt = lambda n: [f[0].name().split("::")[-1] if f[0] else None  # noqa: E731
                     for f in n.next_functions]
    assert nxt(mn) == nxt(tn)


@pytest.mark.parametrize("op", ["sort", "topk", "kthvalue", "median", "max", "min"])
def test_return_types(op):
    args = {"topk": (2,), "kthvalue": (2,), "median": (1,), "max": (1,), "min": (1,)}.get(op, ())
    x = torch.tensor([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]])
    t, m = getattr(torch, op)(x, *args), getattr(mg, op)(from_torch(x), *args)
    assert repr(m).split("(")[0] == repr(t).split("(")[0].replace("torch", "minigrad")
    assert m.values.tolist() == t.values.tolist() and m.indices.tolist() == t.indices.tolist()
    v, i = m
    assert v is m.values and i is m.indices and m.indices.dtype is mg.int64


@pytest.mark.parametrize("fn", [
    lambda L, x: L.cumsum(x.int(), 0), lambda L, x: L.cumsum(x > 3, 1),
    lambda L, x: L.cumprod(x.to(L.uint8), 0), lambda L, x: L.prod(x > 3),
    lambda L, x: L.prod(x.int(), 1), lambda L, x: L.prod(x.to(L.int16), dtype=L.float64),
    lambda L, x: L.cumsum(x.half(), 1, dtype=L.float32), lambda L, x: L.logsumexp(x.long(), 1),
    lambda L, x: L.count_nonzero(x, 1), lambda L, x: L.count_nonzero(x),
    lambda L, x: L.sort(x.int(), 0, True)[0], lambda L, x: L.median(x.long()),
    lambda L, x: L.all(x, 1), lambda L, x: x.to(L.uint8).any(0, True),
    lambda L, x: L.var(x, 1, True, True), lambda L, x: x.std(False),
    lambda L, x: L.var_mean(x, unbiased=False), lambda L, x: L.var(x, (0, 1), correction=0.5),
    lambda L, x: L.norm(x, "fro", (0, 1)), lambda L, x: L.norm(x, 3, 0, True),
    lambda L, x: L.linalg.norm(x), lambda L, x: L.linalg.norm(x, math.inf),
    lambda L, x: L.linalg.norm(x[0], 1), lambda L, x: L.argsort(x, descending=True),
    lambda L, x: x.argsort(stable=True, dim=0, descending=True),
    lambda L, x: L.topk(x, 2, 0, largest=False), lambda L, x: L.median(x, 0, True),
])
def test_values_and_dtypes(fn):
    x = torch.tensor([[3.0, 0.0, 2.5, 7.0], [1.0, 5.0, 0.0, 4.0], [2.0, 6.0, 8.0, 0.5]])
    t, m = _both(fn, x)
    ts = t if isinstance(t, tuple) else (t,)
    ms = m if isinstance(m, tuple) else (m,)
    for a, b in zip(ts, ms, strict=True):
        assert str(b.dtype).replace("minigrad", "torch") == str(a.dtype)
        assert np.allclose(np.asarray(b.tolist(), np.float64), np.asarray(a.tolist(), np.float64),
                           rtol=1e-6, equal_nan=True)


def test_sort_ties_nan_and_signed_zeros():
    x = torch.tensor([1.0, 3, 3, 2, 3, math.nan, 0, -0.0, math.nan, 1])
    for kw in ({}, {"descending": True}, {"stable": True, "descending": True}):
        t, m = torch.sort(x, **kw), mg.sort(from_torch(x), **kw)
        assert m.indices.tolist() == t.indices.tolist()
        assert np.array_equal(np.asarray(m.values.tolist()), t.values.numpy(), equal_nan=True)


@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "int64"])
def test_unstable_sort_leaves_ties_where_torchs_std_sort_does(dtype):
    # past 16 elements PyTorch's CPU sort (stable=False) is libstdc++'s introsort: ties come
    # out of input order, and the gradient goes to the positions its indices name
    rng = np.random.default_rng(0)
    x = torch.tensor(rng.integers(0, 4, (3, 41))).to(getattr(torch, dtype))
    if x.is_floating_point():
        x[0, ::7] = math.nan
        x[1, ::5] = -0.0
    mx = from_torch(x)
    for dim in (1, 0):
        for kw in ({}, {"descending": True}, {"stable": False}, {"stable": True}):
            t, m = torch.sort(x, dim=dim, **kw), mg.sort(mx, dim=dim, **kw)
            assert m.indices.tolist() == t.indices.tolist(), (dim, kw)
    assert mg.argsort(mx[1]).tolist() == torch.argsort(x[1]).tolist()
    assert mg.argsort(mx[1]).tolist() != sorted(range(41), key=lambda i: x[1, i].item())
    if x.is_floating_point():
        w = torch.linspace(0, 1, 41, dtype=x.dtype)
        t = x.detach().requires_grad_()
        (torch.sort(t, dim=1).values * w).sum().backward()
        m = mx.detach().requires_grad_()
        (mg.sort(m, dim=1).values * from_torch(w)).sum().backward()
        assert m.grad.tolist() == t.grad.tolist()


def test_double_backward_var_logsumexp_cumprod():
    t = torch.tensor([[0.5, -1.0, 2.0], [1.5, 0.0, 3.0]], dtype=torch.float64,
                     requires_grad=True)
    m = from_torch(t.detach()).requires_grad_()
    res = []
    for lib, x in ((torch, t), (mg, m)):
        y = (lib.var(x, 1) * 3).sum() + lib.logsumexp(x, 0).sum() + lib.cumprod(x, 1).sum()
        (g,) = lib.autograd.grad(y, x, create_graph=True)
        (gg,) = lib.autograd.grad((g * g).sum(), x)
        res.append((np.asarray(g.tolist()), np.asarray(gg.tolist())))
    assert np.allclose(res[0][0], res[1][0]) and np.allclose(res[0][1], res[1][1])
