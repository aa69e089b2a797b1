"""Elementwise arithmetic: add, sub, mul, div, ... each computing in opmath, rounding once.

Scalars follow PyTorch (see ``_util``): add/sub scalars and ``alpha`` are rounded to a 16-bit
tensor's dtype first; mul/div scalars are used in fp32. Backward formulas are dispatched ops;
broadcast reduction and dtype casts of gradients happen centrally in the engine.
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from ..autograd.function import Function
from ..dispatch import dispatch, register_op
from ..tensor import Tensor
from ._util import LOW, broadcast_shapes, check_scalar_or_tensor, is_tensor, opmath, \
    scalar_add, wrap


def _check_binary(input, other, op):
    if not isinstance(input, Tensor):
        raise TypeError(f"{op}(): argument 'input' must be Tensor, not {type(input).__name__}")
    check_scalar_or_tensor(other, op)
    if isinstance(other, Tensor) and other.shape != input.shape:
        broadcast_shapes(input.shape, other.shape)


def _check_alpha(alpha, rt, op):
    if isinstance(alpha, float) and not rt.is_floating_point:
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating "
                           "point number.")


def _add_kernel(a, b, alpha, rt):
    """opmath a + alpha*b; fp32/fp64 with alpha use a single-rounding fma (as PyTorch)."""
    if alpha == 1:
        return a + b
    al = scalar_add(alpha, rt)
    if rt is _dt.float32:
        return (np.asarray(b, np.float64) * np.float64(al) + np.asarray(a, np.float64))
    return a + al * b


@register_op("add")
class Add(Function):
    """``add(input, other, *, alpha=1)`` = input + alpha * other (``torch.add``)."""

    _backward_name = "AddBackward0"

    @staticmethod
    def forward(ctx, input, other, *, alpha=1):
        if not isinstance(input, Tensor):      # scalar + tensor
            input, other = other, input
        _check_binary(input, other, "add")
        rt = _dt.result_type(input, other)
        _check_alpha(alpha, rt, "add")
        a = opmath(input, rt)
        b = opmath(other, rt) if is_tensor(other) else scalar_add(other, rt)
        ctx.alpha = alpha
        return wrap(_add_kernel(a, b, alpha, rt), rt)

    @staticmethod
    def backward(ctx, grad):
        return grad, (grad if ctx.alpha == 1 else dispatch("mul", grad, ctx.alpha))


@register_op("mul")
class Mul(Function):
    """``mul(input, other)`` (``torch.mul``); a Python scalar is used in opmath unrounded."""

    _backward_name = "MulBackward0"

    @staticmethod
    def forward(ctx, input, other):
        if not isinstance(input, Tensor):
            input, other = other, input
        _check_binary(input, other, "mul")
        rt = _dt.result_type(input, other)
        a = opmath(input, rt)
        if is_tensor(other):
            b = opmath(other, rt)
            ctx.save_for_backward(input if ctx.needs_input_grad[1] else None,
                                  other if ctx.needs_input_grad[0] else None)
            ctx.scalar = None
        else:
            b = opmath(other, rt)
            ctx.scalar = other
        return wrap(a * b, rt)

    @staticmethod
    def backward(ctx, grad):
        if ctx.scalar is not None:
            return dispatch("mul", grad, ctx.scalar), None
        input, other = ctx.saved_tensors
        ga = dispatch("mul", grad, other) if ctx.needs_input_grad[0] else None
        gb = dispatch("mul", grad, input) if ctx.needs_input_grad[1] else None
        return ga, gb


def _inplace(self, result):
    """Write ``result`` into ``self``'s storage (dtype of self, one rounding), bump version.

    Raises:
        RuntimeError: on a leaf that requires grad while grad mode is on; when the result dtype
            cannot be cast to self's ("result type Float can't be cast to the desired output
            type Long"); when broadcasting would change self's shape.
    """
    from ..autograd.grad_mode import is_grad_enabled
    if self._requires_grad and self.grad_fn is None and is_grad_enabled():
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place "
                           "operation.")
    if result.shape != self.shape:
        raise RuntimeError(f"output with shape {list(self.shape)} doesn't match the broadcast "
                           f"shape {list(result.shape)}")
    if result.dtype.is_floating_point and not self.dtype.is_floating_point:
        raise RuntimeError(f"result type {result.dtype.name} can't be cast to the desired output "
                           f"type {self.dtype.name}")
    arr = result._data
    if arr.dtype != self._data.dtype:
        arr = arr.astype(self._data.dtype)
    self._data[...] = arr
    self._bump()
    return self


@register_op("add_")
def add_(self, other, *, alpha=1):
    """In-place ``self += alpha * other`` (``Tensor.add_``); not recorded for autograd here."""
    from ..autograd.grad_mode import no_grad
    with no_grad():
        res = dispatch("add", self, other, alpha=alpha)
    return _inplace(self, res)


@register_op("mul_")
def mul_(self, other):
    """In-place ``self *= other`` (``Tensor.mul_``)."""
    from ..autograd.grad_mode import no_grad
    with no_grad():
        res = dispatch("mul", self, other)
    return _inplace(self, res)
