"""``minigrad.nn.init`` against ``torch.nn.init``: the deterministic fills (``eye_``, ``dirac_``,
``constant_``) equal torch's; the random ones (``trunc_normal_``, ``orthogonal_``, ``sparse_``,
``uniform_``/``normal_`` with a ``generator``) are checked by their defining properties and by
seeded statistics compared with torch's own samples (the random streams differ by design);
gains, fans, warnings and errors equal torch's."""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import torch

import minigrad
import minigrad.nn as nn
from tests.unit.test_nn import _err, _np

I, TI = nn.init, torch.nn.init


def _warns(fn):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        fn()
    return [(x.category.__name__, str(x.message)) for x in w]


# ---------------------------------------------------------------- trunc_normal_
@pytest.mark.parametrize("mean,std,a,b", [
    (0.0, 1.0, -2.0, 2.0),        # most mass inside: normal draws, redrawn outside
    (0.5, 1.0, -0.2, 0.3),        # p < 0.3: uniform proposals accepted by pdf ratio
    (0.0, 0.02, -0.04, 0.04),     # GPT-style init
    (1.0, 2.0, 2.5, 3.0)])        # interval on one side of the mean
def test_trunc_normal_bounds_and_moments_match_torch(mean, std, a, b):
    minigrad.manual_seed(0)
    torch.manual_seed(0)
    m = _np(I.trunc_normal_(minigrad.empty(200, 200), mean, std, a, b))
    t = TI.trunc_normal_(torch.empty(200, 200, dtype=torch.float64), mean, std, a, b).numpy()
    assert m.min() >= np.float32(a) and m.max() <= np.float32(b)
    width = b - a
    assert m.min() < a + 0.01 * width and m.max() > b - 0.01 * width
    # 40k samples each: the means and stds agree to a small fraction of the interval
    assert abs(m.mean() - t.mean()) < 0.01 * width
    assert abs(m.std() - t.std()) < 0.01 * width
    # the truncated normal's exact mean, from its density
    alpha, beta = (a - mean) / std, (b - mean) / std
    pdf = (lambda z: math.exp(-z * z / 2) / math.sqrt(2 * math.pi))
    cdf = (lambda z: (1 + math.erf(z / math.sqrt(2))) / 2)
    exact = mean + std * (pdf(alpha) - pdf(beta)) / (cdf(beta) - cdf(alpha))
    assert abs(m.mean() - exact) < 0.01 * width


def test_trunc_normal_16bit_and_generator():
    x = I.trunc_normal_(minigrad.empty(64, 64, dtype=minigrad.bfloat16), 0.0, 1.0, -1.0, 1.0)
    assert x.dtype is minigrad.bfloat16 and np.abs(_np(x)).max() <= 1.0
    g1, g2 = minigrad.Generator().manual_seed(5), minigrad.Generator().manual_seed(5)
    a = I.trunc_normal_(minigrad.empty(10), generator=g1)
    b = I.trunc_normal_(minigrad.empty(10), generator=g2)
    assert np.array_equal(_np(a), _np(b))


def test_trunc_normal_warning_and_errors_match_torch():
    assert _warns(lambda: I.trunc_normal_(minigrad.empty(3), 10.0, 1.0)) == \
        _warns(lambda: TI.trunc_normal_(torch.empty(3), 10.0, 1.0))
    assert _warns(lambda: I.trunc_normal_(minigrad.empty(3), 10.0, 1.0))
    for args in [(0.0, 1.0, 2.0, 1.0), (0.0, 0.0)]:
        assert _err(lambda: I.trunc_normal_(minigrad.empty(3), *args)) == \
            _err(lambda: TI.trunc_normal_(torch.empty(3), *args))
        assert _err(lambda: I.trunc_normal_(minigrad.empty(3), *args)) is not None


