"""Random ops against torch: distributions (moments, ranges), determinism under a seed, shapes,
dtypes, graph nodes and errors. Values cannot be compared (minigrad's generator is NumPy's PCG64,
not PyTorch's mt19937), so each distribution check is a statistical bound loose enough never to
fail by chance (several standard errors at the sample size used) yet tight enough to catch a
wrong parameter.
"""
from __future__ import annotations

import numpy as np
import pytest
import torch

import minigrad as mg
from minigrad.dispatch import DispatchMode
from tests.unit._data_compare import error_of

N = 20000
LIBS = {"torch": torch, "minigrad": mg}


def _same_error(fn):
    """``fn(lib)`` raises the same exception type and message in both libraries."""
    t, m = (error_of(lambda *_: fn(LIBS[n])) for n in ("torch", "minigrad"))
    assert t is not None, "torch raised nothing"
    assert m == t


def _np(t):
    return t.detach().to(mg.float64).numpy() if t.dtype.is_floating_point else \
        t.detach().numpy()


@pytest.mark.parametrize("dt", ["float64", "float32", "float16", "bfloat16"])
def test_fills_moments_and_dtype(dt):
    g = mg.Generator().manual_seed(0)
    x = mg.empty(N, dtype=getattr(mg, dt))
    checks = [
        (lambda: x.normal_(2.0, 3.0, generator=g), 2.0, 3.0),
        (lambda: x.uniform_(-1.0, 3.0, generator=g), 1.0, 4 / 12 ** 0.5),
        (lambda: x.exponential_(2.0, generator=g), 0.5, 0.5),
        (lambda: x.bernoulli_(0.3, generator=g), 0.3, (0.3 * 0.7) ** 0.5),
    ]
    for fill, mean, std in checks:
        assert fill() is x and x.dtype is getattr(mg, dt)
        a = _np(x)
        tol = 6 * std / N ** 0.5 + (0.02 * abs(mean) if dt == "bfloat16" else 0)
        assert abs(a.mean() - mean) < tol, (fill, a.mean())
        assert abs(a.std() - std) < 0.05 * std
    x.uniform_(-1.0, 3.0, generator=g)
    assert _np(x).min() >= -1 and _np(x).max() <= 3


def test_seed_determinism_and_generator_state():
    def draw(g):
        return [_np(mg.empty(5).normal_(generator=g)), _np(mg.bernoulli(mg.full((5,), 0.5),
                                                                      generator=g)),
                _np(mg.multinomial(mg.ones(6), 3, generator=g)),
                _np(mg.empty(5, dtype=mg.int64).random_(0, 100, generator=g)),
                _np(mg.randint_like(mg.zeros(5), 10, generator=g)),
                _np(mg.normal(mg.zeros(5), 1.0, generator=g))]
    a, b = draw(mg.Generator().manual_seed(7)), draw(mg.Generator().manual_seed(7))
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    g = mg.Generator().manual_seed(7)
    state = g.get_state()
    first = _np(mg.empty(4).uniform_(generator=g))
    g.set_state(state)
    assert np.array_equal(first, _np(mg.empty(4).uniform_(generator=g)))
    mg.manual_seed(3)
    c = _np(mg.empty(4).exponential_())
    mg.manual_seed(3)
    assert np.array_equal(c, _np(mg.empty(4).exponential_()))
    for lib in (torch, mg):
        assert lib.Generator().manual_seed(-1).initial_seed() == 2 ** 64 - 1
        assert str(lib.Generator().device) == "cpu"


def test_random_ranges_and_dtypes():
    for dt, top in (("float32", 2 ** 24), ("float16", 2 ** 11), ("int64", 2 ** 63 - 1),
                    ("uint8", 255), ("bool", 1)):
        a = _np(mg.empty(4000, dtype=getattr(mg, dt)).random_())
        assert a.min() >= 0 and a.max() <= top and (a == np.round(a)).all()
    a = _np(mg.empty(4000, dtype=mg.int64).random_(3, 7))
    assert set(a.tolist()) == {3, 4, 5, 6}
    a = _np(mg.empty(4000).random_(5))
    assert set(a.tolist()) == {0.0, 1.0, 2.0, 3.0, 4.0}
    for lib in (torch, mg):
        r = lib.randint_like(lib.zeros(3, dtype=lib.float16), 2, 5)
        assert r.dtype == lib.float16 and tuple(r.shape) == (3,)


