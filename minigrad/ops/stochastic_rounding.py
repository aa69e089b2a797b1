"""Stochastic rounding: a cast that rounds each value up or down at random, with the
probability that makes the result unbiased (``E[round(x)] = x``).

``_to_copy_stochastic(input, dtype, generator=None)`` casts a floating tensor into a floating
format of fewer bits (float16, bfloat16, the float8 formats, or float32 from float64). For each
element, ``r`` is the nearest value of the format (what ``.to(dtype)`` gives) and ``n`` its
neighbour on the other side of ``x``; the result is ``n`` with probability ``|x - r| / |n - r|``
and ``r`` otherwise, decided by one uniform double per element from ``generator`` (minigrad's
default CPU generator when None: reproducible after ``manual_seed``). Exact values, inf and NaN
are kept; a value whose nearest rounding overflows stays ±inf (as nearest rounding).

The float8 targets follow minigrad's (= PyTorch's) float8 cast rules (``minigrad/_fp8.py``) for
everything outside the finite range: ``float8_e4m3fn`` SATURATES (a value beyond 448 and ±inf
give ±448: no stochastic step past the largest finite value, whose bit-pattern neighbour is
NaN), ``float8_e5m2`` overflows to ±inf as fp16 does, the fnuz formats give their NaN (0x80),
and NaN takes PyTorch's NaN bits (0x7f with the input's sign; 0x80 for fnuz). A value that
rounds to zero in a fnuz format (no -0 there: it rounds to +0) still steps towards its own
sign, to ±smallest subnormal.

Not a PyTorch op (PyTorch has no stochastic-rounding cast); ``amp_emu.formats.stochastic_round``
is its user API. Its backward passes the gradient through unchanged, cast back to the input
dtype, as ``_to_copy``'s does (``ToCopyBackward0``).
"""
from __future__ import annotations

import numpy as np

from .. import _fp8
from .. import dtypes as _dt
from ..autograd.function import Function
from ..dispatch import dispatch, register_op
from ..tensor import Tensor

_UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32}


def _neighbour_toward(r, x):
    """The representable neighbour of ``r`` (an array of the target format) on the side of
    ``x`` (float64): one step of the sign-magnitude bit pattern. From a zero the step goes to
    the smallest subnormal of ``x``'s sign (the fnuz formats round a negative value to +0)."""
    u = _UINT[r.dtype.itemsize]
    bits = r.view(u).astype(np.int64)
    rf = r.astype(np.float64)
    up = np.abs(x) > np.abs(rf)                    # away from zero: magnitude + 1 ulp
    step = np.where(up, 1, -1)
    nb = bits + step
    sign = np.int64(1) << np.int64(8 * r.dtype.itemsize - 1)
    nb = np.where(rf == 0, np.where(np.signbit(x), sign, 0) | 1, nb)
    return nb.astype(u).view(r.dtype)


@register_op("_to_copy_stochastic")
class ToCopyStochastic(Function):
    """``_to_copy_stochastic(input, dtype, generator=None)``: the stochastic-rounding cast of
    the module docstring.

    Raises:
        TypeError: ``input`` not a floating Tensor, or ``dtype`` not a floating format with
            fewer bits than ``input``'s.
    """

    _backward_name = "ToCopyStochasticBackward"

    @staticmethod
    def forward(ctx, input, dtype, generator=None):
        if not isinstance(input, Tensor) or not input.dtype.is_floating_point:
            raise TypeError("_to_copy_stochastic(): input must be a floating Tensor, got "
                            f"{getattr(input, 'dtype', type(input).__name__)}")
        dt = _dt.as_dtype(dtype)
        if not dt.is_floating_point or dt.itemsize >= input.dtype.itemsize:
            raise TypeError(f"_to_copy_stochastic(): cannot round {input.dtype.name} "
                            f"stochastically into {dt.name} (needs a narrower floating dtype)")
        ctx.src_dtype = input.dtype
        x = np.asarray(input._data).astype(np.float64)
        with np.errstate(all="ignore"):                      # (an overflow rounds to inf)
            r = x.astype(dt.np)                               # nearest
        if dt.is_float8:    # outside the finite range: PyTorch's float8 cast (saturation, NaN bits)
            special = ~np.isfinite(r.astype(np.float64))
            if special.any():
                r[special] = _fp8.to_float8(x[special], dt.np)
        rf = r.astype(np.float64)
        u = dispatch("rand", tuple(x.shape), dtype=_dt.float64, generator=generator)._data
        with np.errstate(all="ignore"):
            n = _neighbour_toward(r, x)
            nf = n.astype(np.float64)
            # a neighbour past the largest finite value (inf, or NaN for e4m3fn) is never taken
            inexact = np.isfinite(x) & np.isfinite(rf) & (rf != x) & np.isfinite(nf)
            p = np.where(inexact, np.abs(x - rf) / np.abs(nf - rf), 0.0)
        out = np.where(inexact & (u < p), n, r)
        return Tensor._make(np.ascontiguousarray(out), dt)

    @staticmethod
    def backward(ctx, grad):
        return dispatch("_to_copy", grad, dtype=ctx.src_dtype), None, None