# ---------------------------------------------------------------- orthogonal_
@pytest.mark.parametrize("shape", [(8, 8), (5, 12), (12, 5), (6, 2, 3, 2), (3, 1)])
def test_orthogonal_is_orthogonal_as_torch(shape):
    gain = 1.7
    m = _np(I.orthogonal_(minigrad.empty(shape), gain=gain)).reshape(shape[0], -1)
    t = TI.orthogonal_(torch.empty(shape, dtype=torch.float64), gain=gain).numpy()
    t = t.reshape(shape[0], -1)
    rows, cols = m.shape
    for q in (m, t):
        gram = q @ q.T if rows <= cols else q.T @ q
        np.testing.assert_allclose(gram, gain ** 2 * np.eye(min(rows, cols)), atol=1e-5)
    again = _np(I.orthogonal_(minigrad.empty(shape), gain=gain)).reshape(m.shape)
    assert not np.allclose(m, again)                  # random, not a fixed matrix


def test_orthogonal_is_haar_distributed():
    # Haar-uniform Q (the sign fix on R's diagonal): each entry of a random 4x4 orthogonal
    # matrix has mean 0 and variance 1/4, also Q[0, 0] (without the fix it is biased).
    minigrad.manual_seed(1)
    first = np.array([_np(I.orthogonal_(minigrad.empty(4, 4)))[0, 0] for _ in range(600)])
    assert abs(first.mean()) < 0.06 and abs(first.var() - 0.25) < 0.04


def test_orthogonal_errors_and_empty_match_torch():
    assert _err(lambda: I.orthogonal_(minigrad.empty(3))) == \
        _err(lambda: TI.orthogonal_(torch.empty(3))) != None  # noqa: E711
    assert tuple(I.orthogonal_(minigrad.empty(0, 3)).shape) == (0, 3)


# ---------------------------------------------------------------- sparse_, eye_, dirac_
def test_sparse_zero_count_per_column_and_std_match_torch():
    minigrad.manual_seed(0)
    torch.manual_seed(0)
    rows, cols, sparsity, std = 40, 300, 0.25, 0.5
    m = _np(I.sparse_(minigrad.empty(rows, cols), sparsity, std))
    t = TI.sparse_(torch.empty(rows, cols), sparsity, std).numpy()
    assert ((m == 0).sum(0) == (t == 0).sum(0)).all()
    assert ((m == 0).sum(0) == math.ceil(sparsity * rows)).all()
    assert abs(m[m != 0].std() - std) < 0.03 and abs(t[t != 0].std() - std) < 0.03
    assert _err(lambda: I.sparse_(minigrad.empty(3, 3, 3), 0.1)) == \
        _err(lambda: TI.sparse_(torch.empty(3, 3, 3), 0.1)) != None  # noqa: E711


@pytest.mark.parametrize("shape", [(3, 3), (2, 5), (5, 2)])
def test_eye_equals_torch(shape):
    assert np.array_equal(_np(I.eye_(minigrad.empty(shape))), TI.eye_(torch.empty(shape)).numpy())


@pytest.mark.parametrize("shape,groups", [((4, 3, 3), 1), ((6, 2, 3, 3), 2), ((4, 4, 2, 3, 3), 1),
                                          ((2, 5, 4, 4), 1), ((6, 1, 5), 3)])
def test_dirac_equals_torch(shape, groups):
    m = _np(I.dirac_(minigrad.ones(shape), groups))
    assert np.array_equal(m, TI.dirac_(torch.ones(shape), groups).numpy())


def test_eye_dirac_errors_match_torch():
    for mf, tf in [(lambda: I.eye_(minigrad.empty(2, 2, 2)), lambda: TI.eye_(torch.empty(2, 2, 2))),
                   (lambda: I.dirac_(minigrad.empty(3, 3)), lambda: TI.dirac_(torch.empty(3, 3))),
                   (lambda: I.dirac_(minigrad.empty(3, 3, 3), 2),
                    lambda: TI.dirac_(torch.empty(3, 3, 3), 2))]:
        assert _err(mf) == _err(tf) != None  # noqa: E711


