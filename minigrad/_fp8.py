"""Bit-exact float8 conversions as PyTorch 2.13's CPU copy kernel does them.

The four float8 storage formats are ``ml_dtypes`` arrays (one byte per element). ``ml_dtypes``'
own ``astype`` rounds to nearest-even exactly as PyTorch does for every finite value in range,
subnormals, ties and -0 included (checked against torch on every fp16 and bf16 value and
millions of random fp32 patterns, ``tests/unit/test_float8.py``), but PyTorch differs in three
places, which ``to_float8`` / ``from_float8`` correct:

- float32 -> ``float8_e4m3fn`` SATURATES: a finite value that rounds past 448, and +-inf, become
  +-448 (byte 0x7e / 0xfe); NaN becomes 0x7f with the input's sign. ``ml_dtypes`` gives NaN.
- float32 NaN -> ``float8_e5m2`` is 0x7f with the input's sign (``ml_dtypes``: 0x7e).
  Overflow gives +-inf there, as ``ml_dtypes``. The fnuz formats agree with ``ml_dtypes``
  (overflow, inf and NaN all give the single NaN 0x80; -0 becomes +0).
- float8 NaN -> float32 keeps PyTorch's bits: e4m3fn 0x7f -> 0x7ff00000 (sign kept); e5m2 goes
  through a quieting fp16 conversion (0x7d, 0x7f -> 0x7fe00000, 0x7e -> 0x7fc00000, sign kept);
  the fnuz NaN 0x80 -> 0x7f800001. ``ml_dtypes`` gives 0x7fc00000.

Every other source dtype reaches float8 through float32 (c10's Float8 types are constructed from
float: float64 and int64 values are rounded to float32 first), and float8 reaches every other
dtype through float32, except bfloat16, where PyTorch's direct cast turns every float8 NaN into
the canonical 0x7fc0 (and float16, where NaN takes the hardware's quiet NaN with the top payload
bits: the fnuz NaN gives 0x7e00).
"""
from __future__ import annotations

import ml_dtypes
import numpy as np

__all__ = ["FORMATS", "is_float8", "to_float8", "from_float8", "to_float32", "abs_float8"]

FORMATS = {np.dtype(t): n for t, n in (
    (ml_dtypes.float8_e4m3fn, "float8_e4m3fn"), (ml_dtypes.float8_e5m2, "float8_e5m2"),
    (ml_dtypes.float8_e4m3fnuz, "float8_e4m3fnuz"), (ml_dtypes.float8_e5m2fnuz, "float8_e5m2fnuz"))}
_E4M3FN = np.dtype(ml_dtypes.float8_e4m3fn)
_E5M2 = np.dtype(ml_dtypes.float8_e5m2)
_F32 = np.dtype(np.float32)
_BF16 = np.dtype(ml_dtypes.bfloat16)
_F16 = np.dtype(np.float16)


def _decode_table(npd):
    """The 256 float32 bit patterns PyTorch gives for each byte of format ``npd``."""
    b = np.arange(256, dtype=np.uint8)
    bits = b.view(npd).astype(np.float32).view(np.uint32).copy()
    nan = np.isnan(b.view(npd).astype(np.float32))
    sign = (b.astype(np.uint32) & 0x80) << 24
    name = FORMATS[npd]
    if name == "float8_e4m3fn":
        bits[nan] = sign[nan] | 0x7ff00000
    elif name == "float8_e5m2":
        mant = (b.astype(np.uint32) & 0x3) << 21
        bits[nan] = sign[nan] | 0x7fc00000 | mant[nan]
    else:
        bits[nan] = 0x7f800001
    return bits


_TABLES = {npd: _decode_table(npd) for npd in FORMATS}


def is_float8(npd) -> bool:
    """True for the NumPy dtype of one of the four float8 formats."""
    return npd in FORMATS


def to_float32(arr):
    """A float8 array as float32 with PyTorch's bits (NaN payloads included)."""
    return _TABLES[arr.dtype][arr.view(np.uint8)].view(np.float32)


def to_float8(arr, npd):
    """Round ``arr`` (any real dtype) into float8 format ``npd`` as PyTorch's CPU cast does.

    Non-float32 sources go through float32 first; a float8 source is decoded first.
    """
    if arr.dtype == npd:
        return arr
    if arr.dtype in FORMATS:
        arr = to_float32(arr)
    elif arr.dtype != _F32:
        arr = arr.astype(np.float32)
    with np.errstate(invalid="ignore", over="ignore"):
        out = arr.astype(npd)
    if npd == _E4M3FN or npd == _E5M2:
        bits = out.view(np.uint8)
        src_nan = np.isnan(arr)
        if npd == _E4M3FN:
            over = np.isnan(out.astype(np.float32)) & ~src_nan
            if over.any():
                bits[over] = (bits[over] & 0x80) | 0x7e
        if src_nan.any():
            sign = (arr[src_nan].view(np.uint32) >> 24).astype(np.uint8) & 0x80
            bits[src_nan] = sign | 0x7f
    return out


def from_float8(arr, npd):
    """A float8 array converted to floating NumPy dtype ``npd`` as PyTorch does (through
    float32; bfloat16 targets take the canonical NaN 0x7fc0). Integer and bool targets: convert
    ``to_float32`` first, then as from float32."""
    f = to_float32(arr)
    if npd == _F32:
        return f
    if npd in FORMATS:
        return to_float8(f, npd)
    with np.errstate(invalid="ignore", over="ignore"):
        out = f.astype(npd)
    if npd == _BF16 or npd == _F16:
        nan = np.isnan(f)
        if nan.any():
            if npd == _BF16:
                out.view(np.uint16)[nan] = 0x7fc0
            else:           # the hardware fp32 -> fp16 NaN: quiet, payload's top bits, sign
                b = f[nan].view(np.uint32)
                out.view(np.uint16)[nan] = ((b >> 16) & 0x8000) | 0x7e00 | ((b >> 13) & 0x3ff)
    return out


VECTOR_BYTES = 64     # torch's AVX512 CPU kernels: one Vectorized<Float8> holds 64 elements


def abs_float8(arr):
    """``abs`` on a float8 array as PyTorch 2.13's AVX512 CPU kernel: in each full vector of 64
    elements (of the C-order flattening) a negative number loses its sign bit while -0 and NaN
    keep their bytes (``x < 0 ? -x : x``); the scalar tail (the last ``size % 64`` elements)
    goes through float32 ``std::abs``, so there -0 becomes +0 and NaN the positive NaN.
    (Inputs above PyTorch's grain size, 32768 elements, split into per-thread chunks with
    their own tails there; not modelled.)"""
    flat = np.ascontiguousarray(arr).reshape(-1)
    bits = flat.view(np.uint8)
    f = to_float32(flat)
    out = bits.copy()
    out[f < 0] &= 0x7f
    tail = flat.size - flat.size % VECTOR_BYTES
    if tail < flat.size:
        out[tail:] = to_float8(np.abs(f[tail:]), flat.dtype).view(np.uint8)
    return out.view(arr.dtype).reshape(arr.shape)
