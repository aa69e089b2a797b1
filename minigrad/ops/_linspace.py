"""The ``linspace`` kernel, bit-exact with PyTorch 2.13's CPU ``linspace_kernel``.

PyTorch computes, in the output's own C++ type (``c10::Half``/``c10::BFloat16`` round after
every operation; the index is converted to that type too):

- ``step = (end - start) / (steps - 1)``;
- element ``i < steps // 2``: ``start + step * i``; otherwise ``end - step * (steps - 1 - i)``.

For float32/float64 the compiler contracts ``start + step * i`` into one fused multiply-add
(one rounding), emulated here exactly: float32 via a float64 product (exact) and a
round-to-odd float64 sum (so the final rounding to float32 is correct), float64 via Dekker's
exact product and Boldo-Melquiond's round-to-odd FMA emulation. Integer dtypes use a float64
step and truncate each value toward zero.
"""
from __future__ import annotations

import math

import numpy as np

from .. import dtypes as _dt

_SPLIT = 134217729.0  # 2**27 + 1 (Veltkamp split for float64)


def _two_sum(a, b):
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _round_to_odd(s, err):
    """``s`` (= RN(exact)) replaced by the exact value rounded to odd, given ``err`` = exact - s."""
    bits = s.view(np.uint64)
    even = (bits & np.uint64(1)) == 0
    fix = even & (err != 0) & np.isfinite(s)
    if fix.any():
        toward = np.where(err > 0, np.inf, -np.inf)
        s = np.where(fix, np.nextafter(s, toward), s)
    return s


def _split(a):
    c = _SPLIT * a
    hi = c - (c - a)
    return hi, a - hi


def _fma64(a, b, c):
    """Correctly rounded ``a * b + c`` for float64 arrays (no overflow in the split)."""
    p = a * b
    ah, al = _split(a)
    bh, bl = _split(b)
    pl = ((ah * bh - p) + ah * bl + al * bh) + al * bl   # p + pl == a * b exactly
    th, tl = _two_sum(c, p)
    s, e = _two_sum(tl, pl)
    v = _round_to_odd(s, e)
    out = th + v
    bad = ~np.isfinite(out) | ~np.isfinite(pl)
    return np.where(bad, p + c, out) if bad.any() else out


def _fma32(a, b, c):
    """Correctly rounded float32 ``a * b + c`` for float32 inputs (given as float64 arrays)."""
    p = a * b                      # exact: 24 + 24 bits
    s, e = _two_sum(p, c)
    return _round_to_odd(s, e).astype(np.float32)




def _check_scalar(v, dt):
    """PyTorch's ``Scalar::to<T>()`` overflow check: a finite value outside the dtype's range
    (or nan into an integer type) raises; unsigned types accept negatives (they wrap)."""
    f = v if isinstance(v, int) and not dt.is_floating_point else float(v)
    if dt.is_floating_point:
        info = _dt.finfo(dt)
        bad = math.isfinite(f) and (f < info.min or f > info.max)
    elif dt is _dt.bool_:
        bad = False
    else:
        info = _dt.iinfo(dt)
        if isinstance(f, float) and not math.isfinite(f):
            bad = True
        elif info.min == 0:
            bad = f > info.max or (f < 0 and -int(f) > info.max)
        else:
            bad = f < info.min or f > info.max
    if bad:
        raise RuntimeError(f"value cannot be converted to type {dt.c10_name} "
                           "without overflow")


def linspace_array(start, end, steps: int, dt) -> np.ndarray:
    """The ``steps`` values of ``torch.linspace(start, end, steps, dtype=dt)`` as an array in
    ``dt``'s storage format.

    Raises:
        RuntimeError: ``start``/``end`` overflow ``dt`` ("value cannot be converted to type
            c10::Half without overflow"), as PyTorch's ``Scalar::to<T>()``.
    """
    n = int(steps)
    if n == 0:
        return np.empty(0, dtype=dt.np)
    if n > 1:                    # steps == 1 is ``fill_(start)``: unchecked, may give inf
        _check_scalar(start, dt)
        _check_scalar(end, dt)
    if not dt.is_floating_point:
        # Scalar.to<int>() truncates; unsigned types wrap negatives
        s, e = (float(np.array(int(v), dtype=np.int64).astype(dt.np)) for v in (start, end))
        if n == 1:
            return np.array([s], dtype=dt.np)
        step = (e - s) / (n - 1)
        i = np.arange(n, dtype=np.float64)
        first = i < n // 2
        val = np.where(first, _fma64(np.full(n, step), i, np.full(n, s)),
                       _fma64(np.full(n, -step), (n - 1) - i, np.full(n, e)))
        with np.errstate(all="ignore"):          # out-of-range values wrap, as in C++
            return np.trunc(val).astype(np.int64).astype(dt.np)
    with np.errstate(all="ignore"):
        if dt in (_dt.float16, _dt.bfloat16):
            r = dt.np
            f = np.float32
            s = np.asarray(np.float64(start)).astype(r).astype(f)
            e = np.asarray(np.float64(end)).astype(r).astype(f)
            if n == 1:
                return s.astype(r).reshape(1)
            nm1 = np.asarray(f(n - 1)).astype(r).astype(f)
            step = ((e - s).astype(r).astype(f) / nm1).astype(r).astype(f)
            i = np.arange(n, dtype=np.float64)
            k = np.where(i < n // 2, i, (n - 1) - i).astype(r).astype(f)   # index -> 16-bit
            prod = (step * k).astype(r).astype(f)
            return np.where(i < n // 2, s + prod, e - prod).astype(r)
        if dt is _dt.float32:
            s, e = np.float32(start), np.float32(end)
            if n == 1:
                return np.array([s], dtype=np.float32)
            step = np.float64((e - s) / np.float32(n - 1))
            i = np.arange(n, dtype=np.int64)
            first = i < n // 2
            k = np.where(first, i, (n - 1) - i).astype(np.float32).astype(np.float64)
            a = np.where(first, step, -step)
            c = np.where(first, np.float64(s), np.float64(e))
            return _fma32(a, k, c)
        s, e = np.float64(start), np.float64(end)
        if n == 1:
            return np.array([s], dtype=np.float64)
        step = (e - s) / np.float64(n - 1)
        i = np.arange(n, dtype=np.float64)
        first = i < n // 2
        return _fma64(np.where(first, step, -step), np.where(first, i, (n - 1) - i),
                      np.where(first, s, e))
