"""Binary-op helpers shared by the elementwise, comparison and pow ops.

Operands follow PyTorch's TensorIterator: tensor operands are converted to the common (result)
dtype, then upcast to opmath (fp32 for fp16/bf16). ``tail_mask`` models which elements PyTorch's
CPU loops compute in their scalar tail (where a few kernels round differently).
"""
from __future__ import annotations

import os

import numpy as np

from .. import dtypes as _dt
from ..tensor import Tensor
from ._util import LOW, broadcast_shapes, check_scalar_or_tensor, scalar_add
from .factory import _convert

_GRAIN = 32768           # at::internal::GRAIN_SIZE
_STEP = 32               # elements per vectorised iteration (AVX512, 16-bit and fp32 kernels)
try:
    _NTHREADS = len(os.sched_getaffinity(0))
except AttributeError:   # pragma: no cover - non-Linux
    _NTHREADS = os.cpu_count() or 1


# ---------------------------------------------------------------------------------- helpers
def arr(x, rt):
    """Tensor ``x`` converted to dtype ``rt`` (as TensorIterator does), as an opmath array."""
    a = x._data
    if x.dtype is not rt:
        a = _convert(a, rt)
    cd = rt.opmath.np
    return a if a.dtype == cd else a.astype(cd)


def is_scalar_other(other, input):
    """True when ``other`` takes PyTorch's CPU-scalar path: a Python number or a 0-dim tensor
    next to a dimensioned ``input``."""
    return not isinstance(other, Tensor) or (other.ndim == 0 and input.ndim > 0)


def scalar_value(x):
    """The Python number of a scalar operand (a Python number or a one-element tensor)."""
    return x.item() if isinstance(x, Tensor) else x


def check_binary(input, other, op):
    """Type and shape checks shared by binary ops.

    Raises:
        TypeError: ``input`` not a Tensor or ``other`` neither Tensor nor number.
        RuntimeError: shapes that do not broadcast (PyTorch's message).
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"{op}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    if isinstance(other, Tensor):
        if other._data.shape != input._data.shape:
            broadcast_shapes(input.shape, other.shape)
    else:
        check_scalar_or_tensor(other, op)


def _check_alpha(alpha, rt):
    """PyTorch's checks of ``alpha`` for add/sub/rsub.

    Raises:
        RuntimeError: a float ``alpha`` with an integral result; an integer ``alpha`` that does not
            fit the result type ("value cannot be converted to type uint8_t without overflow";
            like c10's ``checked_convert``, unsigned types accept negatives down to -max).
    """
    if rt.is_floating_point:
        return
    if isinstance(alpha, float):
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating "
                           "point number.")
    name = rt.c10_name
    if rt is not _dt.bool_ and not isinstance(alpha, bool):
        info = np.iinfo(rt.np)
        lo = -int(info.max) if info.min == 0 else int(info.min)
        if not lo <= int(alpha) <= int(info.max):
            raise RuntimeError(f"value cannot be converted to type {name} without overflow")


def tail_mask(out_shape, in_shapes, step=_STEP):
    """Bool mask of the elements PyTorch's CPU loops compute in their scalar tail.

    TensorIterator coalesces the output's trailing dims that every operand either fully covers
    or broadcasts alike into one inner row; rows (split further into per-thread chunks of
    ``numel / threads`` elements when ``numel`` exceeds the 32768 grain) are processed
    ``step`` elements at a time, and the remainder of each segment goes through the scalar loop.
    """
    nd = len(out_shape)
    n_all = 1
    for s in out_shape:
        n_all *= s
    if n_all == 0:
        return None
    pads = [(1,) * (nd - len(s)) + tuple(s) for s in in_shapes]
    inner, kind = 1, None
    for j in range(nd - 1, -1, -1):
        n = out_shape[j]
        if n == 1:
            continue
        k = tuple(p[j] == n for p in pads)
        if kind is None:
            kind = k
        elif k != kind:
            break
        inner *= n
    idx = np.arange(n_all)
    seg_start = idx - idx % inner
    seg_end = seg_start + inner
    if n_all >= _GRAIN and _NTHREADS > 1:
        tasks = min(_NTHREADS, -(-n_all // _GRAIN))
        chunk = -(-n_all // tasks)
        c0 = idx - idx % chunk
        seg_start = np.maximum(seg_start, c0)
        seg_end = np.minimum(seg_end, np.minimum(c0 + chunk, n_all))
    m = seg_end - seg_start
    return ((idx - seg_start) >= (m // step) * step).reshape(out_shape)


def scalar_in(s, rt):
    """A Python-number operand converted as PyTorch converts it to ``rt`` for add/sub/compare:
    16-bit floats rounded first; integers wrap around (``uint8`` -2 is 254) instead of raising."""
    if not rt.is_floating_point and isinstance(s, (int, np.integer)) and not isinstance(s, bool):
        return np.array(int(s)).astype(rt.np)[()] if -2**63 <= s < 2**64 else scalar_add(s, rt)
    return scalar_add(s, rt)


def _r16(x, rt):
    """Round an fp32 array to 16-bit ``rt`` and back to fp32."""
    return x.astype(rt.np).astype(np.float32)


def fma64(x, y, z):
    """``x*y + z`` in float64 with (nearly always) one rounding, as a hardware fma: the
    product's rounding error comes from Dekker's exact two-product (Veltkamp splitting)."""
    with np.errstate(all="ignore"):
        x = np.asarray(x, np.float64)
        y = np.asarray(y, np.float64)
        p = x * y
        cx, cy = 134217729.0 * x, 134217729.0 * y     # 2**27 + 1
        xh, yh = cx - (cx - x), cy - (cy - y)
        xl, yl = x - xh, y - yh
        err = ((xh * yh - p) + xh * yl + xl * yh) + xl * yl
        s = p + z                                    # Knuth's two-sum: p + z = s + e
        bb = s - p
        e = (p - (s - bb)) + (z - bb)
        out = s + (e + err)
    return np.where(np.isfinite(out), out, s)


def add_kernel(input, other, alpha, rt, negate=False):
    """opmath ``input + alpha*other`` (``-`` when ``negate``), returned in opmath.

    fp32/fp64 with alpha use a single-rounding fma (as PyTorch); 16-bit with alpha reproduce the
    scalar-tail rounding of ``alpha*other`` (see ``tail_mask``).
    """
    a = arr(input, rt)
    scalar = not isinstance(other, Tensor)
    b = scalar_in(other, rt) if scalar else arr(other, rt)
    if alpha == 1:
        return a - b if negate else a + b
    # negate the Python number, not the converted one: -uint8(3) would warn (it wraps anyway)
    al = scalar_in(-alpha if negate else alpha, rt)
    if rt is _dt.float32:
        return (np.asarray(b, np.float64) * np.float64(al) + a).astype(np.float32)
    if rt is _dt.float64:
        return fma64(b, al, a)
    out = a + al * b
    if rt in LOW:
        oshape = np.broadcast_shapes(np.shape(a), np.shape(b))
        mask = tail_mask(oshape, (np.shape(a), np.shape(b)))
        if mask is not None and mask.any():
            step = a + _r16(np.asarray(al * b, np.float32), rt)
            out = np.where(mask, step, out)
    return out
