"""Floating formats of mixed-precision training: fp32, fp16, bf16 (fp8 later).

What a student needs to reason about a format, in one place:

- ``FORMATS``/``get_format(dtype)``: the bit layout (exponent/mantissa bits, bias) and limits
  (``max``, ``tiny`` = smallest normal, ``smallest_subnormal``, ``eps``) of each format.
- ``round_to(x, dtype)``: round an array to a format with round-to-nearest-even, exactly as
  PyTorch's CPU copy kernel (and NumPy ``astype``) does; fp16 takes the fast path below.
- ``ulp_distance(a, b, dtype)``: how many representable values of ``dtype`` lie between ``a`` and
  ``b`` (used by tests for ULP bounds).
- ``float32_to_float16`` / ``float16_to_float32``: casts bit-identical to NumPy's ``astype``
  but faster on large arrays (NumPy's float16 cast is ~4x slower than its bf16 one, see
  ``reference/cpu-cost-facts.md``); the implementation is minigrad's own (``minigrad/_fp16.py``,
  proven on all 2**32 fp32 inputs by ``bench/check_fp16_fast_exhaustive.py``).
"""
from __future__ import annotations

from dataclasses import dataclass

import ml_dtypes
import numpy as np

from minigrad import _fp16
from minigrad import dtypes as _dt

__all__ = ["Format", "FORMATS", "get_format", "finfo", "round_to", "ulp_distance", "ulp",
           "float32_to_float16", "float32_to_float16_bits", "float16_to_float32", "stochastic_round"]


@dataclass(frozen=True)
class Format:
    """An IEEE-like binary floating format.

    Attributes:
        name: "fp32", "fp16" or "bf16".
        dtype: the minigrad ``DType`` that stores it.
        bits, exponent_bits, mantissa_bits (explicit fraction bits), bias: the layout.
        max: largest finite value; tiny: smallest normal; smallest_subnormal; eps: 2**-mantissa_bits.
    """

    name: str
    dtype: object
    bits: int
    exponent_bits: int
    mantissa_bits: int

    @property
    def bias(self) -> int:
        return (1 << (self.exponent_bits - 1)) - 1

    @property
    def eps(self) -> float:
        return 2.0 ** -self.mantissa_bits

    @property
    def tiny(self) -> float:
        return 2.0 ** (1 - self.bias)

    @property
    def smallest_subnormal(self) -> float:
        return 2.0 ** (1 - self.bias - self.mantissa_bits)

    @property
    def max(self) -> float:
        return (2.0 - 2.0 ** -self.mantissa_bits) * 2.0 ** self.bias

    @property
    def uint(self):
        return {16: np.uint16, 32: np.uint32, 64: np.uint64}[self.bits]


FORMATS = {
    "fp32": Format("fp32", _dt.float32, 32, 8, 23),
    "fp16": Format("fp16", _dt.float16, 16, 5, 10),
    "bf16": Format("bf16", _dt.bfloat16, 16, 8, 7),
    "fp64": Format("fp64", _dt.float64, 64, 11, 52),
}
_BY_DTYPE = {f.dtype: f for f in FORMATS.values()}


def get_format(dtype) -> Format:
    """The ``Format`` of a floating dtype (DType, name such as "bf16"/"float16", NumPy dtype).

    Raises:
        TypeError: for a non-floating dtype.
    """
    if isinstance(dtype, str) and dtype in FORMATS:
        return FORMATS[dtype]
    d = _dt.as_dtype(dtype)
    try:
        return _BY_DTYPE[d]
    except KeyError:
        raise TypeError(f"{d} is not a floating format") from None


def finfo(dtype) -> "_dt.finfo":
    """``minigrad.finfo`` of the format (mirrors ``torch.finfo``)."""
    return _dt.finfo(get_format(dtype).dtype)


# ---------------------------------------------------------------------- fast fp32 <-> fp16
# One implementation, minigrad's own (minigrad/_fp16.py, checked on all 2**32 inputs by
# bench/check_fp16_fast_exhaustive.py); re-exported here for the format tools.

def float16_to_float32(h: np.ndarray) -> np.ndarray:
    """fp16 array -> fp32 array, bit-identical to ``h.astype(np.float32)``."""
    return _fp16.float16_to_float32(np.asarray(h, dtype=np.float16))