# ---------------------------------------------------------------- uniform_/normal_, gains, fans
def test_generator_makes_uniform_and_normal_reproducible():
    for fill in (lambda t, g: I.uniform_(t, -1, 2, generator=g),
                 lambda t, g: I.normal_(t, 1, 3, generator=g),
                 lambda t, g: I.xavier_uniform_(t, generator=g),
                 lambda t, g: I.kaiming_normal_(t, generator=g),
                 lambda t, g: I.orthogonal_(t, generator=g)):
        a = fill(minigrad.empty(6, 7), minigrad.Generator().manual_seed(3))
        b = fill(minigrad.empty(6, 7), minigrad.Generator().manual_seed(3))
        c = fill(minigrad.empty(6, 7), minigrad.Generator().manual_seed(4))
        assert np.array_equal(_np(a), _np(b)) and not np.array_equal(_np(a), _np(c))
    minigrad.manual_seed(0)
    u = _np(I.uniform_(minigrad.empty(100, 100), -1, 2))
    assert u.min() >= -1 and u.max() < 2 and abs(u.mean() - 0.5) < 0.03


def test_calculate_gain_every_nonlinearity_equals_torch():
    names = ["linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
             "conv_transpose3d", "sigmoid", "tanh", "relu", "selu"]
    for name in names:
        assert I.calculate_gain(name) == TI.calculate_gain(name)
    for param in (None, 0.2, 1, 0):
        assert I.calculate_gain("leaky_relu", param) == TI.calculate_gain("leaky_relu", param)
    for bad in [("leaky_relu", True), ("leaky_relu", "0.1"), ("gelu",)]:
        assert _err(lambda: I.calculate_gain(*bad)) == _err(lambda: TI.calculate_gain(*bad))


@pytest.mark.filterwarnings("ignore:Initializing zero-element tensors is a no-op")
@pytest.mark.parametrize("shape", [(3,), (), (4, 5), (4, 5, 3), (2, 3, 4, 5), (0, 3)])
def test_fans_and_their_errors_equal_torch(shape):
    m = _err(lambda: I._calculate_fan_in_and_fan_out(minigrad.empty(shape)))
    t = _err(lambda: TI._calculate_fan_in_and_fan_out(torch.empty(shape)))
    assert m == t
    if t is None:
        assert I._calculate_fan_in_and_fan_out(minigrad.empty(shape)) == \
            TI._calculate_fan_in_and_fan_out(torch.empty(shape))
    for fn in ("xavier_uniform_", "xavier_normal_", "kaiming_uniform_", "kaiming_normal_"):
        assert _err(lambda: getattr(I, fn)(minigrad.empty(shape))) == \
            _err(lambda: getattr(TI, fn)(torch.empty(shape)))


def test_fill_errors_and_warnings_match_torch():
    cases = [(lambda lib: lib.empty(3), lambda i, t: i.uniform_(t, 1, 0)),
             (lambda lib: lib.empty(3), lambda i, t: i.normal_(t, 0, -1)),
             (lambda lib: lib.empty(3, dtype=lib.int64), lambda i, t: i.uniform_(t)),
             (lambda lib: lib.empty(3, dtype=lib.int64), lambda i, t: i.normal_(t)),
             (lambda lib: lib.empty(3, 4), lambda i, t: i.kaiming_uniform_(t, mode="x"))]
    for make, fill in cases:
        assert _err(lambda: fill(I, make(minigrad))) == _err(lambda: fill(TI, make(torch)))
        assert _err(lambda: fill(I, make(minigrad))) is not None
    for fn in ("kaiming_uniform_", "kaiming_normal_"):
        assert _warns(lambda: getattr(I, fn)(minigrad.empty(0, 3))) == \
            _warns(lambda: getattr(TI, fn)(torch.empty(0, 3)))
    c = I.constant_(minigrad.empty(2, dtype=minigrad.int64), 2.7)
    assert _np(c).tolist() == TI.constant_(torch.empty(2, dtype=torch.int64), 2.7).tolist()


def test_deprecated_aliases_warn_as_torch():
    for name in ["uniform", "normal", "constant", "eye", "dirac", "xavier_uniform",
                 "xavier_normal", "kaiming_uniform", "kaiming_normal", "orthogonal", "sparse"]:
        assert name in I.__all__ and name + "_" in I.__all__
        args = {"constant": (0.5,), "sparse": (0.1,)}.get(name, ())
        shape = (2, 3, 3) if name == "dirac" else (3, 3)
        assert _warns(lambda: getattr(I, name)(minigrad.empty(shape), *args)) == \
            _warns(lambda: getattr(TI, name)(torch.empty(shape), *args))
    assert set(TI.__all__) <= set(I.__all__)
