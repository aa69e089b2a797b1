"""The fp32 fast path of ``minigrad/ops/foreach_kernels.py`` against its general path.

The fast path writes results straight into the destination, chunk by chunk; the general path
computes new arrays in opmath and copies them in. Both must give the same bits (NaN payloads
included) on sizes crossing chunk boundaries, with inf/NaN/signed zeros in the inputs.
"""
from __future__ import annotations

import numpy as np
import pytest

from minigrad.ops import foreach_kernels as K

SIZES = [1, 7, K.CHUNK - 1, 2 * K.CHUNK, 2 * K.CHUNK + 5]   # one piece, whole chunks, a short last one


def _arrays(n, seed):
    rng = np.random.default_rng(seed)
    a, b = (np.asarray(rng.standard_normal(n), np.float32) for _ in range(2))
    c = np.asarray(rng.random(n) + 0.05, np.float32)
    special = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-45, 3e38], np.float32)
    k = min(n, special.size)
    a[:k] = special[:k]
    b[-k:] = special[:k]
    return a, b, c


RECIPES = {
    "add": lambda a, b, c, out: K.add(a, b, -0.37, out=out),
    "add_alpha1": lambda a, b, c, out: K.add(a, b, 1.0, out=out),
    "mul": lambda a, b, c, out: K.mul(a, 0.999, out=out),
    "add_scalar": lambda a, b, c, out: K.add_scalar(a, 1e-3, out=out),
    "div_scalar": lambda a, b, c, out: K.div_scalar(a, 0.7, out=out),
    "lerp_small": lambda a, b, c, out: K.lerp(a, b, 0.1, out=out),
    "lerp_big": lambda a, b, c, out: K.lerp(a, b, 0.7, out=out),
    "addcmul": lambda a, b, c, out: K.addcmul(a, b, c, 0.001, out=out),
    "addcdiv": lambda a, b, c, out: K.addcdiv(a, b, c, -0.01, out=out),
    "sqrt": lambda a, b, c, out: K.sqrt(c, out=out),
    "mul_tensors": lambda a, b, c, out: K.mul_tensors(a, b, out=out),
    "div_tensors": lambda a, b, c, out: K.div_tensors(a, c, out=out),
}


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("name", list(RECIPES))
def test_fast_path_equals_general_path(name, n, monkeypatch):
    fn = RECIPES[name]
    a, b, c = _arrays(n, n)
    with np.errstate(all="ignore"):
        monkeypatch.setattr(K, "FAST_FP32", False)
        slow_new = fn(a.copy(), b, c, None)
        slow_in = a.copy()
        fn(slow_in, b, c, slow_in)
        monkeypatch.setattr(K, "FAST_FP32", True)
        fast_in = a.copy()
        assert K._fast(fast_in, fast_in, b, c) == K.numerics.HAS_FMA
        fn(fast_in, b, c, fast_in)
        fast_new = fn(a.copy(), b, c, K.new_out(a))
    for x in (slow_in, fast_in, fast_new):
        assert x.dtype == np.float32
        assert np.array_equal(x.view(np.uint32), slow_new.view(np.uint32)), name


def test_fast_path_refuses_overlapping_inputs():
    """A reversed view of the destination as an input would be read after being written."""
    a = np.arange(10, dtype=np.float32)
    assert not K._fast(a, a[::-1])
    assert K._fast(a, a[::-1].copy()) == K.numerics.HAS_FMA     # a copy never overlaps
    expect = a + a[::-1] * np.float32(-0.5)
    K.add(a, a[::-1], -0.5, out=a)
    assert np.array_equal(a, expect)
