"""``minigrad.logspace`` against ``torch.logspace`` (2.13, CPU): bit-identical in every real
dtype, with torch's defaults, ``out=``, ``requires_grad``, device and errors.

ATen's kernel computes the exponents in double (up from ``start`` for the first half, down
from ``end`` for the second; the ``end - start`` difference in the output type), calls glibc's
``pow`` (NumPy's float64 ``power`` differs in the last bit now and then) and converts once to
the output type (fp16/bf16 through float; integers truncated as x86 does).
"""
from __future__ import annotations

import random

import numpy as np
import pytest
import torch

import minigrad as mg

FLOATS = ["float16", "bfloat16", "float32", "float64"]
INTS = ["int64", "int32", "int16", "int8", "uint8"]
BASES = [10.0, 2.0, 2.718281828459045, 0.5, 3.3, -2.0, 1.0, 0.0, 7]


def _bits(t):
    """The stored bits (nan signs included) as an integer array."""
    if isinstance(t, torch.Tensor):
        a = t.numpy() if t.dtype != torch.bfloat16 else t.view(torch.int16).numpy()
    else:
        a = np.asarray(t._data)
    return a.view(f"i{a.dtype.itemsize}") if a.dtype.kind == "f" or a.dtype.itemsize == 2 \
        else a


def _outcome(lib, *args, **kw):
    kw = {k: getattr(lib, v) if k == "dtype" else v for k, v in kw.items()}
    try:
        return "ok", _bits(lib.logspace(*args, **kw))
    except Exception as e:                      # noqa: BLE001 -- compared with torch's
        return type(e).__name__, str(e)


def _same(*args, **kw):
    m, t = _outcome(mg, *args, **kw), _outcome(torch, *args, **kw)
    assert m[0] == t[0], (m, t)
    if m[0] == "ok":
        assert m[1].dtype == t[1].dtype and np.array_equal(m[1], t[1]), (args, kw)
    else:
        assert m[1] == t[1]


@pytest.mark.parametrize("name", FLOATS + INTS)
def test_random_bit_exact(name):
    rng = random.Random(name)
    for _ in range(60):
        s, e = (rng.choice([rng.uniform(-6, 6), rng.randint(-5, 12)]) for _ in range(2))
        if name == "uint8":
            s, e = abs(s), abs(e)
        _same(s, e, rng.randint(1, 120), base=rng.choice(BASES), dtype=name)


def test_float64_needs_glibc_pow():
    # np.power(e, x) differs from std::pow here in the last bit (element 7)
    args = (-1.9224100259093069, -1.5228996118451041, 81)
    _same(*args, base=2.718281828, dtype="float64")


@pytest.mark.parametrize("name", ["float32", "float16", "bfloat16", "int32", "int16", "int8"])
def test_overflow_nan_and_one_step(name):
    for args in [(5, 6, 2), (0, 12, 4), (400, 1, 1), (0.5, 1.5, 1), (3.1, 4, 1), (-3, 3, 7),
                 (1e5, 1, 3), (0, 0, 5), (2, 2, 1), (1, 1, 1), (40, 1, 1)]:
        for base in (10.0, -2.0, 7, 70000.0, 65519.0, 65520.0, 1e39, 0.5):
            _same(*args, base=base, dtype=name)


def test_defaults_and_arguments():
    m, t = mg.logspace(0, 1, 5), torch.logspace(0, 1, 5)
    assert m.dtype is mg.float32 and np.array_equal(_bits(m), _bits(t))
    assert mg.logspace(0, 2, steps=3, base=2).tolist() == torch.logspace(0, 2, 3, 2).tolist()
    assert mg.logspace(mg.tensor(1.0), mg.tensor(2), 3).tolist() == \
        torch.logspace(torch.tensor(1.0), torch.tensor(2), 3).tolist()
    mg.set_default_dtype(mg.float64)
    try:
        assert mg.logspace(0, 1, 3).dtype is mg.float64
    finally:
        mg.set_default_dtype(mg.float32)
    r = mg.logspace(0, 1, 3, requires_grad=True)
    assert r.requires_grad and r.is_leaf and r.grad_fn is None
    assert mg.logspace(0, 1, 0).shape == (0,)
    assert str(mg.logspace(0, 1, 3, device="cuda").device) == "cuda:0"


def test_out_argument():
    for lib in (mg, torch):
        out = lib.empty(2, dtype=lib.float64)
        r = lib.logspace(0, 1, 3, out=out)
        assert r is out and out.shape == (3,)
        if lib is torch:
            assert np.array_equal(_bits(out), mine)
        else:
            mine = _bits(out)


@pytest.mark.parametrize("call", [
    lambda L: L.logspace(0, 1, 3, dtype=L.bool),
    lambda L: L.logspace(0, 1, -1),
    lambda L: L.logspace(L.ones(2), 1, 3),
    lambda L: L.logspace(0, L.ones(2, 2), 3),
    lambda L: L.logspace(L.ones(1), L.ones(2), 3),
    lambda L: L.logspace(0, 1, 3, dtype=L.int64, requires_grad=True),
    lambda L: L.logspace(0, 70000, 2, dtype=L.float16),
    lambda L: L.logspace(400, 1, 1, base=-2.0),
    lambda L: L.logspace(0.5, 1, 1, base=-2.0, dtype=L.int32),
])
def test_errors_like_torch(call):
    got = {}
    for lib in (mg, torch):
        with pytest.raises(Exception) as info:
            call(lib)
        got[lib] = (info.type.__name__, str(info.value))
    assert got[mg] == got[torch]


@pytest.mark.parametrize("lib_fn", ["logspace", "linspace"])
@pytest.mark.parametrize("name", FLOATS + INTS)
def test_scalar_conversion_corners(lib_fn, name):
    # c10's Scalar::to<T>() as both factories use it: a double is compared with the limits
    # converted to double (2**63 passes into int64 and truncates to its minimum), a negative
    # double overflows an unsigned type (a negative int wraps), one step is checked except
    # into the 16-bit floats
    vals = [2.0 ** 63, -2 ** 63, 9.3e18, 300, -255, -256, -2.5, 65504, 70000, 1e39, 63, 0.5]
    for s in vals:
        for e in (0, -1, 2.0 ** 63, 1e39):
            for steps in (1, 2, 5):
                args = (s, e, steps) if lib_fn == "linspace" else (s, e, steps, 2.0)
                m = _outcome_of(lib_fn, mg, *args, dtype=name)
                t = _outcome_of(lib_fn, torch, *args, dtype=name)
                assert m[0] == t[0], (args, m, t)
                if m[0] == "ok":
                    assert m[1].dtype == t[1].dtype and np.array_equal(m[1], t[1]), args
                else:
                    assert m[1] == t[1], args


def _outcome_of(fn, lib, *args, dtype):
    try:
        return "ok", _bits(getattr(lib, fn)(*args, dtype=getattr(lib, dtype)))
    except Exception as e:                      # noqa: BLE001 -- compared with torch's
        return type(e).__name__, str(e)