def float32_to_float16_bits(x: np.ndarray) -> np.ndarray:
    """The IEEE binary16 bit patterns (uint16) of fp32 ``x`` rounded to nearest-even,
    bit-identical to ``x.astype(np.float16).view(np.uint16)`` (NaN payloads, overflow to inf
    from 65520 included)."""
    return float32_to_float16(x).view(np.uint16)


def float32_to_float16(x: np.ndarray) -> np.ndarray:
    """fp32 array -> fp16 array, bit-identical to ``x.astype(np.float16)``."""
    return _fp16.float32_to_float16(np.asarray(x, dtype=np.float32))


# ---------------------------------------------------------------------- rounding and ULPs
def round_to(x, dtype) -> np.ndarray:
    """Round ``x`` (array-like) to ``dtype``'s format with round-to-nearest-even.

    Returns an array stored in that format (``np.float16``, ``ml_dtypes.bfloat16``...).
    float64 inputs go through fp32 first for fp16/bf16, as PyTorch's CPU copy kernel does.
    """
    f = get_format(dtype)
    a = np.asarray(x)
    if f.name in ("fp16", "bf16") and a.dtype != np.float32 and a.dtype != f.dtype.np:
        a = a.astype(np.float32)
    if f.name == "fp16" and a.dtype == np.float32:
        return float32_to_float16(a)
    return a.astype(f.dtype.np)


def _ordered(a: np.ndarray, f: Format) -> np.ndarray:
    """Map a format's bit patterns to int64 so that consecutive values differ by 1 (-0 == +0)."""
    bits = a.view(f.uint).astype(np.int64) if f.bits < 64 else a.view(np.int64).copy()
    sign_bit = np.int64(1) << np.int64(f.bits - 1)
    if f.bits < 64:
        neg = (bits & sign_bit) != 0
        mag = bits & (sign_bit - 1)
    else:
        neg = bits < 0
        mag = bits & np.int64(0x7FFFFFFFFFFFFFFF)
    return np.where(neg, -mag, mag)


def ulp_distance(a, b, dtype) -> np.ndarray:
    """Number of ``dtype`` values between ``a`` and ``b`` after rounding both to ``dtype``.

    0 means bit-identical values (or +0 vs -0, or both NaN); a NaN against a number gives the
    int64 maximum. Shapes broadcast. Returns an int64 array.
    """
    f = get_format(dtype)
    x, y = np.broadcast_arrays(round_to(a, f.dtype), round_to(b, f.dtype))
    x, y = np.ascontiguousarray(x), np.ascontiguousarray(y)
    d = np.abs(_ordered(x, f) - _ordered(y, f))
    xn, yn = np.isnan(x.astype(np.float64)), np.isnan(y.astype(np.float64))
    d = np.where(xn & yn, 0, d)
    return np.where(xn ^ yn, np.iinfo(np.int64).max, d)


def ulp(x, dtype) -> np.ndarray:
    """The spacing of ``dtype`` at ``x`` (distance to the next value away from zero), float64."""
    f = get_format(dtype)
    r = np.abs(round_to(x, f.dtype).astype(np.float64))
    tiny = f.tiny
    e = np.floor(np.log2(np.maximum(r, tiny)))
    return np.where(np.isfinite(r), 2.0 ** (e - f.mantissa_bits), np.nan)


_ = ml_dtypes  # bfloat16 storage comes through minigrad.dtypes


def stochastic_round(x, dtype, generator=None):
    """``x`` (a floating minigrad Tensor) cast into the narrower floating ``dtype`` with
    stochastic rounding: each value goes to one of its two neighbours in ``dtype``, the farther
    one with probability (distance to the nearer) / (spacing), so ``E[result] = x``.

    Args:
        x: floating Tensor (float64 -> float32/16-bit/fp8, float32 -> 16-bit/fp8...).
        dtype: the target dtype.
        generator: a ``minigrad.Generator`` for the per-element uniforms (one double each);
            the default generator when None (reproducible after ``minigrad.manual_seed``).

    Returns:
        Tensor of ``dtype``; differentiable (the gradient passes through, cast back). A float8
        target keeps PyTorch's float8 cast rules outside its finite range (``float8_e4m3fn``
        saturates at ±448, ``float8_e5m2`` overflows to ±inf, NaN bits as PyTorch's).

    Raises:
        TypeError: a non-floating input or a target that is not narrower.

    Not in PyTorch; the dispatched op is ``_to_copy_stochastic`` (minigrad/ops/
    stochastic_rounding.py), so modes see it.
    """
    from minigrad.dispatch import dispatch
    return dispatch("_to_copy_stochastic", x, dtype, generator)
