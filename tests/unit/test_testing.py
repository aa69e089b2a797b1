"""minigrad.testing: ULP distances from the formats' bit layouts, assert_close, torch bridges."""
from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest
import torch

import minigrad
from minigrad.testing import assert_close, from_torch, to_torch, ulp_distance


@pytest.mark.parametrize("np_dtype", [np.float16, ml_dtypes.bfloat16, np.float32, np.float64])
def test_adjacent_values_are_one_ulp_apart(np_dtype):
    bits = {2: np.uint16, 4: np.uint32, 8: np.uint64}[np.dtype(np_dtype).itemsize]
    one = np.array([1.0, -3.5, 1e-3], np_dtype)
    nxt = (one.view(bits) + 1).view(np_dtype)          # next representable magnitude
    assert ulp_distance(one, nxt).tolist() == [1.0, 1.0, 1.0]
    assert ulp_distance(nxt, one).tolist() == [1.0, 1.0, 1.0]


def test_ulp_corner_cases():
    z = np.array([0.0], np.float16)
    assert ulp_distance(z, -z).tolist() == [0.0]                      # +0 / -0
    sub = np.array([2.0 ** -24], np.float16)                          # smallest fp16 subnormal
    assert ulp_distance(-sub, sub).tolist() == [2.0]                  # -sub, 0, +sub
    mx, inf = np.array([65504.0], np.float16), np.array([np.inf], np.float16)
    assert ulp_distance(mx, inf).tolist() == [math.inf]               # finite vs inf: never close
    assert ulp_distance(inf, inf).tolist() == [0.0]
    assert math.isnan(ulp_distance(np.array([np.nan], np.float32), np.float32(1.0))[0])


def test_assert_close_ulp_bounds():
    a = minigrad.tensor([1.0, 2.0], dtype=minigrad.float16)
    b = torch.tensor([1.0, 2.001953125], dtype=torch.float16)       # 2 + 1 ulp
    assert_close(a, b, ulp=1)
    with pytest.raises(AssertionError, match="Greatest ULP difference: 1.0"):
        assert_close(a, b, ulp=0)


def test_assert_close_checks_dtype_shape_nan():
    with pytest.raises(AssertionError, match="dtype mismatch"):
        assert_close(minigrad.tensor([1.0]), torch.tensor([1.0], dtype=torch.float64))
    assert_close(minigrad.tensor([1.0]), torch.tensor([1.0], dtype=torch.float64),
                 check_dtype=False)
    with pytest.raises(AssertionError, match="shape mismatch"):
        assert_close(minigrad.tensor([1.0]), torch.tensor([[1.0]]))
    nan = minigrad.tensor([math.nan])
    assert_close(nan, torch.tensor([math.nan]))
    with pytest.raises(AssertionError):
        assert_close(nan, torch.tensor([math.nan]), equal_nan=False)
    with pytest.raises(AssertionError):
        assert_close(minigrad.tensor([1, 2]), torch.tensor([1, 3]))


def test_assert_close_default_tolerances_are_torchs():
    # torch.testing's float32 defaults: rtol 1.3e-6, atol 1e-5
    assert_close(minigrad.tensor([100.0]), torch.tensor([100.0001]))
    with pytest.raises(AssertionError):
        assert_close(minigrad.tensor([100.0]), torch.tensor([100.001]))


@pytest.mark.parametrize("dt", ["float64", "float32", "float16", "bfloat16", "int64", "int32",
                                "uint8", "bool"])
def test_bridges_round_trip_bits(dt):
    tt = (torch.arange(-3, 5, dtype=torch.float64) * 0.3).to(getattr(torch, dt))
    m = from_torch(tt)
    assert m.dtype.name == dt and tuple(m.shape) == tuple(tt.shape)
    back = to_torch(m)
    assert back.dtype == tt.dtype and torch.equal(back, tt)


def test_bridges_requires_grad_and_views():
    x = torch.randn(3, 4, requires_grad=True)
    m = from_torch(x.t())                                    # non-contiguous source
    assert m.requires_grad and m.is_leaf and tuple(m.shape) == (4, 3)
    assert not to_torch(m, requires_grad=False).requires_grad
    with pytest.raises(TypeError):
        from_torch(torch.zeros(2, dtype=torch.complex64))
    with pytest.raises(TypeError):
        to_torch(np.zeros(2))


def test_ulp_distance_float64_is_exact_at_large_distances():
    # distances between float64 values must be exact integers, not rounded to steps of 512 by
    # an int64 -> float64 conversion before subtracting
    one = np.float64(1.0)
    bits = np.array([one]).view(np.uint64)[0]
    for k in (1, 511, 513, 1025, 2**20 + 3, 2**40 + 7):
        far = np.array([bits + np.uint64(k)], np.uint64).view(np.float64)
        assert ulp_distance(np.array([one]), far).tolist() == [float(k)]
        assert ulp_distance(-far, np.array([-one])).tolist() == [float(k)]
    # across zero: -x to +x counts both halves
    tiny = np.array([5e-324 * 1001])
    assert ulp_distance(-tiny, tiny).tolist() == [2002.0]
