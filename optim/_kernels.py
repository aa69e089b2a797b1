"""NumPy recipes for the in-place tensor ops torch's optimizers use, rounded as ATen's CPU kernels.

The optimizer step is the one place in the project that updates storage directly, without going
through ``minigrad.dispatch``: the dispatcher's ops exist to build the autograd graph, and an
optimizer update is not part of any graph (PyTorch runs it under ``no_grad`` too). Each function
here stands for ONE PyTorch kernel call (``add_``, ``mul_``, ``lerp_``, ``addcmul_``,
``addcdiv_``, ``sqrt``, ``div``, ``maximum``) and returns a NEW array in the storage dtype, rounded
once, exactly as that kernel rounds. Inputs are arrays in the storage dtype. The optimizers use
these for fp64 and 16-bit storage; for fp32 they run ``optim/_fused32.py``, the same recipes
fused, chunked and written in place (same bits, several times faster).

Recipes (measured on torch 2.13 CPU, see ``shared/reference/pytorch-2.13-facts.md`` §5/§6), with
``opmath`` = fp32 for fp16/bf16 storage, the storage type itself for fp32/fp64, ``R`` = one
round-to-nearest-even into storage:

- ``add(a, b, alpha)``   = R(fma(b, alpha', a)); ``alpha'`` is alpha rounded to a 16-bit storage
  dtype first (fp32/fp64: alpha converted to opmath). Exception, fp16/bf16 only: ATen's
  vectorised loop handles 32 elements at a time (AVX512) and its scalar tail loop computes in
  the 16-bit type, R(a + R(alpha'*b)), rounding twice. The tail is the last ``n % 32`` elements
  of each thread's chunk; tensors with at least 32768 elements (ATen's grain size) are split
  into ``min(threads, ceil(n/32768))`` equal chunks. ``set_num_threads`` (default: the CPU count,
  as ``torch.get_num_threads()``) and ``VEC_16BIT`` make this match the PyTorch being mirrored.
- ``mul(a, s)``          = R(a * opmath(s)) (the scalar is NOT rounded to 16 bits).
- ``add_scalar(a, s)``   = R(a + s') with s' rounded to a 16-bit storage dtype first.
- ``div_scalar(a, s)``   = R(a / opmath(s)) (true division).
- ``lerp(a, b, w)``      = R(fma(w, b - a, a)) if |w| < 0.5 else R(fma(-(1 - w), b - a, b)).
- ``addcmul(a, b, c, v)`` = R(fma(v * b, c, a)).
- ``addcdiv(a, b, c, v)`` = R(a + (v * b) / c).
- ``sqrt(a)``            = R(sqrt(a)) with the correctly rounded IEEE sqrt. torch's fp32/fp64
  ``sqrt`` on contiguous CPU tensors goes through MKL's vector math, which is not correctly
  rounded (about 1% of fp32 values differ by 1 ulp). We cannot reproduce MKL here, so fp32/fp64
  Adam differs from torch by at most a couple of ulp (a deliberate, documented difference);
  fp16/bf16 are unaffected (torch computes their sqrt in fp32 with a correctly rounded
  instruction, then rounds to 16 bits).

fma(a, b, c) is one rounding of a*b + c: for fp32 opmath it is computed as float64 a*b + c
rounded to fp32 (a*b is exact in float64; the double rounding is wrong in about 2^-29 of cases);
for fp64 it uses Dekker's error-free product and Knuth's two-sum.
"""
from __future__ import annotations

import os

import numpy as np

from minigrad import dtypes as _dt

__all__ = ["set_num_threads", "opmath_np", "add", "mul", "add_scalar", "div_scalar", "lerp", "addcmul", "addcdiv",
           "sqrt", "maximum", "neg"]

_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)
_SPLIT = 134217729.0  # 2**27 + 1, Dekker's splitter for float64

VEC_16BIT = 32        # elements per vectorised iteration for 16-bit types (AVX512 build)
GRAIN_SIZE = 32768    # ATen's internal::GRAIN_SIZE
_num_threads = [os.cpu_count() or 1]


def set_num_threads(n: int) -> None:
    """Thread count whose chunking the 16-bit ``add`` tails follow (``torch.set_num_threads``).

    Raises:
        ValueError: n < 1.
    """
    if int(n) < 1:
        raise ValueError(f"Expected positive number of threads, got {n}")
    _num_threads[0] = int(n)


