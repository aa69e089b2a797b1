"""``minigrad.linspace`` against ``torch.linspace`` (2.13, CPU): bit-identical in every dtype.

PyTorch's kernel counts up from ``start`` for the first half and down from ``end`` for the
second, in the output's own type (fp16/bf16 round after each operation; float32/float64 use a
fused multiply-add), so a plain float64 ``np.linspace`` rounded once is off by an ulp.
"""
from __future__ import annotations

import random

import numpy as np
import pytest
import torch

import minigrad as mg

FLOATS = ["float16", "bfloat16", "float32", "float64"]
INTS = ["int64", "int32", "int16", "int8", "uint8"]
VALS = [0, -1, 1, 0.1, -3.7, 100.0, 1e4, 65504.0, 7.5, 1 / 3, -2.5, -1e-5, 1e-30, 3e38]


def _bits(t):
    if isinstance(t, torch.Tensor):
        return t.float().numpy() if t.dtype == torch.bfloat16 else t.numpy()
    a = np.asarray(t._data)
    return a.astype(np.float32) if t.dtype is mg.bfloat16 else a


def _same(m, t):
    a, b = _bits(m), _bits(t)
    return a.dtype == b.dtype and np.array_equal(a, b, equal_nan=a.dtype.kind == "f")


def test_user_report_fp16_7_steps():
    m = mg.linspace(0, 1, 7, dtype=mg.float16)
    assert float(m[4]) == 0.6669921875                  # torch; np.linspace gives 0.666504
    assert _same(m, torch.linspace(0, 1, 7, dtype=torch.float16))


@pytest.mark.parametrize("name", FLOATS)
def test_float_dtypes_random_bit_exact(name):
    rng = random.Random(name)
    for _ in range(150):
        a = rng.choice(VALS + [rng.uniform(-1e3, 1e3), rng.uniform(-1, 1)])
        b = rng.choice(VALS + [rng.uniform(-1e3, 1e3), rng.uniform(-1, 1)])
        n = rng.choice([0, 1, 2, 3, rng.randint(2, 40), rng.randint(2, 300), rng.randint(2, 3000)])
        try:
            t = torch.linspace(a, b, n, dtype=getattr(torch, name))
        except RuntimeError as e:                      # start/end overflow the dtype
            with pytest.raises(RuntimeError, match=str(e)):
                mg.linspace(a, b, n, dtype=getattr(mg, name))
            continue
        m = mg.linspace(a, b, n, dtype=getattr(mg, name))
        assert _same(m, t), (name, a, b, n)


@pytest.mark.parametrize("name", INTS)
def test_int_dtypes_bit_exact(name):
    rng = random.Random(name)
    lim = 100 if name in ("int8", "uint8") else 30000
    lo = 0 if name == "uint8" else -lim
    for _ in range(100):
        a = rng.choice([rng.randint(lo, lim), rng.uniform(lo, lim)])
        b = rng.randint(lo, lim)
        n = rng.choice([0, 1, 2, rng.randint(2, 50), rng.randint(2, 2000)])
        t = torch.linspace(a, b, n, dtype=getattr(torch, name))
        assert _same(mg.linspace(a, b, n, dtype=getattr(mg, name)), t), (name, a, b, n)


@pytest.mark.parametrize("name", ["float16", "bfloat16", "float32"])
def test_long_ranges(name):
    # 16-bit: the index itself is rounded to the 16-bit type (and overflows fp16 past 65504)
    for n in (70000, 200001):
        t = torch.linspace(-3.3, 7.1, n, dtype=getattr(torch, name))
        assert _same(mg.linspace(-3.3, 7.1, n, dtype=getattr(mg, name)), t)


def test_defaults_and_errors():
    m = mg.linspace(2, 5, 4)
    assert m.dtype is mg.float32 and m.tolist() == [2.0, 3.0, 4.0, 5.0]
    assert mg.linspace(1.5, 9, 1).tolist() == [1.5]
    assert mg.linspace(0, 1, 0).shape == (0,)
    assert mg.linspace(0, 1, 3, requires_grad=True).requires_grad
    with pytest.raises(RuntimeError, match="number of steps must be non-negative"):
        mg.linspace(0, 1, -1)
    with pytest.raises(RuntimeError, match="number of steps must be non-negative"):
        torch.linspace(0, 1, -1)


@pytest.mark.parametrize("name,value", [("float32", 1e39), ("bfloat16", 1e39), ("float16", 65504.5),
                                        ("int8", 200), ("int8", 127.9), ("int8", float("nan")),
                                        ("int16", 40000), ("int32", 2 ** 31), ("int64", 2 ** 63)])
def test_overflowing_start_raises_like_torch(name, value):
    with pytest.raises(RuntimeError) as te:
        torch.linspace(value, 0, 3, dtype=getattr(torch, name))
    with pytest.raises(RuntimeError, match=str(te.value)):
        mg.linspace(value, 0, 3, dtype=getattr(mg, name))


@pytest.mark.parametrize("name,value", [("uint8", -1), ("float16", float("inf")),
                                        ("int64", 2 ** 63 - 1)])
def test_edge_values_like_torch(name, value):
    t = torch.linspace(value, 0, 3, dtype=getattr(torch, name))
    assert _same(mg.linspace(value, 0, 3, dtype=getattr(mg, name)), t)
