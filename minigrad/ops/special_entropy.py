"""``torch.special`` ops of the entropy family: ``special_entr`` (``-x log x``) and
``special_xlog1py`` (``x log1p(y)``, with its number overloads).

Numerics as ATen's scalar CPU kernels (``cpu_kernel`` over ``scalar_t``): the C library's
``logf`` / ``log1pf`` (``log`` / ``log1p`` for fp64); for fp16/bf16 ``std::log`` and
``std::log1p`` are c10's reduced-float overloads, which return the 16-bit type, so the logarithm
is rounded to 16 bits before the product (as ``xlogy``'s kernel, ``ops/distribution_loss.py``),
and the product rounds once more.
"""
from __future__ import annotations

import ctypes

import numpy as np

from ..dispatch import dispatch, register_op
from ..tensor import Tensor
from .distribution_loss import _wrapped
from .gamma import _libm
from .kernel import FLOAT_OPMATH, Kernel
from .loss import _rounder

__all__ = ["SpecialEntr", "SpecialXlog1py", "xlog1py_op"]

_F = {("log", 4): _libm("logf", ctypes.c_float), ("log", 8): _libm("log", ctypes.c_double),
      ("log1p", 4): _libm("log1pf", ctypes.c_float),
      ("log1p", 8): _libm("log1p", ctypes.c_double)}


def _c(name, a):
    """``name`` (log or log1p) of an fp32/fp64 array through the C library, in its type."""
    a = np.asarray(a)
    f = _F.get((name, a.dtype.itemsize))
    if f is None or a.size == 0:
        return getattr(np, name)(a)
    return np.asarray(f(a), a.dtype).reshape(a.shape)


@register_op("special_entr")
class SpecialEntr(Kernel):
    """``special_entr(input)`` (``torch.special.entr``): ``-x log x`` for ``x > 0``, 0 at 0,
    ``-inf`` below 0, nan at nan; integers give the default float. Node
    ``SpecialEntrBackward0``: ``grad * -(1 + log(x))``."""

    rule = FLOAT_OPMATH
    saves = ("input",)
    _backward_name = "SpecialEntrBackward0"

    @staticmethod
    def kernel(dtype, a):
        t = a.dtype.type
        with np.errstate(all="ignore"):
            lg = _rounder(dtype)(_c("log", a)).astype(a.dtype)
            out = np.where(a > 0, -a * lg, np.where(a == 0, t(0), t(-np.inf)))
        return np.where(np.isnan(a), a, out)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return dispatch("mul", grad, dispatch("neg", dispatch("add", dispatch("log", x), 1)))


@register_op("special_xlog1py")
class SpecialXlog1py(Kernel):
    """``special_xlog1py(input, other)`` (``torch.special.xlog1py``): ``x * log1p(y)``, 0 where
    ``x == 0`` unless ``y`` is nan; broadcasting; integers give the default float. Node
    ``SpecialXlog1PyBackward0`` (``derivatives.yaml``): ``xlog1py(grad, y)`` zeroed where
    ``x == 0 and y <= -1``, and ``grad * x / (y + 1)``."""

    rule = FLOAT_OPMATH
    operands = 2
    saves = ("input", "other")
    _backward_name = "SpecialXlog1PyBackward0"

    @staticmethod
    def kernel(dtype, x, y):
        yy = np.asarray(y)
        with np.errstate(all="ignore"):
            l1p = _rounder(dtype)(_c("log1p", yy)).astype(yy.dtype)
            out = np.where(x == 0, np.zeros((), l1p.dtype), x * l1p)
        return np.where(np.isnan(yy), yy, out)

    @staticmethod
    def backward(ctx, grad):
        x, y = ctx.saved_tensors
        n = ctx.needs_input_grad
        gx = gy = None
        if n[0]:
            g = dispatch("special_xlog1py", grad, y)
            gx = dispatch("masked_fill", g, dispatch("logical_and", dispatch("eq", x, 0),
                                                     dispatch("le", y, -1)), 0.0)
        if n[1]:
            gy = dispatch("div", dispatch("mul", grad, x), dispatch("add", y, 1))
        return gx, gy


class _Xlog1pyScalarOther(SpecialXlog1py):
    _backward_name = "SpecialXlog1PyBackward2"


class _Xlog1pyScalarSelf(SpecialXlog1py):
    """A number ``self``: ``other``'s gradient ``grad * self / (other + 1)`` multiplies by the
    number itself, not its 16-bit rounding (ATen's CPU kernels read a Scalar's original
    value)."""

    _backward_name = "SpecialXlog1PyBackward1"
    args = ("input", "other", "number")
    keeps = ("number",)

    @staticmethod
    def kernel(dtype, x, y, number):
        return SpecialXlog1py.kernel(dtype, x, y)

    @staticmethod
    def backward(ctx, grad):
        x, y = ctx.saved_tensors
        gy = None
        if ctx.needs_input_grad[1]:
            gy = dispatch("div", dispatch("mul", grad, ctx.number), dispatch("add", y, 1))
        return None, gy, None


@register_op("special_xlog1py.other_scalar")
def xlog1py_other_scalar(input, other):
    """``torch.special.xlog1py(input, other)`` with a number ``other`` (node
    ``SpecialXlog1PyBackward2``); a 16-bit ``input`` takes ``other`` rounded to its dtype."""
    return _Xlog1pyScalarOther.apply(input, _wrapped(other, input))


@register_op("special_xlog1py.self_scalar")
def xlog1py_self_scalar(self, other):
    """``torch.special.xlog1py(self, other)`` with a number ``self`` (node
    ``SpecialXlog1PyBackward1``)."""
    return _Xlog1pyScalarSelf.apply(_wrapped(self, other), other, self)


def xlog1py_op(input, other):
    """The ``special_xlog1py`` overload for these arguments (two tensors, a number first, a
    number second).

    Raises:
        TypeError: neither argument a Tensor.
    """
    a, b = isinstance(input, Tensor), isinstance(other, Tensor)
    if a and b:
        return "special_xlog1py"
    if b:
        return "special_xlog1py.self_scalar"
    if a:
        return "special_xlog1py.other_scalar"
    raise TypeError(f"special_xlog1py() received an invalid combination of arguments - got "
                    f"({type(input).__name__}, {type(other).__name__})")
