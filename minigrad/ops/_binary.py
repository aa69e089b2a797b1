"""Binary-op helpers shared by the elementwise, comparison and pow ops.

Operands follow PyTorch's TensorIterator: tensor operands are converted to the common (result)
dtype, then upcast to opmath (fp32 for fp16/bf16). ``tail_mask`` (from ``minigrad.numerics``)
models which elements PyTorch's CPU loops compute in their scalar tail (where a few kernels round
differently).
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from .. import numerics as _nx
from ..numerics import fma64, scalar_in, tail_mask  # noqa: F401  (fma64, tail_mask: for ops)
from ..tensor import Tensor
from ._util import LOW, broadcast_shapes, check_scalar, check_scalar_or_tensor
from .factory import _convert



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
        if alpha != 1:
            check_scalar(alpha, rt)
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


def _r16(x, rt):
    """Round an fp32 array to 16-bit ``rt`` and back to fp32 (``numerics.round_to``)."""
    return _nx.round_to(x, rt)


def add_kernel(rt, a, b, alpha=1, negate=False):
    """opmath ``a + alpha*b`` (``-`` when ``negate``) for result dtype ``rt``, in opmath.

    ``a``, ``b``: the operands as the kernel base loads them (opmath arrays; a Python-number
    ``b`` already converted by PyTorch's add rule, ``numerics.scalar_in``). fp32/fp64 with alpha
    use a single-rounding fma (as PyTorch); 16-bit with alpha reproduce the scalar-tail rounding
    of ``alpha*other`` (see ``tail_mask``).

    Raises:
        RuntimeError: ``alpha`` not allowed for ``rt`` (``_check_alpha``).
    """
    _check_alpha(alpha, rt)
    if alpha == 1:
        return a - b if negate else a + b
    # negate the Python number, not the converted one: -uint8(3) would warn (it wraps anyway)
    al = scalar_in(-alpha if negate else alpha, rt)
    if rt is _dt.float32:
        return _nx.fma32(b, al, a)
    if rt is _dt.float64:
        return fma64(b, al, a)
    out = a + al * b
    if rt in LOW:
        oshape = np.broadcast_shapes(np.shape(a), np.shape(b))
        # the DEFAULT build's generic Vectorized<Half> rounds alpha*other in its body too
        mask = np.ones(oshape, bool) if _nx.CPU_CAPABILITY == "DEFAULT" else \
            tail_mask(oshape, (np.shape(a), np.shape(b)), _nx.loop_step(rt))
        if mask is not None and mask.any():
            step = a + _r16(np.asarray(al * b, np.float32), rt)
            out = np.where(mask, step, out)
    return out
