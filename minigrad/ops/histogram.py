"""Counting ops: ``bincount`` and ``histc`` (not differentiable, as in PyTorch).

``bincount`` counts each non-negative integer (int64 result), or sums ``weights`` per value
(PyTorch's CPU kernel adds in double and returns float64, except float32 weights, which give
float32: the sums are still double, rounded once). ``histc`` counts values into ``bins``
equal-width bins between ``min`` and ``max`` (the data's range when both are 0), as PyTorch's
CPU ``histogramdd`` kernel: a value's bin is ``(x - min) * bins / (max - min)`` truncated, the
upper edge in the last bin, values outside ignored; the result has the input's dtype.
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from ..dispatch import register_op
from ..tensor import Tensor
from ._util import wrap


@register_op("bincount")
def bincount(input, weights=None, minlength=0):
    """``bincount(input, weights=None, minlength=0)`` (``torch.bincount``): ``out[v]`` = the
    number of times ``v`` occurs in the 1-D non-negative integer ``input`` (or the sum of the
    ``weights`` there); length ``max(input) + 1`` or ``minlength``.

    Raises:
        RuntimeError: "bincount only supports 1-d non-negative integral inputs."; "minlength
            should be >= 0"; "weights should be 1-d and have the same length as input".
        NotImplementedError: float or bool input ('"bincount_cpu" not implemented for
            'Float'').
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"bincount(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    if input.dtype.is_floating_point or input.dtype is _dt.bool_:
        raise NotImplementedError(f'"bincount_cpu" not implemented for '
                                  f'\'{input.dtype.scalar_name}\'')
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    x = input._data
    if x.ndim == 1 and x.size == 0:
        return wrap(np.zeros(minlength, np.int64), _dt.int64)    # int64 even with weights
    else:
        if x.ndim != 1 or x.min() < 0:
            raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
        x = x.astype(np.int64)
        n = max(int(x.max()) + 1, minlength)
    if weights is None:
        return wrap(np.bincount(x, minlength=n), _dt.int64)
    if weights.ndim != 1 or weights.shape[0] != x.shape[0]:
        raise RuntimeError("weights should be 1-d and have the same length as input")
    w = weights._data.astype(np.float64)
    out = np.zeros(n, np.float64)
    np.add.at(out, x, w)                  # in input order, in double, as the CPU kernel
    rt = _dt.float32 if weights.dtype is _dt.float32 else _dt.float64
    return wrap(out, rt)


@register_op("histc")
def histc(input, bins=100, min=0, max=0):
    """``histc(input, bins=100, min=0, max=0)`` (``torch.histc``): counts of the elements in
    ``bins`` equal-width bins over ``[min, max]`` (both 0: the data's min and max; equal:
    widened by 1 each side), in the input's floating dtype; elements outside are ignored.

    Raises:
        RuntimeError: "torch.histogram(): bins must be > 0, but got 0 for dimension 0";
            "max must be larger than min"; a non-finite range ("torch.histc: range of [nan,
            nan] is not finite"). NotImplementedError: integer input ('"histogram_cpu" not
            implemented for 'Long'').
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"histc(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    dt = input.dtype
    if not dt.is_floating_point or dt.is_float8:
        raise NotImplementedError(f'"histogram_cpu" not implemented for \'{dt.scalar_name}\'')
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for "
                           "dimension 0")
    a = input._data.astype(np.float64).reshape(-1)
    lo, hi = float(min), float(max)
    if lo == hi and a.size:
        lo, hi = float(a.min()), float(a.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if lo > hi:
        raise RuntimeError("max must be larger than min")
    if not (np.isfinite(lo) and np.isfinite(hi)):
        raise RuntimeError(f"torch.histc: range of [{lo:g}, {hi:g}] is not finite")
    # the bin edges and positions in the input's own precision, as ATen's kernel
    cd = np.float32 if dt is not _dt.float64 else np.float64
    x = a.astype(cd)
    lo_c, hi_c = cd(lo), cd(hi)
    keep = (x >= lo_c) & (x <= hi_c)
    x = x[keep]
    pos = ((x - lo_c) * cd(bins) / (hi_c - lo_c)).astype(np.int64)
    pos = np.minimum(pos, bins - 1)
    out = np.bincount(pos, minlength=bins).astype(np.float64)
    return wrap(out, dt)
