"""The ``linspace`` kernel, bit-exact with PyTorch 2.13's CPU ``linspace_kernel``, and the
``logspace`` one (``logspace_array``: ATen's ``logspace_out``, see its docstring).

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
        if isinstance(f, float):
            # c10 compares the double with the limits converted to double (int64's max
            # becomes 2**63, which passes); only integer scalars may wrap into unsigned types
            bad = not math.isfinite(f) or f < float(info.min) or f > float(info.max)
        elif info.min == 0:
            bad = f > info.max or (f < 0 and -f > info.max)
        else:
            bad = f < info.min or f > info.max
    if bad:
        raise RuntimeError(f"value cannot be converted to type {dt.c10_name} "
                           "without overflow")


def _scalar_to_int(v, dt) -> int:
    """``Scalar::to<T>()`` for an integer ``dt`` after its overflow check: an integer wraps
    into ``dt`` (unsigned types take negatives modulo 2**bits); a double is truncated as x86
    does (2**63 into int64 gives its most negative value, see ``_double_to``)."""
    if isinstance(v, float):
        return int(_double_to(np.array([v]), dt)[0])
    return int(np.array(int(v), dtype=np.int64).astype(dt.np))


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
    # steps == 1 is ``fill_(start)``: checked too, except into the 16-bit floats (filled
    # through float unchecked: 1e5 gives inf)
    if n > 1 or dt not in (_dt.float16, _dt.bfloat16):
        _check_scalar(start, dt)
    if n > 1:
        _check_scalar(end, dt)
    if not dt.is_floating_point:
        # Scalar.to<int>() truncates; unsigned types wrap negatives
        s, e = (float(_scalar_to_int(v, dt)) for v in (start, end))
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


# ------------------------------------------------------------------------------- logspace
def _libm_pow(base: float, x: np.ndarray) -> np.ndarray:
    """glibc's double ``pow(base, x)`` elementwise (``std::pow``, what ATen calls): NumPy's own
    float64 ``power`` differs from it in the last bit now and then."""
    from .gamma import _C
    fn = _C[("pow", 8)]
    if fn is None:                                    # no C library found: NumPy's
        return np.power(np.float64(base), x)
    with np.errstate(all="ignore"):        # overflow to inf and nan are results, as in C++
        return np.asarray(fn(np.float64(base), x), dtype=np.float64).reshape(x.shape)


def _double_to(v: np.ndarray, dt) -> np.ndarray:
    """C++'s ``static_cast<scalar_t>(double)`` as ATen's logspace stores each value: float16 and
    bfloat16 through float (``c10::Half(float)``), integers truncated toward zero (x86's
    ``cvttsd2si``: out-of-range and nan give the most negative value of int64 for int64, of
    int32 for the narrower types, whose low bits are then kept); bfloat16's nans positive."""
    if dt.is_floating_point:
        if dt is _dt.float64:
            return v
        with np.errstate(all="ignore"):          # beyond the type's range: inf, as C++
            out = v.astype(np.float32).astype(dt.np)
        if dt is _dt.bfloat16:         # c10::BFloat16(float) makes every nan 0x7fc0 (+nan)
            out = np.where(np.isnan(v), np.array(np.nan, dt.np), out)
        return out
    wide = np.int64 if dt is _dt.int64 else np.int32
    lo, hi = np.iinfo(wide).min, np.iinfo(wide).max
    with np.errstate(all="ignore"):
        t = np.trunc(v)
        ok = np.isfinite(t) & (t >= lo) & (t < -float(lo))
        ints = np.where(ok, t, 0).astype(np.int64)
        ints = np.where(ok, ints, lo).astype(wide)
        return ints.astype(dt.np)


def logspace_array(start, end, steps: int, base: float, dt) -> np.ndarray:
    """The ``steps`` values of ``torch.logspace(start, end, steps, base, dtype=dt)``, bit-exact
    with ATen's CPU ``logspace_out`` (real dtypes).

    ATen converts ``start`` and ``end`` to the output type (``Scalar::to<T>()``, with its
    overflow check), takes ``step = double(end - start) / (steps - 1)`` (the difference in
    the output type: a 16-bit float rounds it), and stores ``pow(base, start + step * i)``
    for ``i < steps // 2``, else ``pow(base, end - step * (steps - 1 - i))``, all in double
    (this file is compiled without FMA contraction), converted to the output type. One step
    is ``fill_(pow(base, double(start)))``.

    Raises:
        RuntimeError: ``start``/``end`` overflow ``dt`` (as ``linspace_array``).
    """
    n = int(steps)
    base = float(base)
    if n == 0:
        return np.empty(0, dtype=dt.np)
    if n == 1:
        v = _libm_pow(base, np.array([float(start)]))
        # fill_ converts the double by Scalar.to<T>(), with its overflow check: a finite power
        # beyond the dtype's range raises (pow(-2., 400.)) while inf passes into a float type;
        # the 16-bit floats are filled through float unchecked (70000 into fp16 gives inf)
        if dt not in (_dt.float16, _dt.bfloat16):
            _check_scalar(float(v[0]), dt)
        return _double_to(v, dt)
    _check_scalar(start, dt)
    _check_scalar(end, dt)
    if dt.is_floating_point:
        with np.errstate(all="ignore"):
            s, e = (np.asarray(np.float64(v)).astype(dt.np) for v in (start, end))
            diff = (e.astype(np.float32) - s.astype(np.float32)).astype(dt.np) \
                if dt in (_dt.float16, _dt.bfloat16) else e - s
        s, e, diff = float(s), float(e), float(diff)
    else:
        # Scalar.to<int>() truncates; unsigned types wrap negatives; the difference of two
        # int64s wraps, of narrower ints is exact (C++ promotes them to int)
        s, e = (_scalar_to_int(v, dt) for v in (start, end))
        diff = e - s
        if dt is _dt.int64:
            diff = (diff + 2 ** 63) % 2 ** 64 - 2 ** 63
        s, e, diff = float(s), float(e), float(diff)
    step = diff / (n - 1)
    i = np.arange(n, dtype=np.float64)
    first = i < n // 2
    with np.errstate(all="ignore"):
        x = np.where(first, s + step * i, e - step * ((n - 1) - i))
    return _double_to(_libm_pow(base, x), dt)
