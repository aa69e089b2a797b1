"""Losses between distributions: ``kl_div`` and ``poisson_nll_loss`` (composite ops, composed of
dispatched ops as PyTorch's ``aten/src/ATen/native/Loss.cpp``), and the ``xlogy`` kernel that
``kl_div`` is made of.

The composites are registered under their aten names so that autocast's policy sees them
(PyTorch's CPU and CUDA lists run both in fp32).
"""
from __future__ import annotations

import math

import numpy as np

from .. import dtypes as _dt
from ..dispatch import dispatch, register_op
from ..tensor import Tensor
from ._util import check_scalar_or_tensor
from .kernel import FLOAT_OPMATH, Kernel
from .margin_loss import _apply_reduction
from .loss import _check_reduction, _rounder

__all__ = ["Xlogy", "XlogyScalarOther", "XlogyScalarSelf", "xlogy_op", "kl_div",
           "poisson_nll_loss"]


@register_op("xlogy")
class Xlogy(Kernel):
    """``xlogy(input, other)`` = ``input * log(other)``, 0 where ``input == 0`` (unless
    ``other`` is nan) (``torch.xlogy``, ``torch.special.xlogy``). Integer inputs give the
    default float; 16-bit rounds ``log(other)`` (correctly rounded in fp32) to the dtype, then
    the product once, as ATen's scalar_t kernel (bit-exact in our measurements).
    Node ``XlogyBackward0`` (``derivatives.yaml``): ``xlogy(grad, other)`` zeroed where
    ``input == 0 and other <= 0``, and ``grad * input / other``. A Python number on either side
    is the ``xlogy.Scalar_Other`` / ``xlogy.Scalar_Self`` op.
    """

    rule = FLOAT_OPMATH
    operands = 2
    saves = ("input", "other")
    _backward_name = "XlogyBackward0"

    @staticmethod
    def kernel(dtype, x, y):
        yy = np.asarray(y)
        if yy.dtype != np.float64:
            # ATen stores std::log(y) in the 16-bit scalar_t before the product (measured)
            logy = _rounder(dtype)(np.log(yy.astype(np.float64)).astype(yy.dtype))
        else:
            logy = np.log(yy)
        out = np.where(x == 0, np.zeros((), logy.dtype), x * logy)
        return np.where(np.isnan(yy), yy, out)

    @staticmethod
    def backward(ctx, grad):
        x, y = ctx.saved_tensors
        n = ctx.needs_input_grad
        gx = gy = None
        if n[0]:
            gx = _xlogy_grad_self(grad, x, y)
        if n[1]:
            gy = dispatch("div", dispatch("mul", grad, x), y)
        return gx, gy


def _xlogy_grad_self(grad, x, y):
    """``xlogy``'s gradient for ``self``: ``xlogy(grad, other).masked_fill((self == 0) &
    (other <= 0), 0)`` (``derivatives.yaml``; ``log(other)`` where ``self == 0 < other``)."""
    g = dispatch("xlogy", grad, y)
    return dispatch("masked_fill", g, dispatch("logical_and", dispatch("eq", x, 0),
                                                 dispatch("le", y, 0)), 0.0)


def _wrapped(number, tensor):
    """A Python number as PyTorch's wrapped-number 0-dim tensor beside ``tensor``: in a
    floating ``tensor``'s own dtype (a wrapped number never promotes it, and TensorIterator
    converts it to the common dtype: a 16-bit tensor takes the number rounded to 16 bits),
    float32 beside an integer or bool one (the result is the default float)."""
    check_scalar_or_tensor(number, "xlogy")
    dt = tensor.dtype if tensor.dtype.is_floating_point else _dt.float32
    with np.errstate(over="ignore"):
        return Tensor._make(np.asarray(np.float64(number)).astype(dt.np), dt)


class XlogyScalarOther(Xlogy):
    """``xlogy(input, other)`` with a Python number ``other`` (``xlogy.Scalar_Other``): node
    ``XlogyBackward2`` (the gradient of ``input`` only, as ``Xlogy``'s)."""

    _backward_name = "XlogyBackward2"


class XlogyScalarSelf(Xlogy):
    """``xlogy(self, other)`` with a Python number ``self`` (``xlogy.Scalar_Self``): node
    ``XlogyBackward1`` (the gradient of ``other`` only: ``grad * self / other``, where ``grad *
    self`` multiplies by the number itself, not its 16-bit rounding: ATen's CPU kernels read a
    Scalar operand's original value)."""

    _backward_name = "XlogyBackward1"
    args = ("input", "other", "number")
    operands = 2
    keeps = ("number",)

    @staticmethod
    def kernel(dtype, x, y, number):
        return Xlogy.kernel(dtype, x, y)

    @staticmethod
    def backward(ctx, grad):
        x, y = ctx.saved_tensors
        gy = dispatch("div", dispatch("mul", grad, ctx.number), y) if ctx.needs_input_grad[1] \
            else None
        return None, gy, None