def test_bernoulli_and_multinomial_distributions():
    p = mg.tensor([0.0, 0.2, 0.9, 1.0]).expand(N, 4)
    a = _np(mg.bernoulli(p, generator=mg.Generator().manual_seed(1)))
    assert np.allclose(a.mean(0), [0, 0.2, 0.9, 1], atol=0.02)
    assert _np(mg.bernoulli(mg.zeros(3, dtype=mg.float16), 1.0)).tolist() == [1, 1, 1]
    w = mg.tensor([1.0, 0.0, 3.0])
    s = _np(mg.multinomial(w, N, True, generator=mg.Generator().manual_seed(2)))
    assert np.allclose(np.bincount(s, minlength=3) / N, [0.25, 0, 0.75], atol=0.02)
    rows = _np(mg.multinomial(mg.ones(500, 5), 5))
    assert (np.sort(rows, 1) == np.arange(5)).all()       # without replacement: a permutation
    firsts = _np(mg.multinomial(mg.tensor([1.0, 2.0, 7.0]).expand(N, 3), 1)).ravel()
    assert np.allclose(np.bincount(firsts) / N, [0.1, 0.2, 0.7], atol=0.02)
    assert _np(mg.multinomial(mg.tensor([1.0, 0.0, 0.0]), 3)).tolist() == [0, 1, 2]
    for lib in (torch, mg):
        out = lib.multinomial(lib.ones(2, 3), 2, generator=lib.Generator().manual_seed(0))
        assert out.dtype == lib.int64 and tuple(out.shape) == (2, 2)


def test_normal_overloads():
    m = mg.zeros(N, requires_grad=True)
    s = mg.full((N,), 2.0, requires_grad=True)
    for out, std in ((mg.normal(m, 2.0), 2.0), (mg.normal(1.0, s), 2.0),
                     (mg.normal(m, s), 2.0), (mg.normal(0.0, 3.0, (N,)), 3.0)):
        a = _np(out)
        assert abs(a.std() - std) < 0.05 * std
    tm, ts = torch.zeros(3, requires_grad=True), torch.ones(3, requires_grad=True)
    mm, ms = mg.zeros(3, requires_grad=True), mg.ones(3, requires_grad=True)
    for f in (lambda L, a, b: L.normal(a, 2.0), lambda L, a, b: L.normal(0.0, b),
              lambda L, a, b: L.normal(a, b)):
        t, o = f(torch, tm, ts), f(mg, mm, ms)
        assert o.grad_fn.name() == t.grad_fn.name()
        o.sum().backward()
    assert _np(mm.grad).tolist() == [0, 0, 0] and _np(ms.grad).tolist() == [0, 0, 0]
    assert tuple(mg.normal(mg.zeros(2, 1), mg.ones(3)).shape) == (2, 3)


def test_graph_nodes_like_torch():
    def nodes(L):
        x = L.rand(3, requires_grad=True)
        y = x * 2
        return [L.bernoulli(x).grad_fn.name(), L.bernoulli(x, 0.5).grad_fn.name(),
                y.clone().normal_().grad_fn.name(), y.clone().uniform_().grad_fn.name(),
                y.clone().exponential_().grad_fn.name(), y.clone().bernoulli_(0.5).grad_fn.name(),
                y.clone().bernoulli_(L.full((3,), 0.5)).grad_fn.name()]
    assert nodes(mg) == nodes(torch)
    x = mg.rand(3, requires_grad=True)
    y = (x * 2).clone()
    y.normal_()
    y.sum().backward()
    assert _np(x.grad).tolist() == [0, 0, 0]


class _Names(DispatchMode):
    def __init__(self):
        self.names = []

    def __minigrad_dispatch__(self, op_name, args, kwargs, call_next):
        self.names.append(op_name)
        return call_next(args, kwargs)