def _tail_slices(n: int):
    """Slices of a flat length-n tensor that ATen's scalar (non-vectorised) loop handles."""
    if n < GRAIN_SIZE or _num_threads[0] == 1:
        chunks = [(0, n)]
    else:
        nt = min(_num_threads[0], -(-n // GRAIN_SIZE))
        cs = -(-n // nt)
        chunks = [(s, min(s + cs, n)) for s in range(0, n, cs)]
    out = []
    for s, e in chunks:
        start = s + ((e - s) // VEC_16BIT) * VEC_16BIT
        if start < e:
            out.append(slice(start, e))
    return out


def opmath_np(npd: np.dtype) -> np.dtype:
    """The NumPy compute dtype for storage ``npd``: float64 stays, everything else is fp32."""
    return _F64 if npd == _F64 else _F32


def _up(a, cd):
    return a if a.dtype == cd else a.astype(cd)


def _round(x, npd):
    return x if x.dtype == npd else x.astype(npd)


def _is_low(npd):
    return npd != _F32 and npd != _F64


def _two_prod_err(a, b, p):
    t = _SPLIT * a
    ah = t - (t - a)
    al = a - ah
    t = _SPLIT * b
    bh = t - (t - b)
    bl = b - bh
    return ((ah * bh - p) + ah * bl + al * bh) + al * bl


def _fma(a, b, c, cd):
    """One rounding of a*b + c in compute dtype ``cd`` (arrays or scalars of dtype ``cd``)."""
    if cd == _F32:
        r = np.multiply(a, b, dtype=_F64)
        r += c
        return r.astype(_F32)
    a = np.asarray(a, _F64)
    b = np.asarray(b, _F64)
    p = a * b
    e = _two_prod_err(a, b, p)
    s = p + c
    bb = s - p
    t = (p - (s - bb)) + (c - bb)
    r = s + (t + e)
    bad = ~np.isfinite(r)
    if bad.any():
        r = np.where(bad, p + c, r)
    return r


def _scalar(s, npd, round_to_storage: bool):
    cd = opmath_np(npd)
    if round_to_storage and _is_low(npd):
        return cd.type(npd.type(s))
    return cd.type(s)


def neg(a):
    """``-a`` (exact)."""
    return np.negative(a)


def add(a, b, alpha=1.0):
    """``a.add(b, alpha=alpha)``: R(fma(b, alpha', a)); alpha rounded to 16-bit storage first."""
    npd = a.dtype
    cd = opmath_np(npd)
    al = _scalar(alpha, npd, True)
    a32, b32 = _up(a, cd), _up(b, cd)
    if al == 1:
        return _round(a32 + b32, npd)
    out = _round(_fma(b32, al, a32, cd), npd)
    if _is_low(npd):
        out = np.ascontiguousarray(out)
        flat_out = out.reshape(-1)   # a view of the fresh C-contiguous result
        fa, fb = a32.reshape(-1), b32.reshape(-1)
        for sl in _tail_slices(out.size):
            prod = (al * fb[sl]).astype(npd).astype(cd)
            flat_out[sl] = (fa[sl] + prod).astype(npd)
    return out


def mul(a, s):
    """``a.mul(s)`` for a Python scalar: R(a * opmath(s))."""
    npd = a.dtype
    cd = opmath_np(npd)
    return _round(_up(a, cd) * cd.type(s), npd)


def add_scalar(a, s):
    """``a.add(s)`` for a Python scalar: s rounded to 16-bit storage first, then R(a + s)."""
    npd = a.dtype
    cd = opmath_np(npd)
    return _round(_up(a, cd) + _scalar(s, npd, True), npd)


def div_scalar(a, s):
    """``a.div(s)`` for a Python scalar: R(a / opmath(s)), a true division."""
    npd = a.dtype
    cd = opmath_np(npd)
    return _round(_up(a, cd) / cd.type(s), npd)


def lerp(a, b, w):
    """``a.lerp(b, w)`` for a Python scalar weight (ATen's two-sided fma formula)."""
    npd = a.dtype
    cd = opmath_np(npd)
    w = cd.type(w)
    a32 = _up(a, cd)
    b32 = _up(b, cd)
    diff = b32 - a32
    if abs(w) < 0.5:
        return _round(_fma(w, diff, a32, cd), npd)
    return _round(_fma(-(cd.type(1) - w), diff, b32, cd), npd)


def addcmul(a, b, c, value=1.0):
    """``a.addcmul(b, c, value=v)``: R(fma(v*b, c, a))."""
    npd = a.dtype
    cd = opmath_np(npd)
    vb = cd.type(value) * _up(b, cd)
    return _round(_fma(vb, _up(c, cd), _up(a, cd), cd), npd)


def addcdiv(a, b, c, value=1.0):
    """``a.addcdiv(b, c, value=v)``: R(a + (v*b)/c), each step in opmath."""
    npd = a.dtype
    cd = opmath_np(npd)
    q = cd.type(value) * _up(b, cd)
    q /= _up(c, cd)
    q += _up(a, cd)
    return _round(q, npd)


def sqrt(a):
    """``a.sqrt()``: correctly rounded in opmath, then R (see the module note for fp32/fp64)."""
    npd = a.dtype
    return _round(np.sqrt(_up(a, opmath_np(npd))), npd)


def maximum(a, b):
    """``torch.maximum(a, b)`` (NaN propagates); exact."""
    return np.maximum(a, b)


def storage_np(dtype) -> np.dtype:
    """The NumPy storage dtype of a minigrad dtype."""
    return _dt.as_dtype(dtype).np