@register_op("xlogy.Scalar_Other")
def xlogy_scalar_other(input, other):
    """``torch.xlogy(input, other)`` with a number ``other``: ``input * log(other)``, 0 where
    ``input == 0`` (a nan ``other`` gives nan). Integer/bool ``input`` gives the default float;
    16-bit ``input`` takes ``other`` rounded to its dtype (PyTorch's wrapped number).

    Raises:
        TypeError: ``other`` neither a number nor a Tensor.
    """
    return XlogyScalarOther.apply(input, _wrapped(other, input))


@register_op("xlogy.Scalar_Self")
def xlogy_scalar_self(self, other):
    """``torch.xlogy(self, other)`` with a number ``self``: ``self * log(other)``, 0 where
    ``self == 0`` unless ``other`` is nan. Integer/bool ``other`` gives the default float.

    Raises:
        TypeError: ``self`` not a number.
    """
    return XlogyScalarSelf.apply(_wrapped(self, other), other, self)


def xlogy_op(input, other):
    """The xlogy overload for these arguments: ``xlogy`` (two tensors),
    ``xlogy.Scalar_Self`` (a number first), ``xlogy.Scalar_Other`` (a number second).

    Raises:
        TypeError: neither argument a Tensor (PyTorch's "xlogy() received an invalid
            combination of arguments - got (float, float)...").
    """
    a, b = isinstance(input, Tensor), isinstance(other, Tensor)
    if a and b:
        return "xlogy"
    if b:
        return "xlogy.Scalar_Self"
    if a:
        return "xlogy.Scalar_Other"
    raise TypeError(f"xlogy() received an invalid combination of arguments - got "
                    f"({type(input).__name__}, {type(other).__name__}), but expected one of:\n"
                    " * (Tensor input, Tensor other, *, Tensor out = None)\n"
                    " * (Number self, Tensor other, *, Tensor out = None)\n"
                    " * (Tensor input, Number other, *, Tensor out = None)\n")


@register_op("kl_div")
def kl_div(input, target, reduction="mean", log_target=False):
    """``kl_div(input, target, reduction='mean', log_target=False)`` (``torch.kl_div``, the
    kernel under ``F.kl_div``): ``target * (log(target) - input)`` per element, as
    ``xlogy(target, target) - target * input`` (``exp(target) * (target - input)`` with
    ``log_target``), reduced. ``input`` holds log-probabilities. ``reduction`` here is
    'none' | 'mean' | 'sum'; ``F.kl_div`` adds 'batchmean' and the warning for 'mean'.

    Raises:
        RuntimeError: "kl_div: Integral inputs not supported.". ValueError: an unknown reduction.
    """
    _check_reduction(reduction)
    for t in (input, target):
        if isinstance(t, Tensor) and not t.dtype.is_floating_point:
            raise RuntimeError("kl_div: Integral inputs not supported.")
    if log_target:
        out = dispatch("mul", dispatch("exp", target), dispatch("sub", target, input))
    else:
        out = dispatch("sub", dispatch("xlogy", target, target), dispatch("mul", target, input))
    return _apply_reduction(out, reduction)


@register_op("poisson_nll_loss")
def poisson_nll_loss(input, target, log_input=True, full=False, eps=1e-8, reduction="mean"):
    """``poisson_nll_loss(input, target, log_input=True, full=False, eps=1e-8,
    reduction='mean')`` (``torch.poisson_nll_loss``): ``exp(input) - target * input``
    (``log_input``) or ``input - target * log(input + eps)``, plus Stirling's term
    ``t log t - t + 0.5 log(2 pi t)`` where ``target > 1`` when ``full``, reduced.

    Raises:
        ValueError: an unknown reduction ("foo is not a valid value for reduction").
    """
    _check_reduction(reduction)
    if log_input:
        loss = dispatch("sub", dispatch("exp", input), dispatch("mul", target, input))
    else:
        loss = dispatch("sub", input, dispatch("mul", target,
                                               dispatch("log", dispatch("add", input, eps))))
    if full:
        stirling = dispatch("add", dispatch("sub", dispatch("mul", target,
                                                            dispatch("log", target)), target),
                            dispatch("mul", dispatch("log", dispatch("mul", target,
                                                                     2 * math.pi)), 0.5))
        loss = dispatch("add", loss, dispatch("masked_fill", stirling,
                                              dispatch("le", target, 1), 0))
    return _apply_reduction(loss, reduction)
