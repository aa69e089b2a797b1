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


# ---------------------------------------------------------------------- float8 targets
_F8 = ("float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz")


def _f8_values(name):
    """Every finite value of the float8 format, sorted (from its 256 bit patterns)."""
    v = np.arange(256, dtype=np.uint8).view(getattr(ml_dtypes, name)).astype(np.float64)
    return np.unique(v[np.isfinite(v)])


@pytest.mark.parametrize("name", _F8)
def test_float8_results_are_the_neighbours_below_the_max(name):
    vals = _f8_values(name)
    top = vals[-1]
    rng = np.random.default_rng(3)
    x = rng.uniform(-top, top, 4000) * np.exp2(-rng.integers(0, 24, 4000))
    x = x.astype(np.float32)
    mg.manual_seed(4)
    got = stochastic_round(mg.tensor(x), getattr(mg, name)).float().numpy().astype(np.float64)
    xd = x.astype(np.float64)
    lo = vals[np.searchsorted(vals, xd, side="right") - 1]
    hi = vals[np.searchsorted(vals, xd, side="left")]
    assert np.all((got == lo) | (got == hi))
    assert np.all(np.signbit(got[got == 0]) <= np.signbit(xd[got == 0]))  # fnuz: +0 only
    assert 0.1 < np.mean(got == hi) < 0.9           # both directions are taken


def test_float8_negative_values_round_towards_their_own_sign_in_fnuz():
    # fnuz has no -0: a tiny negative value rounds to +0 (nearest) or to -smallest subnormal
    for name, tiny in (("float8_e4m3fnuz", 2.0 ** -10), ("float8_e5m2fnuz", 2.0 ** -17)):
        mg.manual_seed(6)
        got = stochastic_round(mg.full((4000,), -tiny / 4), getattr(mg, name)).float().numpy()
        assert set(np.unique(got)) == {np.float32(-tiny), np.float32(0.0)}
        assert abs(np.mean(got) + tiny / 4) < 5 * tiny * 0.5 / np.sqrt(4000)   # unbiased


def test_float8_unbiased_just_below_the_max():
    # between 416 and 448 (e4m3fn's two largest values) the result stays unbiased
    n = 40000
    mg.manual_seed(7)
    y = stochastic_round(mg.full((n,), 440.0), mg.float8_e4m3fn).float().numpy()
    assert set(np.unique(y)) == {416.0, 448.0}
    assert abs(y.mean() - 440.0) < 5 * 32 * 0.5 / np.sqrt(n)


@pytest.mark.parametrize("name", _F8)
def test_float8_saturation_overflow_and_nan_as_torch_casts(name):
    torch = pytest.importorskip("torch")
    top = float(_f8_values(name)[-1])
    x = np.array([top, -top, top * 1.01, top * 1.06, -top * 1.2, 1e30, -1e30, np.inf,
                  -np.inf, np.nan, -np.nan, 0.0, -0.0], np.float32)
    mg.manual_seed(8)
    ours = stochastic_round(mg.tensor(x), getattr(mg, name))._data.view(np.uint8)
    theirs = torch.from_numpy(x).to(getattr(torch, name)).view(torch.uint8).numpy()
    # every one of these has a single candidate in the format (the max, the saturated max,
    # inf, NaN or zero), so the stochastic cast gives torch's nearest cast, bit for bit
    assert ours.tolist() == theirs.tolist()
    if name == "float8_e4m3fn":     # saturation, never NaN for a non-NaN input
        f = stochastic_round(mg.tensor(x), mg.float8_e4m3fn).float().numpy()
        assert f[:9].tolist() == [448, -448, 448, 448, -448, 448, -448, 448, -448]


def test_float8_from_float64_and_16_bit_sources_saturate_too():
    for src in (mg.float64, mg.bfloat16, mg.float16):
        x = mg.tensor([500.0, -1000.0, 447.0], dtype=src)
        mg.manual_seed(9)
        y = stochastic_round(x, mg.float8_e4m3fn).float().tolist()
        assert y[:2] == [448.0, -448.0] and y[2] in (416.0, 448.0)
