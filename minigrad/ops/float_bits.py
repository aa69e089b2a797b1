"""Ops on the parts of a floating-point number: ``signbit`` and ``frexp``.

Both are exact in every format: a 16-bit value is decomposed through float32, which holds it
exactly (its mantissa then fits the 16-bit format again).
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from ..autograd.function import Function
from ..dispatch import dispatch, register_op
from ..tensor import Tensor
from ._util import LOW as _LOW, wrap


def _check(x, op):
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(x).__name__}")


def _exact(x):
    """The storage as an array NumPy's float functions take exactly (16-bit -> float32)."""
    return x._data.astype(np.float32) if x.dtype in _LOW else x._data


@register_op("signbit")
def signbit(input):
    """``signbit(input)`` (``torch.signbit``, ``Tensor.signbit``): a bool tensor, True where
    the sign bit is set (``-0.0`` and NaNs with the bit included); integers: ``x < 0``; bool:
    False.

    Raises:
        NotImplementedError: float8 ('"signbit_cpu" not implemented for 'Float8_e4m3fn'').
    """
    _check(input, "signbit")
    dt = input.dtype
    if dt.is_float8:
        raise NotImplementedError(f'"signbit_cpu" not implemented for \'{dt.scalar_name}\'')
    if dt.is_floating_point:
        out = np.signbit(_exact(input))
    elif dt is _dt.bool_:
        out = np.zeros(input._data.shape, np.bool_)
    else:
        out = input._data < 0
    return Tensor._make(np.asarray(out, np.bool_), _dt.bool_)


class frexp_ret(tuple):
    """``(mantissa, exponent)`` with attribute access, like ``torch.return_types.frexp``."""

    __slots__ = ()

    def __new__(cls, mantissa, exponent):
        return tuple.__new__(cls, (mantissa, exponent))

    mantissa = property(lambda self: self[0])
    exponent = property(lambda self: self[1])


@register_op("frexp.Tensor")
class Frexp(Function):
    """``frexp(input)`` -> ``(mantissa, exponent)`` (``torch.frexp``, ``Tensor.frexp``):
    ``input = mantissa * 2**exponent`` with ``0.5 <= |mantissa| < 1`` (0, inf and NaN keep
    their value with exponent 0); the mantissa in the input's dtype, the exponent int32.
    ``FrexpBackward0``: ``grad / 2**exponent``.

    Raises:
        RuntimeError: a non-floating input ("torch.frexp() only supports floating-point
            dtypes").
    """

    _backward_name = "FrexpBackward0"

    @staticmethod
    def forward(ctx, input):
        _check(input, "frexp")
        if not input.dtype.is_floating_point or input.dtype.is_float8:
            raise RuntimeError("torch.frexp() only supports floating-point dtypes")
        m, e = np.frexp(_exact(input))
        exp = Tensor._make(np.asarray(e, np.int32), _dt.int32)
        ctx.mark_non_differentiable(exp)
        ctx.save_for_backward(exp)
        return frexp_ret(wrap(np.asarray(m), input.dtype), exp)

    @staticmethod
    def backward(ctx, grad, grad_exp=None):
        (exp,) = ctx.saved_tensors
        return dispatch("div", grad, dispatch("exp2", dispatch("_to_copy", exp,
                                                               dtype=grad.dtype)))

