"""Stochastic rounding (``amp_emu.formats.stochastic_round`` / ``_to_copy_stochastic``) against
its definition: results are one of the two neighbours, unbiased, specials kept, reproducible
from a seed, gradients passed through."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import minigrad as mg
from amp_emu.formats import stochastic_round


def _neighbours(x, np_dt):
    """The largest value of the format <= x and the smallest >= x (float64 arrays)."""
    r = x.astype(np_dt).astype(np.float64)
    lo = np.where(r <= x, r, np.nextafter(r.astype(np_dt), np_dt.type(-np.inf)).astype(
        np.float64))
    hi = np.where(r >= x, r, np.nextafter(r.astype(np_dt), np_dt.type(np.inf)).astype(
        np.float64))
    return lo, hi


@pytest.mark.parametrize("dt,np_dt", [(mg.float16, np.dtype(np.float16)),
                                      (mg.bfloat16, np.dtype(ml_dtypes.bfloat16))])
def test_results_are_the_neighbours(dt, np_dt):
    rng = np.random.default_rng(0)
    x = (rng.standard_normal(5000) * np.exp(rng.uniform(-12, 8, 5000))).astype(np.float32)
    mg.manual_seed(1)
    y = stochastic_round(mg.tensor(x), dt)
    assert y.dtype is dt
    got = np.asarray(y._data).astype(np.float64)
    lo, hi = _neighbours(x.astype(np.float64), np_dt)
    assert np.all((got == lo) | (got == hi))
    assert 0 < np.mean(got != x.astype(np_dt).astype(np.float64)) < 0.5  # some go the far way


@pytest.mark.parametrize("value,dt", [(1.0 + 2 ** -12, mg.float16), (1.0 + 3 * 2 ** -10,
                                                                     mg.bfloat16),
                                      (3e-6, mg.float16)])
def test_unbiased(value, dt):
    n = 40000
    mg.manual_seed(2)
    y = stochastic_round(mg.full((n,), value, dtype=mg.float32), dt).double().numpy()
    vals = np.unique(y)
    assert len(vals) == 2                  # both neighbours occur
    spacing = vals[1] - vals[0]
    sigma = spacing * 0.5 / np.sqrt(n)
    assert abs(y.mean() - np.float64(np.float32(value))) < 5 * sigma


def test_specials_exact_values_and_overflow_kept():
    x = mg.tensor([0.0, -0.0, 1.5, float("inf"), float("-inf"), float("nan"), 1e6, -1e6])
    y = stochastic_round(x, mg.float16).float().numpy()
    assert y[0] == 0 and not np.signbit(y[0]) and np.signbit(y[1])
    assert y[2] == 1.5 and y[3] == np.inf and y[4] == -np.inf and np.isnan(y[5])
    assert y[6] == np.inf and y[7] == -np.inf       # nearest rounding overflows: stays inf


def test_reproducible_from_a_seed_and_a_generator():
    x = mg.randn(1000)
    mg.manual_seed(5)
    a = stochastic_round(x, mg.bfloat16)
    after = mg.rand(3)
    mg.manual_seed(5)
    b = stochastic_round(x, mg.bfloat16)
    assert a._data.tobytes() == b._data.tobytes()
    mg.manual_seed(5)
    mg.rand(1000, dtype=mg.float64)                 # one double per element, no more
    assert mg.rand(3).tolist() == after.tolist()
    g1, g2 = mg.Generator().manual_seed(7), mg.Generator().manual_seed(7)
    c, d = stochastic_round(x, mg.bfloat16, g1), stochastic_round(x, mg.bfloat16, g2)
    assert c._data.tobytes() == d._data.tobytes()
    e = stochastic_round(x, mg.bfloat16, mg.Generator().manual_seed(8))
    assert c._data.tobytes() != e._data.tobytes()


def test_gradient_passes_through_and_errors():
    x = mg.randn(4, requires_grad=True)
    y = stochastic_round(x, mg.float16)
    assert y.grad_fn.name() == "ToCopyStochasticBackward"
    y.float().sum().backward()
    assert x.grad.dtype is mg.float32 and x.grad.tolist() == [1.0] * 4
    with pytest.raises(TypeError, match="floating"):
        stochastic_round(mg.tensor([1, 2]), mg.float16)
    with pytest.raises(TypeError, match="narrower"):
        stochastic_round(mg.randn(2).half(), mg.float32)