def test_fills_are_dispatched_writes():
    x = mg.zeros(4)
    v0 = x._version
    rec = _Names()
    with rec:
        x.normal_()
        x.uniform_()
        x.exponential_()
        x.random_(0, 3)
        x.bernoulli_(0.5)
        x.bernoulli_(mg.full((4,), 0.5))
    assert rec.names[:5] == ["normal_", "uniform_", "exponential_", "random_",
                             "bernoulli_.float"]
    assert "bernoulli_.Tensor" in rec.names
    assert x._version == v0 + 6


@pytest.mark.parametrize("fn", [
    lambda L: L.bernoulli(L.tensor([1.5])),
    lambda L: L.bernoulli(L.zeros(2), 1.5),
    lambda L: L.bernoulli(L.zeros(2, dtype=L.int64)),
    lambda L: L.zeros(2, 3).bernoulli_(L.tensor([0.2, 1.4, 0.5])),
    lambda L: L.zeros(2).bernoulli_(-0.1),
    lambda L: L.rand(3, requires_grad=True).normal_(),
    lambda L: L.multinomial(L.tensor([0.2, 0.8]), 4),
    lambda L: L.multinomial(L.ones(2, 2, 2), 1),
    lambda L: L.multinomial(L.ones(2), 0),
    lambda L: L.multinomial(L.tensor([-1.0, 2.0]), 1),
    lambda L: L.multinomial(L.tensor([-1.0, 2.0]), 2, True),
    lambda L: L.multinomial(L.tensor([1.0, float("nan")]), 2, True),
    lambda L: L.multinomial(L.tensor([1, 2]), 1),
    lambda L: L.multinomial(L.zeros(2), 1),
    lambda L: L.zeros(2).exponential_(0),
    lambda L: L.zeros(2, dtype=L.int64).exponential_(),
    lambda L: L.zeros(2).normal_(0, -1),
    lambda L: L.zeros(2, dtype=L.int64).normal_(),
    lambda L: L.zeros(2).uniform_(2, 1),
    lambda L: L.zeros(2, dtype=L.int64).uniform_(),
    lambda L: L.zeros(3, dtype=L.int64).random_(5, 2),
    lambda L: L.zeros(3, dtype=L.float16).random_(0, 100000),
    lambda L: L.randint_like(L.zeros(3), 5, 2),
    lambda L: L.normal(L.zeros(2), L.tensor([1.0, -1.0])),
    lambda L: L.normal(L.zeros(2), -1.0),
    lambda L: L.normal(0.0, -1.0, (2,)),
    lambda L: L.normal(L.zeros(2, dtype=L.int64), 1.0),
    lambda L: L.Generator().manual_seed(1.5),
])
def test_errors_like_torch(fn):
    _same_error(fn)


def test_bernoulli_scalar_integer_test_matches_uniform():
    """``bernoulli_scalar``'s integer comparison of the words' halves is ``u < p`` for
    ``_fraction``'s 53-bit uniform ``u``, on words planted at ``ceil(p * 2**53)`` and its
    neighbours (with junk in the unused high bits), for p of 0, 1, 1/2, one ulp from 0 and 1,
    subnormal and irrational-ish values."""
    import math
    from minigrad.ops import _distributions as D

    class Words:
        def __init__(self, words):
            self.words = words

        def _random(self, n):
            return self.words[:n]

        def _random64(self, n):
            w = self._random(2 * n)
            return (w[0::2] << np.uint64(32)) | w[1::2]

    rng = np.random.default_rng(11)
    n = 5000
    for p in [0.0, 1.0, 0.5, 0.75, 1 - 2 ** -53, 2 ** -53, 3 * 2 ** -53, 5e-324, 0.1, 1 / 3,
              2 ** -20 + 2 ** -53]:
        w = rng.integers(0, 2 ** 32, 2 * n, dtype=np.uint64)
        t = math.ceil(p * 2.0 ** 53)
        for i, m in enumerate([t - 2, t - 1, t, t + 1, 0, 2 ** 53 - 1]):
            m = min(max(m, 0), 2 ** 53 - 1)
            w[2 * i] = (m >> 32) | (int(rng.integers(0, 2 ** 11)) << 21)
            w[2 * i + 1] = m & 0xFFFFFFFF
        want = D._fraction(Words(w), n, mg.float64) < p
        got = D.bernoulli_scalar(Words(w), n, p)
        assert got.dtype == np.bool_ and np.array_equal(got, want), p
